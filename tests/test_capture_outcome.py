"""What a finished capture leaves (explorer.capture.outcome), with the stand-in workers: a capture none
of whose targets compiled, one that compiled some, a worker that refuses the model, a full disk.

The stand-ins (tests/fake_workers) speak the real protocol and are started by the real orchestrator,
so these run the orchestrator's own decisions in seconds; tests/test_wrong_answers.py runs the same
cases through the command line, and its e2e test runs the real TVM failure.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections import namedtuple
from pathlib import Path

import pytest
from test_capture_orchestrator import bundles_dir, leftovers

from explorer.capture import growth, orchestrator, staging_manifest
from explorer.capture.events import CacheHit, CaptureEvent, CaptureFinished, LevelCaptured
from explorer.capture.orchestrator import cached_bundle, capture
from explorer.errors import CaptureFailed, TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

CPU = CaptureOptions(targets=("cpu",))
TPU = CaptureOptions(targets=("tpu:v5e",))
CPU_AND_TPU = CaptureOptions(targets=("cpu", "tpu:v5e"))
LOOP = "OpNotImplemented: The following operators are not supported for frontend ONNX: Loop"


@pytest.fixture
def accelerators(monkeypatch):
    """The stand-in needs no libtpu or CUDA: every target counts as available."""
    monkeypatch.setattr("explorer.targets.availability", lambda target: None)
    monkeypatch.setattr(orchestrator, "availability", lambda target: None)


def no_bundle_cached() -> bool:
    return not bundles_dir().is_dir() or not [p for p in bundles_dir().iterdir()]


# --- every target asked for failed: nothing to show, never cached ----------------------------------


def test_a_capture_whose_only_target_failed_at_every_level_is_an_error_and_not_cached(fake, accelerators):
    """tvm:cpu alone for an LSTM: layers and graph were fine, the one target asked for is not there."""
    fake("accelerator_all_fail")
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", TPU)
    message = str(failed.value)
    assert message.startswith("every level of tpu:v5e failed, nothing was cached: ") and LOOP in message
    assert "\n" not in message
    assert no_bundle_cached() and cached_bundle("mlp", TPU) is None and leftovers() == []


def test_a_capture_where_some_targets_compiled_is_cached_and_names_the_failed_ones(fake, accelerators):
    fake("accelerator_all_fail")
    events: list[CaptureEvent] = []
    path = capture("mlp", CPU_AND_TPU, on_event=events.append)
    assert events[-1] == CaptureFinished(str(path), ("tpu:v5e",))
    bundle = Bundle.open(path)
    assert bundle.status("kernels", "cpu").status == "ok" and bundle.status("kernels", "tpu:v5e").status == "failed"
    assert cached_bundle("mlp", CPU_AND_TPU) == path


def test_a_whole_capture_names_no_failed_target(fake):
    fake("ok")
    events: list[CaptureEvent] = []
    path = capture("mlp", CPU, on_event=events.append)
    assert events[-1] == CaptureFinished(str(path), ())


def test_a_cache_hit_that_has_none_of_the_targets_asked_for_compiled_is_the_same_error(fake, accelerators):
    """The partly failed capture above is cached; asking for its failed target alone finds nothing to show
    there either, and the bundle (which has cpu) stays as it was."""
    fake("accelerator_all_fail")
    path = capture("mlp", CPU_AND_TPU)
    manifest = (path / "manifest.json").read_bytes()
    events: list[CaptureEvent] = []
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", TPU, on_event=events.append)
    assert str(failed.value).startswith("every level of tpu:v5e failed in the cached capture: ")
    assert events == [] and (path / "manifest.json").read_bytes() == manifest
    assert isinstance(_events_of(lambda emit: capture("mlp", CPU, on_event=emit))[0], CacheHit)


def test_growing_by_a_target_that_fails_at_every_level_leaves_the_bundle_as_it_was(fake, accelerators):
    fake("ok")
    path = capture("mlp", CPU)
    manifest = (path / "manifest.json").read_bytes()
    fake("accelerator_all_fail")
    with pytest.raises(CaptureFailed, match="every level of tpu:v5e failed, nothing was cached"):
        capture("mlp", TPU)
    assert (path / "manifest.json").read_bytes() == manifest and Bundle.open(path).targets == ("cpu",)
    assert leftovers() == []


def _events_of(run) -> list[CaptureEvent]:
    events: list[CaptureEvent] = []
    run(events.append)
    return events


# --- a worker that refuses the model: one line, the other workers stopped ------------------------------


def test_a_workers_fatal_stops_the_other_workers_and_caches_nothing(fake, accelerators, tmp_path):
    """A training step with nothing to train is found in the JAX worker (only it loads the model for the
    step); the TensorFlow worker, still tracing the graph, is stopped rather than waited for."""
    pids = fake("accelerator_fatal")
    events: list[CaptureEvent] = []
    with pytest.raises(TensorwegError) as refused:
        capture("mlp", CaptureOptions(targets=("tpu:v5e",), mode="train", optimizer="adam"), on_event=events.append)
    assert str(refused.value) == "nothing to train: the model has no trainable weights; capture it without --mode train"
    assert not isinstance(refused.value, CaptureFailed)
    assert not (pids / "graph-finished").exists()
    assert not any(isinstance(e, LevelCaptured) and e.level == "graph" for e in events)
    assert no_bundle_cached() and leftovers() == []


# --- a full disk says so ---------------------------------------------------------------------------------


@pytest.mark.parametrize("behaviour", ["no_space_abort", "no_space_level", "no_space_logged"],
                         ids=["xla aborts on its dump", "a level fails with Errno 28", "xla logs it and goes on"])
def test_a_worker_that_found_the_disk_full_says_no_space_left(fake, behaviour):
    """XLA's dump writer aborts (SIGABRT) or logs and goes on; Python fails the level: each is the disk, not
    a crash or a compiler's verdict, and nothing half-written is cached."""
    fake(behaviour)
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", CPU)
    message = str(failed.value)
    assert message.startswith(f"no space left on {bundles_dir()}: ") and "nothing was cached" in message
    assert "SIGABRT" not in message and "\n" not in message
    assert no_bundle_cached() and leftovers() == []


def test_a_worker_that_dies_with_no_space_left_for_its_last_words_is_still_the_disk(fake, monkeypatch):
    """On a full disk even the worker's log line may not be written: the space left beside the bundle tells."""
    fake("sigkill")
    usage = namedtuple("usage", "total used free")
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda path: usage(1 << 30, 1 << 30, 0) if ".staging-" in str(path) else real(path))
    with pytest.raises(CaptureFailed, match=r"^no space left on .*nothing was cached"):
        capture("mlp", CPU)
    assert no_bundle_cached()


def test_a_worker_killed_on_a_disk_with_room_is_still_a_crash(fake):
    fake("sigkill")
    with pytest.raises(CaptureFailed, match="killed by SIGKILL"):
        capture("mlp", CPU)


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_writing_the_staging_bundle_is_one_line_and_cleans_up(fake, monkeypatch):
    """The staging manifest (written after every level, then on commit) finds the disk full."""
    fake("ok")
    monkeypatch.setattr(staging_manifest, "dump_json", no_space)
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", CPU)
    assert str(failed.value).startswith(f"no space left on {bundles_dir()}: ")
    assert no_bundle_cached() and leftovers() == []


def test_a_full_disk_while_staging_a_grown_bundle_leaves_the_old_one_as_it_was(fake, accelerators, monkeypatch):
    fake("ok")
    path = capture("mlp", CPU)
    manifest = (path / "manifest.json").read_bytes()
    monkeypatch.setattr(growth.os, "link", no_space)
    monkeypatch.setattr(growth.shutil, "copyfile", no_space)
    with pytest.raises(CaptureFailed, match=r"^no space left on "):
        capture("mlp", TPU)
    assert (path / "manifest.json").read_bytes() == manifest and Bundle.open(path).targets == ("cpu",)
    assert leftovers() == []


def test_a_full_disk_before_the_staging_folder_exists_says_so(fake, monkeypatch, tmp_path):
    fake("ok")
    monkeypatch.setattr(orchestrator.tempfile, "mkdtemp", no_space)
    with pytest.raises(CaptureFailed, match=r"^no space left on "):
        capture("mlp", CPU, out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_another_write_error_is_one_line_too(fake, monkeypatch):
    fake("ok")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(staging_manifest, "dump_json", read_only)
    with pytest.raises(TensorwegError, match="cannot write into .*: Read-only file system"):
        capture("mlp", CPU)
    assert no_bundle_cached() and leftovers() == []


def test_the_outcome_reads_only_this_captures_part_of_a_grown_log(fake, accelerators):
    """A grown bundle's log starts with the earlier captures' lines: an old full-disk line there does not
    fail every later grow."""
    fake("ok")
    path = capture("mlp", CPU)
    with (path / "capture.log").open("a") as log:
        log.write("E0000 dump.cc:253] Could not write XLA debug data: No space left on device\n")
    fake("ok")
    capture("mlp", TPU)
    assert Bundle.open(path).targets == ("cpu", "tpu:v5e")


def test_the_cache_folder_named_is_the_bundles_parent(fake, tmp_path):
    """-o DIR: the folder named is where the bundle was going."""
    fake("no_space_level")
    out = tmp_path / "where" / "bundle"
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", CPU, out_dir=out)
    assert str(failed.value).startswith(f"no space left on {out.parent}: ")
    assert [p.name for p in Path(out.parent).iterdir()] == []
