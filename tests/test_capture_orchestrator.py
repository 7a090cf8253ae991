"""The orchestrator with stand-in workers (tests/fake_workers): faults, cancellation, the cache.

The stand-in speaks the real protocol (explorer.capture.protocol) and is started
by the real orchestrator with the real isolation flags; only the module it runs
is replaced, so these tests exercise the orchestrator's own code in seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from explorer.capture import orchestrator
from explorer.capture.cache import cache_root
from explorer.capture.events import CacheHit, CaptureEvent, CaptureFinished, LevelCaptured, LevelFailed, LevelStarted
from explorer.capture.orchestrator import cached_bundle, capture, staging_reader
from explorer.errors import CaptureCancelled, CaptureFailed, TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

CPU = CaptureOptions(targets=("cpu",))


def bundles_dir() -> Path:
    return cache_root() / "bundles"


def leftovers() -> list[str]:
    return sorted(p.name for p in bundles_dir().iterdir() if p.name.startswith(".")) if bundles_dir().is_dir() else []


def worker_pids(pids: Path) -> list[int]:
    return [int(p.stem) for p in pids.glob("*.pid")]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(predicate, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# --- a good capture --------------------------------------------------------------------


def test_workers_run_isolated_with_their_files_inside_staging(fake, tmp_path, monkeypatch):
    fake("ok")
    monkeypatch.chdir(tmp_path)
    path = capture("mlp", CPU)
    facts = json.loads((path / "worker_facts.json").read_text())
    assert facts["isolated"] == 1
    staging_work = facts["cwd"]
    assert ".staging-" in staging_work and staging_work.endswith(orchestrator.WORK_DIR)
    for key in ("tmpdir", "tpu_log_dir"):
        assert facts[key] == staging_work
    assert facts["keras_home"].startswith(staging_work)
    assert facts["request"]["cwd"] == str(tmp_path)  # a module:function is looked up there, by the worker
    assert not (path / orchestrator.WORK_DIR).exists() and not (path / orchestrator.OWNER_FILE).exists()
    assert leftovers() == []


def test_every_reported_level_counts_even_when_the_worker_exits_at_once(fake):
    """The readers are drained before the loop ends: no finished level is marked failed."""
    fake("ok")
    for batch in (1, 2, 3):
        path = capture("mlp", CaptureOptions(targets=("cpu",), batch=batch))
        manifest = Bundle.open(path).manifest
        assert {status.status for _, _, status in manifest.levels} == {"ok"}, manifest.levels


def test_stray_stdout_goes_to_the_log_not_the_events(fake):
    fake("noisy")
    events = []
    path = capture("mlp", CPU, on_event=events.append)
    assert "a stray line from C++" in (path / "capture.log").read_text()
    assert all(isinstance(event, LevelStarted | LevelCaptured | CaptureFinished) for event in events)


def test_a_cached_bundle_is_reused_without_a_worker(fake):
    pids = fake("ok")
    first = capture("mlp", CPU)
    started = len(worker_pids(pids))
    events = []
    assert capture("mlp", CPU, on_event=events.append) == first
    assert [type(event) for event in events] == [CacheHit] and len(worker_pids(pids)) == started
    assert cached_bundle("mlp", CPU) == first


# --- options no worker could compile ------------------------------------------------------


@pytest.mark.parametrize(("options", "reason"), [
    (CaptureOptions(targets=("tpu:v5e",), batch=8, mode="train", optimizer="sgd", mesh="4x4", shard="data"),
     "--shard data on a 4x4 mesh splits the batch in 16: --batch 8 is not a multiple of 16"),
    (CaptureOptions(targets=("tpu:v5e",), batch=6, mesh="4x4", shard="model"), "--batch 6 is not a multiple of 4"),
    (CaptureOptions(targets=("tpu:v5e",), mesh="2x2"), "--mesh needs --shard data or --shard model"),
    (CaptureOptions(targets=("tpu:v5e",), shard="data"), "--shard data needs --mesh"),
    (CaptureOptions(targets=("cpu",), batch=4, mesh="2x2", shard="data"), "cpu is one device"),
    (CaptureOptions(targets=("tpu:v5e",), mesh="2by2", shard="data"), "bad --mesh '2by2'"),
], ids=["batch-vs-16-devices", "batch-vs-data-axis", "mesh-without-shard", "shard-without-mesh", "cpu-on-a-mesh",
        "bad-mesh-text"])
def test_mesh_options_no_worker_could_compile_are_one_line_before_any_worker(fake, options, reason):
    """capture() itself checks (the CLI, the compare screen's M and API callers alike): one line,
    no worker started, no bundle and no staging folder left."""
    pids = fake("ok")
    events = []
    with pytest.raises(TensorwegError) as refused:
        capture("mlp", options, on_event=events.append)
    assert reason in str(refused.value) and "\n" not in str(refused.value)
    assert not isinstance(refused.value, CaptureFailed)
    assert worker_pids(pids) == [] and events == []
    assert not bundles_dir().is_dir() or not list(bundles_dir().iterdir())


# --- half-captured data is never trusted ---------------------------------------------------


def test_a_worker_killed_by_a_signal_is_an_error_and_nothing_is_cached(fake):
    fake("sigkill")
    events = []
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", CPU, on_event=events.append)
    message = str(failed.value)
    assert "killed by SIGKILL" in message and "nothing was cached" in message and "hlo [cpu]" in message
    assert cached_bundle("mlp", CPU) is None
    assert leftovers() == [] and not [p for p in bundles_dir().iterdir()]
    # The log is kept where the message says, for --debug.
    assert failed.value.log_path is not None and failed.value.log_path.is_file()
    assert str(failed.value.log_path.name) in message
    assert {(e.level, e.target) for e in events if isinstance(e, LevelFailed)} >= {("graph", ""), ("hlo", "cpu")}


def test_a_killed_accelerator_worker_fails_the_whole_capture(fake, monkeypatch):
    fake("accelerator_sigkill")
    monkeypatch.setattr("explorer.targets.availability", lambda target: None)  # the stand-in needs no libtpu
    with pytest.raises(CaptureFailed, match=r"the tpu:v5e worker was killed by SIGKILL.*optimized-hlo \[tpu:v5e\]"):
        capture("mlp", CaptureOptions(targets=("cpu", "tpu:v5e")))
    assert cached_bundle("mlp", CaptureOptions(targets=("cpu", "tpu:v5e"))) is None


def test_a_crashed_worker_names_the_last_line_of_its_traceback(fake):
    fake("crash")
    with pytest.raises(CaptureFailed, match=r"TensorFlow worker stopped with exit status 1 "
                                            r"\(RuntimeError: the stand-in broke\)"):
        capture("mlp", CPU)
    assert cached_bundle("mlp", CPU) is None


def test_a_worker_that_ends_before_its_levels_caches_nothing(fake):
    fake("exit_early")
    with pytest.raises(CaptureFailed, match="every compiler level failed: not captured"):
        capture("mlp", CPU)
    assert cached_bundle("mlp", CPU) is None


def test_staging_removed_mid_capture_is_an_error_and_nothing_is_cached(fake):
    fake("remove_staging")
    with pytest.raises(CaptureFailed, match="staging folder was removed"):
        capture("mlp", CPU)
    assert cached_bundle("mlp", CPU) is None
    assert leftovers() == []


def test_every_compiler_level_failing_raises_the_real_reason(fake):
    fake("all_fail")
    with pytest.raises(CaptureFailed) as failed:
        capture("mlp", CPU)
    message = str(failed.value)
    assert 'Input 0 of layer "dense" is incompatible with the layer' in message
    assert "in user code" not in message and "\n" not in message
    assert cached_bundle("mlp", CPU) is None


def test_a_bundle_with_unfinished_levels_is_not_a_cache_hit(fake):
    """Older bundles may hold levels that never finished: they are captured again."""
    fake("ok")
    path = capture("mlp", CPU)
    manifest = json.loads((path / "manifest.json").read_text())
    for entry in manifest["levels"]:
        if entry[1] == "kernels":
            entry[2] = {"status": "failed", "error": "not captured: the worker ended before this level",
                        "seconds": 0.0}
    (path / "manifest.json").write_text(json.dumps(manifest))
    assert cached_bundle("mlp", CPU) is None
    events = []
    assert capture("mlp", CPU, on_event=events.append) == path
    assert any(isinstance(e, LevelStarted) for e in events)
    assert Bundle.open(path).status("kernels", "cpu").status == "ok"


@pytest.mark.parametrize("damage", [
    lambda m: m.write_text(m.read_text()[:37]),
    lambda m: m.write_text('{"schema_version": 1}'),
    lambda m: m.write_bytes(b"\xff\xfe garbage"),
    lambda m: m.unlink(),
], ids=["truncated", "only-schema", "binary", "missing"])
def test_a_damaged_cached_manifest_heals_by_capturing_again(fake, damage):
    fake("ok")
    path = capture("mlp", CPU)
    damage(path / "manifest.json")
    events = []
    assert capture("mlp", CPU, on_event=events.append) == path
    assert not any(isinstance(e, CacheHit) for e in events)
    assert Bundle.open(path).status("layers").status == "ok"
    assert leftovers() == []


def test_failed_levels_of_a_cached_capture_are_reported_with_the_way_out(fake):
    fake("ok")
    path = capture("mlp", CPU)
    manifest = json.loads((path / "manifest.json").read_text())
    for entry in manifest["levels"]:
        if entry[1] == "memory":
            entry[2] = {"status": "failed", "error": "XLA: out of luck", "seconds": 0.0}
    (path / "manifest.json").write_text(json.dumps(manifest))
    events = []
    capture("mlp", CPU, on_event=events.append)
    assert isinstance(events[0], CacheHit) and "--no-cache" in events[0].note
    assert [(type(e), e.level, e.error) for e in events[1:]] == [(LevelFailed, "memory", "XLA: out of luck")]


def test_two_racing_captures_both_end_with_the_one_bundle(fake):
    fake("slow_ok")
    results, errors = [], []

    def run():
        try:
            results.append(capture("mlp", CPU))
        except Exception as exc:  # the test reports any
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(results)) == 1
    assert Bundle.open(results[0]).status("memory", "cpu").status == "ok"
    assert leftovers() == []


def test_error_texts_carry_no_absolute_paths(fake, tmp_path):
    fake("path_error")
    path = capture("mlp", CPU, out_dir=tmp_path / "out")
    error = Bundle.open(path).status("graph").error
    assert error.startswith("cannot read <bundle>/") and "keras/src/ops.py" in error
    assert str(tmp_path) not in (path / "manifest.json").read_text()
    assert "/usr/" not in error


# --- cancelling ---------------------------------------------------------------------------


def test_cancel_kills_the_workers_and_raises(fake, tmp_path):
    pids = fake("hang")
    cancel = threading.Event()

    def cancel_after_layers(event: CaptureEvent) -> None:
        if isinstance(event, LevelCaptured):
            cancel.set()

    with pytest.raises(CaptureCancelled):
        capture("mlp", CPU, out_dir=tmp_path / "out", on_event=cancel_after_layers, cancel=cancel)
    assert worker_pids(pids) and not any(alive(pid) for pid in worker_pids(pids))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pids"]


SIGNAL_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from conftest import fake_command
from explorer.capture import orchestrator
from explorer.model.records import CaptureOptions
orchestrator.worker_command = fake_command
orchestrator.capture("mlp", CaptureOptions(targets=("cpu",)), out_dir={out!r})
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_capturing_process_cleans_up(fake, tmp_path, signum):
    pids = fake("hang")
    out = tmp_path / "out" / "bundle"
    script = SIGNAL_SCRIPT.format(tests=str(Path(__file__).parent), out=str(out))
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    wait_until(lambda: worker_pids(pids))
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode != 0 and "CaptureCancelled" in stderr and signal.Signals(signum).name in stderr
    wait_until(lambda: not any(alive(pid) for pid in worker_pids(pids)), 10)
    assert list((tmp_path / "out").iterdir()) == []


def test_workers_end_when_the_capturing_process_is_killed_outright(fake, tmp_path):
    pids = fake("hang")
    script = SIGNAL_SCRIPT.format(tests=str(Path(__file__).parent), out=str(tmp_path / "out" / "bundle"))
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)
    wait_until(lambda: worker_pids(pids))
    process.kill()
    process.wait()
    wait_until(lambda: not any(alive(pid) for pid in worker_pids(pids)), 10)


# --- where the bundle goes -------------------------------------------------------------------


def test_a_cache_dir_that_is_a_file_is_a_clear_error(fake, tmp_path, monkeypatch):
    fake("ok")
    blocker = tmp_path / "cache-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(blocker))
    with pytest.raises(TensorwegError, match="cannot create the folder"):
        capture("mlp", CPU)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_a_read_only_cache_dir_is_a_clear_error(fake, tmp_path, monkeypatch):
    fake("ok")
    cache = tmp_path / "cache"
    (cache / "bundles").mkdir(parents=True)
    (cache / "bundles").chmod(0o500)
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(cache))
    try:
        with pytest.raises(TensorwegError, match="permission denied"):
            capture("mlp", CPU)
    finally:
        (cache / "bundles").chmod(0o700)


# --- reading levels as they arrive -------------------------------------------------------------


def test_staging_reader_parses_each_new_level_once_and_keeps_the_rest(fake):
    fake("ok")
    readers: list[Bundle] = []

    def on_event(event: CaptureEvent) -> None:
        reader = staging_reader(event, readers[-1] if readers else None)
        if reader is not None:
            assert reader.status(event.level, event.target).status == "ok"
            readers.append(reader)

    capture("mlp", CPU, on_event=on_event)
    assert len(readers) == 6
    first, last = readers[0], readers[-1]
    assert last.layers is first.layers  # parsed once, when the layers level arrived
    assert last.graph is not None and last.memory("cpu") is not None
    assert staging_reader(LevelStarted("hlo", "cpu")) is None


def test_a_relative_output_folder_is_the_callers_not_the_workers(fake, tmp_path, monkeypatch):
    # The workers run in their own folder: `-o rel/out` must still mean the caller's rel/out.
    fake("ok")
    monkeypatch.chdir(tmp_path)
    path = capture("mlp", CPU, out_dir=Path("rel") / "out")
    bundle = Bundle.open(tmp_path / "rel" / "out")
    assert path.resolve() == (tmp_path / "rel" / "out").resolve()
    assert all(bundle.status(level, "cpu").status == "ok" for level in ("hlo", "optimized-hlo"))
