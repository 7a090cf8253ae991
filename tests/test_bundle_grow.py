"""Bundles that grow: a capture adds only the targets and levels a bundle lacks, atomically.

Mostly with the stand-in workers (tests/fake_workers) started by the real
orchestrator, so which workers ran is known exactly (each writes its module
name into the pids folder); one end-to-end test runs the real compilers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_capture_orchestrator import leftovers

from explorer.capture.events import CacheHit, CaptureEvent, KeptLevelsStaged, LevelCaptured, LevelFailed, LevelStarted
from explorer.capture.orchestrator import cached_bundle, capture
from explorer.errors import CaptureCancelled, CaptureFailed
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

CPU = CaptureOptions(targets=("cpu",))
TPU = CaptureOptions(targets=("tpu:v5e",))
TF_WORKER = "explorer.capture.tf_worker"
JAX_WORKER = "explorer.capture.jax_worker"


@pytest.fixture
def accelerators(monkeypatch):
    """The stand-in needs no libtpu or CUDA: every target counts as available."""
    monkeypatch.setattr("explorer.targets.availability", lambda target: None)


def workers_run(pids: Path) -> list[str]:
    """The modules of the workers started since the last call (the pids folder is emptied)."""
    modules = sorted(p.read_text() for p in pids.glob("*.pid"))
    for p in pids.glob("*.pid"):
        p.unlink()
    return modules


# Rewritten on every commit (manifest), appended to (log), or the stand-in's own note of its run.
NOT_LEVEL_FILES = ("manifest.json", "capture.log", "worker_facts.json")


def files_of(path: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of a bundle's levels: its bytes and inode (the same inode: never written again)."""
    return {p.relative_to(path).as_posix(): (p.read_bytes(), p.stat().st_ino)
            for p in sorted(path.rglob("*")) if p.is_file() and p.name not in NOT_LEVEL_FILES}


def set_status(path: Path, level: str, target: str, status: dict) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    for entry in manifest["levels"]:
        if entry[0] == target and entry[1] == level:
            entry[2] = status
    (path / "manifest.json").write_text(json.dumps(manifest))


UNFINISHED = {"status": "failed", "error": "not captured: the worker ended before this level", "seconds": 0.0}


# --- growing -------------------------------------------------------------------------------


def test_adding_a_target_runs_only_its_worker_and_keeps_every_level_byte_identical(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", CPU)
    assert workers_run(pids) == [TF_WORKER]
    before = files_of(path)
    reader = Bundle.open(path)  # opened before the grow: still reads the same levels after it
    events: list[CaptureEvent] = []
    assert capture("mlp", TPU, on_event=events.append) == path
    assert workers_run(pids) == [JAX_WORKER]
    assert {e.target for e in events if isinstance(e, LevelStarted | LevelCaptured | LevelFailed)} == {"tpu:v5e"}
    after = files_of(path)
    assert {name: after[name] for name in before} == before  # same bytes, same inodes: never written again
    grown = Bundle.open(path)
    assert grown.targets == ("cpu", "tpu:v5e")
    assert {(t, lvl): st.status for t, lvl, st in grown.manifest.levels} == {
        (t, lvl): "ok" for t in ("", "cpu", "tpu:v5e") for lvl in
        (("layers", "graph") if not t else ("hlo", "optimized-hlo", "kernels", "memory"))}
    assert reader.layers == grown.layers and reader.status("memory", "cpu").status == "ok"
    assert leftovers() == []


def test_a_grow_says_where_the_kept_levels_are_before_any_new_level_arrives(fake, accelerators):
    """The app shows them at once (a cpu bundle opened with the default targets listed nothing
    for the seconds TensorFlow took to start)."""
    fake("ok")
    capture("mlp", CPU)
    events: list[CaptureEvent] = []
    seen = {}

    def on_event(event: CaptureEvent) -> None:
        events.append(event)
        if isinstance(event, KeptLevelsStaged):
            staged = Bundle(Path(event.staging_dir))
            seen["layers"] = [layer.name for layer in staged.layers]
            seen["cpu"] = staged.status("optimized-hlo", "cpu").status

    capture("mlp", TPU, on_event=on_event)
    assert isinstance(events[0], KeptLevelsStaged)
    assert [type(e) for e in events].count(KeptLevelsStaged) == 1
    assert seen == {"layers": [layer.name for layer in Bundle.open(capture("mlp", CPU)).layers], "cpu": "ok"}


def test_a_bundle_with_the_targets_asked_for_is_a_cache_hit_whatever_else_it_has(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", CaptureOptions(targets=("cpu", "tpu:v5e")))
    workers_run(pids)
    for targets in [("cpu",), ("tpu:v5e",), ("tpu:v5e", "cpu")]:
        events: list[CaptureEvent] = []
        assert capture("mlp", CaptureOptions(targets=targets), on_event=events.append) == path
        assert [type(e) for e in events] == [CacheHit]
        assert cached_bundle("mlp", CaptureOptions(targets=targets)) == path
    assert workers_run(pids) == []
    assert cached_bundle("mlp", CaptureOptions(targets=("gpu:h100",))) is None


def test_growing_by_cpu_runs_tensorflow_for_cpu_only_and_keeps_the_accelerator(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", TPU)
    workers_run(pids)
    tpu_files = {k: v for k, v in files_of(path).items() if k.startswith("targets/tpu-v5e/")}
    capture("mlp", CPU)
    assert workers_run(pids) == [TF_WORKER]
    assert {k: v for k, v in files_of(path).items() if k.startswith("targets/tpu-v5e/")} == tpu_files
    assert Bundle.open(path).status("kernels", "cpu").status == "ok"


def test_a_bundle_without_the_keras_config_runs_tensorflow_once_more_for_it(fake, accelerators):
    """Bundles captured for cpu before model.json was always written: the config is made again."""
    pids = fake("ok")
    path = capture("mlp", CPU)
    (path / "model.json").unlink()
    workers_run(pids)
    cpu_files = {k: v for k, v in files_of(path).items() if k.startswith("targets/cpu/")}
    capture("mlp", TPU)
    assert workers_run(pids) == [JAX_WORKER, TF_WORKER]
    request = json.loads((path / "worker_facts.json").read_text())["request"]
    assert request["targets"] == []  # cpu is kept, not compiled again
    assert {k: v for k, v in files_of(path).items() if k.startswith("targets/cpu/")} == cpu_files
    assert Bundle.open(path).targets == ("cpu", "tpu:v5e")


# --- what is recaptured -------------------------------------------------------------------------


def test_a_level_that_never_finished_is_captured_again_on_the_next_open(fake, accelerators):
    pids = fake("ok")
    both = CaptureOptions(targets=("cpu", "tpu:v5e"))
    path = capture("mlp", both)
    workers_run(pids)
    cpu_files = {k: v for k, v in files_of(path).items() if not k.startswith("targets/tpu-v5e/")}
    set_status(path, "kernels", "tpu:v5e", UNFINISHED)
    assert cached_bundle("mlp", both) is None
    events: list[CaptureEvent] = []
    capture("mlp", both, on_event=events.append)
    assert workers_run(pids) == [JAX_WORKER]
    assert {e.target for e in events if isinstance(e, LevelCaptured)} == {"tpu:v5e"}
    assert {k: v for k, v in files_of(path).items() if not k.startswith("targets/tpu-v5e/")} == cpu_files
    assert Bundle.open(path).status("kernels", "tpu:v5e").status == "ok"


def test_an_ok_level_whose_file_is_gone_is_captured_again(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", CPU)
    workers_run(pids)
    (path / "graph.json").unlink()
    capture("mlp", CPU)
    assert workers_run(pids) == [TF_WORKER]
    assert (path / "graph.json").is_file()


def test_a_failed_level_with_the_compilers_message_is_kept_not_captured_again(fake, accelerators):
    """Same model, options and tools: compiling again would fail the same way; --no-cache forces it."""
    pids = fake("ok")
    path = capture("mlp", CPU)
    set_status(path, "memory", "cpu", {"status": "failed", "error": "XLA: out of luck", "seconds": 0.0})
    workers_run(pids)
    events: list[CaptureEvent] = []
    capture("mlp", CPU, on_event=events.append)
    assert workers_run(pids) == [] and isinstance(events[0], CacheHit)
    capture("mlp", CPU, use_cache=False)
    assert workers_run(pids) == [TF_WORKER]
    assert Bundle.open(path).status("memory", "cpu").status == "ok"


def test_no_cache_captures_every_target_asked_for_again(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", CaptureOptions(targets=("cpu", "tpu:v5e")))
    workers_run(pids)
    capture("mlp", CPU, use_cache=False)
    assert workers_run(pids) == [TF_WORKER]
    assert Bundle.open(path).targets == ("cpu",)  # replaced as asked, not merged


# --- atomic and safe -------------------------------------------------------------------------


def test_an_interrupted_grow_leaves_the_old_bundle_intact_and_usable(fake, accelerators):
    fake("ok")
    path = capture("mlp", CPU)
    manifest = (path / "manifest.json").read_bytes()
    before = files_of(path)
    fake("accelerator_sigkill")
    with pytest.raises(CaptureFailed, match="tpu:v5e worker was killed"):
        capture("mlp", TPU)
    assert (path / "manifest.json").read_bytes() == manifest and files_of(path) == before
    bundle = Bundle.open(path)
    assert bundle.targets == ("cpu",) and bundle.status("memory", "cpu").status == "ok"
    assert leftovers() == []
    fake("ok")
    capture("mlp", TPU)  # the next try grows it
    assert Bundle.open(path).targets == ("cpu", "tpu:v5e")


def test_readers_during_a_grow_see_the_old_bundle_and_a_cancel_keeps_it(fake, accelerators):
    fake("ok")
    path = capture("mlp", CPU)
    manifest = (path / "manifest.json").read_bytes()
    fake("accelerator_hang")
    cancel = threading.Event()
    seen = []

    def on_event(event: CaptureEvent) -> None:
        if isinstance(event, LevelCaptured) and event.target == "tpu:v5e":
            # The staging version reads as a whole bundle: the old levels and the new one.
            staging = Bundle.open(Path(event.staging_dir))
            seen.append((staging.status("memory", "cpu").status, staging.status("hlo", "tpu:v5e").status))
            old = Bundle.open(path)
            seen.append((old.targets, old.status("hlo", "tpu:v5e").status))
            cancel.set()

    with pytest.raises(CaptureCancelled):
        capture("mlp", TPU, on_event=on_event, cancel=cancel)
    assert seen == [("ok", "ok"), (("cpu",), "pending")]
    assert (path / "manifest.json").read_bytes() == manifest and leftovers() == []


def test_two_racing_growers_end_with_one_bundle_that_has_both(fake, accelerators):
    pids = fake("ok")
    path = capture("mlp", CPU)
    before = files_of(path)
    workers_run(pids)
    fake("slow_accelerator")
    results, errors = [], []
    start = threading.Barrier(2)

    def grow(target: str) -> None:
        start.wait()
        try:
            results.append(capture("mlp", CaptureOptions(targets=(target,))))
        except Exception as exc:  # the test reports any
            errors.append(exc)

    threads = [threading.Thread(target=grow, args=(t,)) for t in ("tpu:v5e", "gpu:h100")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and results == [path, path]
    assert workers_run(pids) == [JAX_WORKER, JAX_WORKER]  # each target once, no TensorFlow
    bundle = Bundle.open(path)
    assert set(bundle.targets) == {"cpu", "tpu:v5e", "gpu:h100"}
    assert all(st.status == "ok" for _, _, st in bundle.manifest.levels) and len(bundle.manifest.levels) == 14
    after = files_of(path)
    assert {name: after[name] for name in before} == before
    assert leftovers() == []


def test_a_capture_that_finishes_second_keeps_what_the_first_one_put_there(fake):
    """Two captures of one model: the later commit takes the bundle's levels instead of writing over them."""
    fake("ok")
    first: dict = {}

    def on_event(event: CaptureEvent) -> None:
        if isinstance(event, LevelCaptured) and not first:  # another capture starts and finishes meanwhile
            runner = threading.Thread(target=lambda: first.update(path=capture("mlp", CPU)))
            runner.start()
            runner.join()
            first["files"] = files_of(first["path"])

    path = capture("mlp", CPU, on_event=on_event)
    assert path == first["path"] and files_of(path) == first["files"]  # same inodes: not replaced
    assert Bundle.open(path).status("memory", "cpu").status == "ok" and leftovers() == []


# --- -o DIR ----------------------------------------------------------------------------------


def test_output_dir_with_a_bundle_of_the_same_model_grows(fake, accelerators, tmp_path):
    pids = fake("ok")
    out = tmp_path / "out"
    capture("mlp", CPU, out_dir=out)
    before = files_of(out)
    workers_run(pids)
    events: list[CaptureEvent] = []
    capture("mlp", CPU, out_dir=out, on_event=events.append)
    assert [type(e) for e in events] == [CacheHit] and workers_run(pids) == []
    capture("mlp", TPU, out_dir=out)
    assert workers_run(pids) == [JAX_WORKER]
    after = files_of(out)
    assert {name: after[name] for name in before} == before
    assert Bundle.open(out).targets == ("cpu", "tpu:v5e")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "pids"]


@pytest.mark.parametrize("other", [
    ("mnist_cnn", CaptureOptions(targets=("tpu:v5e",))),
    ("mlp", CaptureOptions(targets=("tpu:v5e",), batch=2)),
], ids=["another-model", "another-batch"])
def test_output_dir_with_another_capture_is_replaced_not_mixed(fake, accelerators, tmp_path, other):
    pids = fake("ok")
    out = tmp_path / "out"
    capture("mlp", CPU, out_dir=out)
    workers_run(pids)
    spec, options = other
    capture(spec, options, out_dir=out)
    assert workers_run(pids) == [JAX_WORKER, TF_WORKER]  # everything again, from the model
    bundle = Bundle.open(out)
    assert bundle.targets == ("tpu:v5e",) and bundle.manifest.options.batch == options.batch
    assert not (out / "targets" / "cpu").exists()


def test_a_schema_1_bundle_from_before_growing_still_grows(fake, accelerators):
    """Bundles written before targets left the key: same manifest schema, they open and grow."""
    pids = fake("ok")
    path = capture("mlp", CPU)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["schema_version"] == 1
    workers_run(pids)
    capture("mlp", TPU)
    assert workers_run(pids) == [JAX_WORKER]


# --- the UI's `c` ----------------------------------------------------------------------------


def test_c_in_the_app_captures_only_the_default_targets_the_bundle_lacks(fake, accelerators):
    import asyncio

    from screens.app import create_app

    from pilot_support import sync

    pids = fake("ok")
    path = capture("mlp", CPU)
    workers_run(pids)
    before = files_of(path)

    @sync
    async def press_c() -> None:
        app = create_app(model_spec="mlp", options=CPU, level="layers")
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(400):  # the cached bundle opens first
                if app.bundle is not None and app.bundle.targets == ("cpu",) and app.opened.is_set():
                    break
                await asyncio.sleep(0.02)
                await pilot.pause()
            await pilot.press("c")
            for _ in range(800):
                if app.bundle is not None and len(app.bundle.targets) == 3 and app.bundle.path == path:
                    break
                await asyncio.sleep(0.02)
                await pilot.pause()
            assert app.bundle.targets == ("cpu", "gpu:h100", "tpu:v5e")

    press_c()
    assert workers_run(pids) == [JAX_WORKER, JAX_WORKER]
    after = files_of(path)
    assert {name: after[name] for name in before} == before


# --- the real compilers ----------------------------------------------------------------------


@pytest.mark.e2e
def test_inspect_with_one_more_target_captures_only_that_target():
    """`inspect MODEL --target tpu:v5e` after a cpu capture: the progress it prints names tpu:v5e only."""
    from explorer.targets import availability

    if availability("tpu:v5e"):
        pytest.skip(availability("tpu:v5e"))
    path = capture("mnist_cnn", CPU)
    before = files_of(path)
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "inspect", "mnist_cnn", "--level", "kernels",
                             "--target", "tpu:v5e"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    progress = [line for line in result.stderr.splitlines() if line.startswith(("capturing", "captured", "failed"))]
    assert sorted(line.rsplit(" (", 1)[0] for line in progress if line.startswith("captured")) == [
        f"captured  {level} [tpu:v5e]" for level in ("hlo", "kernels", "memory", "optimized-hlo")]
    assert all(line.endswith(("[tpu:v5e] ...", ")")) and "[tpu:v5e]" in line for line in progress), progress
    after = files_of(path)
    assert {name: after[name] for name in before} == before
    bundle = Bundle.open(path)
    assert bundle.targets == ("cpu", "tpu:v5e") and bundle.hlo_module("tpu:v5e", True) is not None


# --- the swap ----------------------------------------------------------------------------------


def _two_versions(tmp_path: Path) -> tuple[Path, Path]:
    final, staging = tmp_path / "bundle", tmp_path / ".staging-1-x"
    for folder, text in ((final, "old"), (staging, "new")):
        folder.mkdir()
        (folder / "manifest.json").write_text(text)
    return final, staging


def test_the_new_version_replaces_the_old_in_one_exchange(tmp_path, monkeypatch):
    from explorer.capture import growth

    final, staging = _two_versions(tmp_path)
    exchanged = []
    real = growth._exchange
    monkeypatch.setattr(growth, "_exchange", lambda a, b: exchanged.append(real(a, b)) or exchanged[-1])
    growth.swap_into_place(staging, final)
    assert (final / "manifest.json").read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["bundle"]
    if sys.platform == "linux":
        assert exchanged == [True]  # renameat2: the path never stops being a bundle


def test_without_an_atomic_exchange_the_old_version_is_renamed_aside(tmp_path, monkeypatch):
    from explorer.capture import growth

    final, staging = _two_versions(tmp_path)
    monkeypatch.setattr(growth, "_exchange", lambda a, b: False)
    growth.swap_into_place(staging, final)
    assert (final / "manifest.json").read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["bundle"]
