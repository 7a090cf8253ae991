"""The session service (`explorer.session`), driven as the UI drives it, without Textual: every capture
goes through one policy (a `serve` tab that may not capture is refused for every key), the intents move
the state as the keys do, and what background work reports is taken by `apply` in one place."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from explorer.capture.queue import CaptureQueue
from explorer.session import events
from explorer.session.opening import read_bundle
from explorer.session.policy import CapturePolicy, policy_from_environment
from explorer.session.service import SessionService

from pilot_support import BUNDLE, needs_bundle

MESH_BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mlp_mesh_2x2"


def opened(service: SessionService, path: Path = BUNDLE) -> SessionService:
    """`service` after the UI read `path` for it (as its open worker does)."""
    change = service.apply(read_bundle(path, service.level, service.target, service.lang))
    assert change.warm is not None and change.tour
    return service


# --- who may capture: one policy for every key ----------------------------------------------


@pytest.mark.parametrize("intent", ["capture_missing", "capture_passes", "capture_at_start"])
def test_a_tab_that_may_not_capture_starts_no_capture_from_any_key(intent):
    service = SessionService(model_spec="mnist_cnn", policy=CapturePolicy(allowed=False))
    assert getattr(service, intent)() is None
    assert not service.may_capture
    assert service.status.startswith("This explorer shows what was captured")
    assert service.capture_generation == 0  # nothing was started, nothing was cancelled


@needs_bundle
def test_m_in_a_tab_that_may_not_capture_captures_no_mesh(tmp_path):
    """`M` used to call the orchestrator with the bundle's own model, past the policy."""
    service = opened(SessionService(MESH_BUNDLE, level="layers", target="tpu:v5e",
                                    policy=CapturePolicy(allowed=False)), MESH_BUNDLE)
    from explorer.model.records import CaptureOptions

    wanted = (CaptureOptions(targets=("tpu:v5e",), mesh="4x4", shard="model"),)
    assert service.capture_meshes(wanted, "tpu:v5e") is None
    assert not service.meshes_capturing
    assert service.status.startswith("This explorer shows what was captured")


@needs_bundle
def test_m_in_a_terminal_captures_with_the_bundles_model_unless_it_names_python_to_run(tmp_path):
    from explorer.model.records import CaptureOptions

    wanted = (CaptureOptions(targets=("tpu:v5e",), mesh="4x4", shard="model"),)
    service = opened(SessionService(MESH_BUNDLE, target="tpu:v5e"), MESH_BUNDLE)
    job = service.capture_meshes(wanted, "tpu:v5e")
    assert job is not None and job.spec == "mlp" and service.meshes_capturing
    assert service.capture_meshes(wanted, "tpu:v5e") is None  # one `M` at a time

    # A bundle from anyone may record a `module:function`: capturing it again would run that code.
    untrusted = tmp_path / "untrusted"
    shutil.copytree(MESH_BUNDLE, untrusted)
    manifest = json.loads((untrusted / "manifest.json").read_text(encoding="utf-8"))
    manifest["model"].update(spec="evil_module:build", kind="function", name="evil_module:build")
    (untrusted / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    service = opened(SessionService(untrusted, target="tpu:v5e"), untrusted)
    assert service.capture_meshes(wanted, "tpu:v5e") is None
    assert "runs Python" in service.status


def test_a_tab_that_may_capture_waits_in_the_servers_queue(tmp_path):
    queue = CaptureQueue.create(tmp_path / "queue", slots=1)
    service = SessionService(model_spec="mnist_cnn", policy=CapturePolicy(queue=queue))
    job = service.capture_missing()
    assert job is not None
    places = []
    gate = job.gate_for(places.append)
    assert gate is not None
    with gate(threading.Event()):  # the one slot, taken and given back
        pass


def test_without_a_model_named_c_says_how_to_get_the_targets():
    service = SessionService(BUNDLE)
    assert service.capture_missing() is None
    assert service.status.startswith("Opened from a bundle")


def test_the_policy_of_a_serve_tab_comes_from_the_servers_environment(tmp_path):
    assert not policy_from_environment({"TENSORWEG_SERVE_CAPTURE": "0"}).allowed
    CaptureQueue.create(tmp_path / "q", slots=2)
    tab = policy_from_environment({"TENSORWEG_SERVE_QUEUE": str(tmp_path / "q")})
    assert tab.allowed and tab.queue is not None
    assert policy_from_environment({}) == CapturePolicy()


def test_a_new_capture_cancels_the_one_running_and_its_reports_are_dropped():
    service = SessionService(model_spec="mnist_cnn")
    first = service.capture_missing()
    second = service.capture_missing()
    assert first is not None and second is not None and first.cancel.is_set() and not second.cancel.is_set()
    assert service.apply(events.LevelStarted("hlo", "cpu", first.generation)).sync is False
    assert not service.progress
    service.apply(events.LevelStarted("hlo", "cpu", second.generation))
    assert service.now.progress_line() == "capture: 0 ok  hlo 0/1.."


@needs_bundle
def test_a_capture_that_ends_says_so_in_the_status_line_and_names_what_failed():
    """Issue 39: the progress line vanished at the end without a word on what was captured or failed."""
    service = SessionService(model_spec="mnist_cnn")
    job = service.capture_missing()
    assert job is not None
    for level, target in (("layers", ""), ("hlo", "cpu"), ("hlo", "gpu:h100")):
        service.apply(events.LevelStarted(level, target, job.generation))
    service.apply(events.LevelCaptured("layers", "", generation=job.generation))
    service.apply(events.LevelCaptured("hlo", "cpu", generation=job.generation))
    service.apply(events.CaptureFailed("hlo", "gpu:h100", "worker exited", job.generation))
    opened(service)
    assert service.status == "Capture done: 2 captured, 1 failed (hlo@gpu:h100); the level's screen says why."
    assert not service.progress

    again = SessionService(model_spec="mnist_cnn")
    job = again.capture_missing()
    again.apply(events.LevelStarted("hlo", "cpu", job.generation))
    again.apply(events.LevelCaptured("hlo", "cpu", generation=job.generation))
    opened(again)
    assert again.status == "Capture done for cpu: every level captured (1)."


@needs_bundle
def test_opening_a_bundle_no_capture_made_says_nothing_of_a_capture():
    assert opened(SessionService(BUNDLE)).status == ""


# --- the intents -----------------------------------------------------------------------------


@needs_bundle
def test_enter_backspace_and_number_keys_move_the_selection_as_the_trace_says():
    service = opened(SessionService(BUNDLE, level="layers", select="conv2d"))
    service.descend("layers", "conv2d")
    assert service.level == "graph" and service.selections["graph"] == "mnist_cnn_1/conv2d_1/convolution"
    service.descend("graph", service.selections["graph"])
    assert service.level == "hlo" and service.selections["hlo"] == "convolution.1"
    assert service.trail == [("layers", "conv2d"), ("graph", "mnist_cnn_1/conv2d_1/convolution")]
    assert service.go_back() and service.level == "graph"
    assert service.go_back() and service.level == "layers" and service.selections["layers"] == "conv2d"
    assert not service.go_back()
    service.jump("optimized-hlo")
    assert service.level == "optimized-hlo" and service.selections["optimized-hlo"]


@needs_bundle
def test_t_moves_to_the_next_target_and_a_new_target_rebuilds_the_rows():
    service = opened(SessionService(BUNDLE, level="hlo", select="convolution.1"))
    generation = service.generation
    assert service.next_target()
    assert service.target == service.bundle.targets[1] and service.generation > generation


@needs_bundle
def test_a_status_note_belongs_to_the_place_it_was_made():
    service = opened(SessionService(BUNDLE, level="layers", select="conv2d"))
    service.notify("about conv2d")
    assert service.status_line("layers").text == "about conv2d"
    service.select("layers", "dense")
    assert service.status_line("layers") is None


def test_an_unreadable_bundle_is_one_error_line(tmp_path):
    service = SessionService(tmp_path / "no_bundle_here")
    service.apply(read_bundle(tmp_path / "no_bundle_here", "layers", "cpu", "en"))
    assert service.load_error and service.opening is None and service.bundle is None


def test_a_finished_capture_is_read_next():
    service = SessionService(model_spec="mnist_cnn")
    job = service.capture_at_start()
    change = service.apply(events.BundleLoaded(Path("/nowhere"), job.generation))
    assert change.read == Path("/nowhere") and service.opening == Path("/nowhere") and not service.settled


# --- the warm-up after opening: out of the first screen's way ---------------------------------


def test_the_warm_up_builds_its_renderers_only_once_the_panes_are_drawn_with_every_target():
    """Built while the UI drew the panes that complete the first screen, the renderers and tables
    slowed that frame: they wait until the panes are drawn with every target read."""
    from explorer.session.opening import start_warm_up

    service = SessionService(BUNDLE, level="layers", target="cpu")
    opened_event = service.apply(read_bundle(BUNDLE, "layers", "cpu", "en")).warm
    reads, renderers = [], threading.Event()
    start_warm_up(opened_event, "layers", "cpu", "en", reads.append, lambda: False, renderers.set)
    service.panes_drawn()  # before the rows are even shown: the targets are not read yet
    service.selection_shown()
    every_target = sorted(opened_event.bundle.targets)
    for _ in range(200):  # every target read (well under a second on the recorded bundle) ...
        if sorted(t for event in reads for t in event.targets) == every_target:
            break
        time.sleep(0.05)
    assert sorted(t for event in reads for t in event.targets) == every_target
    assert not renderers.is_set()  # ... but the panes have not shown them
    for event in reads:
        service.apply(event)
    service.panes_drawn()
    assert renderers.wait(10)


def test_a_quit_lets_a_waiting_warm_up_end():
    from explorer.session.opening import start_warm_up

    service = SessionService(BUNDLE, level="layers", target="cpu")
    opened_event = service.apply(read_bundle(BUNDLE, "layers", "cpu", "en")).warm
    renderers = threading.Event()
    start_warm_up(opened_event, "layers", "cpu", "en", lambda event: None, lambda: False, renderers.set)
    service.quit()
    assert renderers.wait(1.5)  # not after FIRST_SELECTION_WAIT_S twice (4 s)
