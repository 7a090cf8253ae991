"""The start's fast path (explorer/capture/ready_bundle.py): a model the cache holds whole opens as a
bundle, read while the first screen is built, without the orchestrator; anything less is captured."""

from __future__ import annotations

import json
import shutil

from explorer.capture import orchestrator
from explorer.capture.cache import cached_bundle_path
from explorer.capture.model_source import resolve
from explorer.capture.ready_bundle import partly_cached_bundle, ready_cached_bundle
from explorer.model.bundle import MANIFEST
from explorer.model.records import CaptureOptions
from explorer.session.service import SessionService

from screens.app import create_app

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle

ALL = CaptureOptions(targets=("cpu", "gpu:h100", "tpu:v5e"))


def _cached(options: CaptureOptions = ALL):
    """The recorded mnist_cnn bundle where the cache keeps mnist_cnn's capture with `options`."""
    path = cached_bundle_path(resolve("mnist_cnn"), options)
    shutil.copytree(BUNDLE, path)
    return path


def _fail_level(path, target: str, level: str) -> None:
    manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    for entry_target, entry_level, status in manifest["levels"]:
        if (entry_target, entry_level) == (target, level):
            status.update(status="failed", error="the compiler said no")
    (path / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def test_a_whole_clean_capture_is_ready():
    path = _cached()
    assert ready_cached_bundle("mnist_cnn", ALL) == path
    assert ready_cached_bundle("mnist_cnn", CaptureOptions(targets=("cpu",))) == path  # a target it holds


def test_anything_less_is_not_ready():
    assert ready_cached_bundle("mnist_cnn", ALL) is None  # nothing cached
    path = _cached()
    assert ready_cached_bundle("mnist_cnn", CaptureOptions(targets=("cpu", "tpu:v6e"))) is None  # a target it lacks
    assert ready_cached_bundle("no_such_model", ALL) is None  # bad input: the orchestrator says why
    _fail_level(path, "gpu:h100", "kernels")
    assert ready_cached_bundle("mnist_cnn", ALL) is None  # a failed level: the capture path names it
    assert ready_cached_bundle("mnist_cnn", CaptureOptions(targets=("cpu",))) == path  # not one asked for


@sync
async def test_the_app_opens_a_ready_capture_without_the_orchestrator(monkeypatch):
    _cached()

    def no_capture(*args, **kwargs):
        raise AssertionError("the orchestrator ran for a capture the cache holds whole")

    monkeypatch.setattr(orchestrator, "capture", no_capture)
    app = create_app(model_spec="mnist_cnn", options=ALL, level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.pause()
        assert [item.name for item in app.items_table.items][:2] == ["image", "conv2d"]
        assert app.session.title_line("layers").startswith("mnist_cnn | ")  # the model, not the cache's folder


@sync
async def test_the_app_captures_what_the_cache_lacks(monkeypatch):
    path = _cached()
    _fail_level(path, "gpu:h100", "kernels")
    asked = []

    def capture(spec, options, **kwargs):
        asked.append(spec)
        return path

    monkeypatch.setattr(orchestrator, "capture", capture)
    app = create_app(model_spec="mnist_cnn", options=ALL, level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            if asked and app.bundle is not None:
                break
            await pilot.pause(0.05)
    assert asked == ["mnist_cnn"]


@sync
async def test_the_app_reads_the_cache_with_the_model_the_command_line_resolved(monkeypatch):
    # The command line hashed the model's file already: a large .keras file is not read twice.
    from explorer.capture import ready_bundle

    _cached()
    source = resolve("mnist_cnn")

    def no_resolve(spec):
        raise AssertionError(f"{spec} resolved (hashed) again")

    monkeypatch.setattr(ready_bundle, "resolve", no_resolve)
    app = create_app(model_spec="mnist_cnn", options=ALL, level="layers", model_source=source)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert [item.name for item in app.items_table.items][:2] == ["image", "conv2d"]


def test_a_capture_that_shows_its_layers_is_partly_cached():
    lacking = CaptureOptions(targets=("cpu", "tpu:v6e"))  # a target the cached bundle lacks
    assert partly_cached_bundle("mnist_cnn", lacking) is None  # nothing cached
    path = _cached()
    assert ready_cached_bundle("mnist_cnn", lacking) is None
    assert partly_cached_bundle("mnist_cnn", lacking) == path  # its layers show while the rest is captured
    assert partly_cached_bundle("no_such_model", lacking) is None  # bad input: the orchestrator says why
    _fail_level(path, "", "layers")
    assert partly_cached_bundle("mnist_cnn", lacking) is None  # no rows to show: captured first


@sync
async def test_a_partly_cached_model_shows_its_rows_first_and_captures_the_rest_behind_them(monkeypatch):
    """A model cached for cpu, opened with the default targets: the cached rows in the first frame, the
    capture of the missing targets started once they show (before, it started first and its workers took
    the cores the rows needed)."""
    path = _cached()
    seen_at_capture = []

    def capture(spec, options, **kwargs):
        table = app.items_table
        seen_at_capture.append((spec, options.targets, table is not None and len(table.items) > 0))
        return path

    monkeypatch.setattr(orchestrator, "capture", capture)
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu", "tpu:v6e")), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert [item.name for item in app.items_table.items][:2] == ["image", "conv2d"]
        for _ in range(100):  # bounded: the capture starts a frame after the rows
            if seen_at_capture:
                break
            await pilot.pause(0.05)
    assert seen_at_capture == [("mnist_cnn", ("cpu", "tpu:v6e"), True)]


@sync
async def test_a_model_nothing_of_which_is_cached_starts_its_capture_before_the_first_screen(monkeypatch):
    """Not on an event from a background lookup that the first screen's building held up: the workers'
    imports are what the rows of a model never captured wait for."""
    asked = []

    def capture(spec, options, **kwargs):
        asked.append(spec)
        return _cached()

    read = SessionService.open_in_background

    def no_background_lookup(self, emit, path):
        assert path is not None, "the cache was looked up again on a worker"
        read(self, emit, path)  # the captured bundle, read

    monkeypatch.setattr(orchestrator, "capture", capture)
    monkeypatch.setattr(SessionService, "open_in_background", no_background_lookup)
    app = create_app(model_spec="mnist_cnn", options=ALL, level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.capturing_from_start
        for _ in range(100):
            if asked and app.bundle is not None:
                break
            await pilot.pause(0.05)
        assert [item.name for item in app.items_table.items][:2] == ["image", "conv2d"]
    assert asked == ["mnist_cnn"]
