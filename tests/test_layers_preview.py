"""The layers preview: a never-captured sample's layer rows come from Keras-on-JAX while TensorFlow
still loads (issue 39 item 2), and the TensorFlow worker's own layers replace them.

Through the capture job the app runs (`explorer.session.capturing.CaptureJob`) and the real
orchestrator, with the stand-in workers (tests/fake_workers/fake_worker.py): the preview's layers.json
holds one layer named `previewed`, the TensorFlow worker's none.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from explorer.capture.orchestrator import worker_command
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions, LayerRecord
from explorer.model.serial import load_json
from explorer.session import events
from explorer.session.capturing import CaptureJob
from explorer.session.service import SessionService

CPU = CaptureOptions(targets=("cpu",))
PREVIEW_MODULE = "explorer.capture.layers_preview_worker"


def run_job(spec: str, options: CaptureOptions = CPU) -> list:
    """Every event the app's capture job reports, in order."""
    reported: list = []
    CaptureJob(spec, options, 1, threading.Event()).run(reported.append)
    return reported


def layer_names(event: events.LevelCaptured) -> list[str]:
    assert event.bundle is not None
    return [layer.name for layer in event.bundle.layers]


def test_the_previewed_rows_come_first_and_the_tensorflow_workers_replace_them(fake):
    fake("preview_first")
    reported = run_job("mlp")
    layers = [event for event in reported if isinstance(event, events.LevelCaptured) and event.level == "layers"]
    assert [layer_names(event) for event in layers] == [["previewed"], []]
    first = reported.index(layers[0])
    announced = [event for event in reported if isinstance(event, events.LevelStarted) and event.level == "layers"]
    assert len(announced) == 1 and reported.index(announced[0]) < first
    started = [event.level for event in reported[first:] if isinstance(event, events.LevelStarted)]
    assert started and "layers" not in started  # announced once, by the preview: its rows are on screen
    assert not any(isinstance(event, events.LevelStarted) and event.level == "graph"
                   for event in reported[:first])  # shown before the TensorFlow worker went on
    (loaded,) = [event for event in reported if isinstance(event, events.BundleLoaded)]
    bundle = Bundle.open(loaded.path)
    assert json.loads((bundle.path / "layers.json").read_text()) == []  # the TensorFlow worker's word
    assert bundle.manifest.status("layers", "").status == "ok"


def test_a_preview_that_dies_changes_nothing(fake):
    fake("preview_killed")
    reported = run_job("mlp")
    assert not any(isinstance(event, events.CaptureFailed) for event in reported)
    layers = [event for event in reported if isinstance(event, events.LevelCaptured) and event.level == "layers"]
    assert [layer_names(event) for event in layers] == [[]]
    assert any(isinstance(event, events.BundleLoaded) for event in reported)


def test_when_the_tensorflow_workers_layers_fail_the_previewed_file_goes(fake):
    fake("preview_then_layers_fail")
    reported = run_job("mlp")
    failed = [event for event in reported if isinstance(event, events.CaptureFailed) and event.level == "layers"]
    assert [event.error for event in failed] == ["the stand-in's layers broke"]
    (loaded,) = [event for event in reported if isinstance(event, events.BundleLoaded)]
    bundle = Bundle.open(loaded.path)
    assert bundle.manifest.status("layers", "").status == "failed"
    assert not (bundle.path / "layers.json").exists()  # the bundle never holds what its worker did not say


def started_modules(pids) -> list[str]:
    return sorted(path.read_text() for path in pids.glob("*.pid"))


def test_the_preview_runs_for_a_sample_captured_as_built(fake):
    pids = fake("preview_listed")
    run_job("mlp")
    assert PREVIEW_MODULE in started_modules(pids)


def test_no_preview_where_the_tensorflow_worker_alone_applies_an_option(fake):
    pids = fake("preview_listed")
    for options in (CaptureOptions(targets=("cpu",), dtype="mixed_bfloat16"),
                    CaptureOptions(targets=("cpu",), quantize="int8")):
        assert any(isinstance(event, events.BundleLoaded) for event in run_job("mlp", options))
    assert started_modules(pids) and PREVIEW_MODULE not in started_modules(pids)


# --- the real preview worker (Keras-on-JAX: the e2e lane) ----------------------------------------


def run_preview_worker(staging: Path) -> list[str]:
    """The real worker, started as the orchestrator starts it; the protocol lines it printed."""
    request = {"model": "mnist_cnn", "staging_dir": str(staging), "batch": 1}
    done = subprocess.run(worker_command(PREVIEW_MODULE), input=json.dumps(request) + "\n", cwd=staging,
                          capture_output=True, text=True, check=True, timeout=300)
    return [line for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.e2e
def test_the_real_preview_shows_the_rows_the_tensorflow_worker_recorded(tmp_path, recorded_bundle):
    lines = run_preview_worker(tmp_path)
    assert [json.loads(line)["event"] for line in lines] == ["level_started", "level_done"]
    previewed = load_json(list[LayerRecord], tmp_path / "layers.json")
    assert previewed == load_json(list[LayerRecord], recorded_bundle / "layers.json")  # TensorFlow's capture


@pytest.mark.e2e
def test_the_real_preview_never_replaces_a_layers_file_already_there(tmp_path):
    (tmp_path / "layers.json").write_text("[]")  # the TensorFlow worker's, written first
    lines = run_preview_worker(tmp_path)
    assert [json.loads(line)["event"] for line in lines] == ["level_started"]
    assert (tmp_path / "layers.json").read_text() == "[]"
    assert not [path.name for path in tmp_path.iterdir() if path.name != "layers.json"]  # nothing half-written


def test_the_selection_stays_when_the_tensorflow_workers_layers_replace_the_previewed_ones(fake):
    """The session the app holds: the learner moved to a layer on the previewed rows; the TensorFlow
    worker's layers arrive as a second LevelCaptured, read by the same job, and the selection stays."""
    fake("preview_first")
    session = SessionService(model_spec="mlp")
    job = session.capture_at_start()
    assert job is not None
    selected = []

    def apply(event) -> None:
        session.apply(event)
        if isinstance(event, events.LevelCaptured) and event.level == "layers" and not selected:
            session.select("layers", "previewed")  # the learner's key on the first rows
            selected.append(session.bundle)

    job.run(apply)
    assert session.bundle is not selected[0]  # the TensorFlow worker's layers were read since
    assert session.now.selections["layers"] == "previewed"
