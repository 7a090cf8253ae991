"""The app's capture: levels arrive parsed, and `c` during a capture cancels it and starts anew.

The orchestrator's `capture` is replaced by a stand-in with its signature (the session's
`CaptureJob.run` calls it with `on_event`, `cancel` and the policy's `gate`) that emits real
capture events over copies of the recorded bundle and honours `cancel` the way the orchestrator
does (it raises CaptureCancelled); everything from the event to the screen is the app's real
code (CaptureJob.run, staging_reader, SessionService.apply, the app's redraw).
"""

from __future__ import annotations

import asyncio
import shutil
import threading

import pytest

from explorer.capture import events as capture_events
from explorer.capture import orchestrator
from explorer.errors import CaptureCancelled
from explorer.model.records import CaptureOptions
from explorer.session.events import LevelCaptured
from explorer.views.session import CAPTURED

from screens.app import create_app
from screens.widgets import code_view

from pilot_support import BUNDLE, needs_bundle, sync

pytestmark = needs_bundle


class StandInCapture:
    """Capture calls: the first blocks after its first level until cancelled, later ones finish."""

    def __init__(self, tmp_path) -> None:
        self.tmp_path = tmp_path
        self.calls: list[tuple[tuple[str, ...], threading.Event]] = []
        self.first_started = threading.Event()
        self.first_cancelled = threading.Event()
        self.late_event_sent = threading.Event()
        # Real captures take seconds before their first level; the stand-in waits for the screen too.
        # (A level arriving before the DevicePane's tabs are mounted hits a race there: see the report.)
        self.screen_ready = threading.Event()

    def __call__(self, spec, options, out_dir=None, on_event=None, cancel=None, use_cache=True, gate=None):
        number = len(self.calls)
        self.calls.append((options.targets, cancel))
        assert self.screen_ready.wait(30)
        folder = self.tmp_path / f"capture-{number}"
        shutil.copytree(BUNDLE, folder)
        on_event(capture_events.LevelStarted("layers", "", staging_dir=str(folder)))
        on_event(capture_events.LevelCaptured("layers", "", seconds=0.1, staging_dir=str(folder)))
        if number == 0:
            self.first_started.set()
            assert cancel.wait(30), "the first capture was never cancelled"
            self.first_cancelled.set()
            # A level that finished just as the cancel came: it must not reach the screen.
            on_event(capture_events.LevelCaptured("graph", "", seconds=0.1, staging_dir=str(folder)))
            self.late_event_sent.set()
            raise CaptureCancelled("capture cancelled; nothing was written")
        on_event(capture_events.LevelCaptured("hlo", "cpu", seconds=0.1, staging_dir=str(folder)))
        return folder


async def wait_for(pilot, predicate, what: str, tries: int = 400) -> None:
    for _ in range(tries):
        if predicate():
            return
        await asyncio.sleep(0.02)
        await pilot.pause()
    pytest.fail(f"timed out waiting for {what}")


@sync
async def test_c_during_a_capture_cancels_it_and_only_the_new_one_posts(tmp_path, monkeypatch):
    stand_in = StandInCapture(tmp_path)
    monkeypatch.setattr(orchestrator, "capture", stand_in)
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        stand_in.screen_ready.set()
        await wait_for(pilot, stand_in.first_started.is_set, "the first capture")
        await wait_for(pilot, lambda: app.bundle is not None, "the first capture's layers")
        first_bundle = app.bundle
        # Parsed on the capture's thread: the message carries a reader with the layers loaded.
        assert ("layers", "") in first_bundle._parsed and app.progress[("layers", "")] == CAPTURED

        await pilot.press("c")
        await wait_for(pilot, stand_in.late_event_sent.is_set, "the first capture to end")
        await wait_for(pilot, lambda: not app.session.opening and app.bundle is not first_bundle
                       and app.has_manifest() and app.bundle.path.name == "capture-1", "the second capture's bundle")

        assert len(stand_in.calls) == 2
        (first_targets, first_cancel), (second_targets, second_cancel) = stand_in.calls
        assert first_cancel.is_set() and not second_cancel.is_set()
        assert second_targets == ("cpu", "gpu:h100", "tpu:v5e")  # `c` adds the missing default targets
        assert ("graph", "") not in app.progress, "the cancelled capture's late level reached the screen"


@sync
async def test_a_message_of_a_replaced_capture_is_dropped(tmp_path, monkeypatch):
    stand_in = StandInCapture(tmp_path)
    monkeypatch.setattr(orchestrator, "capture", stand_in)
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        stand_in.screen_ready.set()
        await wait_for(pilot, stand_in.first_started.is_set, "the first capture")
        stale = app.session.capture_generation
        await pilot.press("c")
        await wait_for(pilot, stand_in.first_cancelled.is_set, "the cancel")
        app.deliver(LevelCaptured("memory", "cpu", 0.1, None, generation=stale))
        await pilot.pause()
        assert ("memory", "cpu") not in app.progress


@sync
async def test_a_growing_cached_bundle_shows_its_levels_while_the_workers_run(tmp_path, monkeypatch):
    """A cpu bundle opened with the default targets: its rows at once, not after TensorFlow started."""
    staged, release = threading.Event(), threading.Event()

    def growing(spec, options, out_dir=None, on_event=None, cancel=None, use_cache=True, gate=None):
        folder = tmp_path / "staging"
        shutil.copytree(BUNDLE, folder)
        on_event(capture_events.KeptLevelsStaged(str(folder)))
        staged.set()
        release.wait(30)  # the workers still run for the missing targets
        raise CaptureCancelled("capture cancelled; nothing was written")

    monkeypatch.setattr(orchestrator, "capture", growing)
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu", "tpu:v5e")), level="layers")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.bundle is not None, "the kept levels")
            await pilot.pause()
            assert staged.is_set() and not release.is_set()
            names = [item.name for item in app.items_table.items]
            assert names[:2] == ["image", "conv2d"]
            assert app.items_table.current.name == "image"
    finally:
        release.set()


@sync
async def test_a_cached_model_is_not_kept_from_its_rows_by_the_renderers_warm_up(tmp_path, monkeypatch):
    """A cache hit posts its bundle before the side panes' renderers (Markdown, Pygments) are imported:
    the open worker warms them once the rows show. A real capture warms them while a worker compiles."""
    warmed: list[str] = []
    monkeypatch.setattr(code_view, "warm_up_renderers", lambda: warmed.append("warmed"))
    during_capture: list[str] = []

    def cache_hit(spec, options, out_dir=None, on_event=None, cancel=None, use_cache=True, gate=None):
        folder = tmp_path / "cached"
        shutil.copytree(BUNDLE, folder)
        on_event(capture_events.CacheHit(str(folder)))
        during_capture.extend(warmed)
        return folder

    monkeypatch.setattr(orchestrator, "capture", cache_hit)
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.bundle is not None, "the cached bundle")
        await pilot.pause()
        assert [item.name for item in app.items_table.items][:2] == ["image", "conv2d"]
    assert during_capture == []


@pytest.mark.e2e
@sync
async def test_a_real_capture_cancelled_by_c_leaves_one_finished_bundle_on_screen():
    """Real workers: `c` while TensorFlow loads kills that capture; the new one (all default targets) ends
    on screen with every level captured, and nothing of the first is left in the cache."""
    from explorer.capture.cache import cache_root

    app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        # A real worker starts TensorFlow first: many seconds on a loaded machine.
        await wait_for(pilot, lambda: ("layers", "") in app.progress, "the first capture's first level", tries=6000)
        first = app.session.capture_generation
        await pilot.press("c")
        for _ in range(3000):  # real compilers: up to a few minutes on a loaded machine
            if app.has_manifest() and not app.session.opening and not app.bundle.path.name.startswith(".staging-"):
                break
            await asyncio.sleep(0.1)
        assert app.session.capture_generation == first + 1 and not app.load_error
        bundle = app.bundle
        assert bundle.targets == ("cpu", "gpu:h100", "tpu:v5e")
        assert all(bundle.status(level, target).status in ("ok", "unavailable")
                   for target in bundle.targets for level in ("hlo", "optimized-hlo", "kernels", "memory"))
    assert [p.name for p in (cache_root() / "bundles").iterdir()] == [bundle.path.name]


@sync
async def test_a_cache_dir_that_is_a_file_is_a_message_not_a_crash(tmp_path, monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache should be")
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(blocker))
    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.load_error, "the capture to fail")
        assert "cannot create the folder" in app.load_error and app.is_running
        assert "cannot create the folder" in str(app.explorer.view.query_one(".notice").render())
