"""A deep model blocks nothing (issue 23): a level's first list is built on a worker, and the keys
act while it builds. A 5,000-layer bundle's first visit to the kernels level took the UI thread
90 s, and a key pressed meanwhile took effect 77 s later.

The build is held on an event, so the test orders what happens (press, move, release) instead of
timing it; bench/bench_terminal.py times what a learner sees.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from deep_bundle import layer_name, write_deep_bundle
from textual.worker import WorkerState

from screens import level_view
from screens.app import create_app

from pilot_support import opened, sync

LAYERS = 300  # enough to be a deep model's list; the test holds the build, it does not wait for it


@pytest.fixture
def deep_bundle(tmp_path):
    return write_deep_bundle(tmp_path / "deep", LAYERS)


def _rows_workers(app) -> list:
    return [worker for worker in app.workers if worker.group == "level-rows"]


def _held_kernels_build(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The kernels' rows built on a worker wait for `release` (`building` says one waits)."""
    release, building = threading.Event(), threading.Event()
    build = level_view.level_rows

    def held_build(bundle, level, target, lang):
        if level == "kernels" and threading.current_thread() is not threading.main_thread():
            building.set()
            release.wait(60)
        return build(bundle, level, target, lang)

    monkeypatch.setattr(level_view, "level_rows", held_build)
    # The warm-up after opening would build every level's rows ahead: these tests need the kernels unbuilt.
    monkeypatch.setattr("explorer.session.opening.prepare_levels", lambda *args: None)
    return release, building


@sync
async def test_the_layer_list_answers_while_the_kernels_level_builds(deep_bundle, monkeypatch):
    release, building = _held_kernels_build(monkeypatch)
    app = create_app(deep_bundle, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("5")
        await pilot.pause()
        assert app.level == "kernels"
        assert "Listing" in str(app.explorer.view.query_one(".notice").render())
        assert app.items_table.items == ()
        assert await asyncio.to_thread(building.wait, 60)
        await pilot.press("1")
        await pilot.pause()
        assert app.level == "layers"
        first = app.items_table.current.name
        await pilot.press("down", "down")
        await pilot.pause()
        moved = app.items_table.current.name
        # Both keys were handled while the kernels' build still ran.
        assert [worker.state for worker in _rows_workers(app)] == [WorkerState.RUNNING]
        assert (first, moved) == ("image", layer_name(1))
        assert app.selections["layers"] == layer_name(1)
        release.set()
        await app.workers.wait_for_complete()
        await pilot.press("5")
        await pilot.pause()
        kernels = app.items_table
        assert len(kernels.items) == LAYERS
        assert not app.explorer.view.query_one(".notice").display


@sync
async def test_quitting_does_not_wait_for_a_level_still_building(deep_bundle, monkeypatch):
    release, building = _held_kernels_build(monkeypatch)
    app = create_app(deep_bundle, level="layers", target="cpu")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await opened(pilot)
            await pilot.press("5")
            await pilot.pause()
            assert await asyncio.to_thread(building.wait, 60)
            await pilot.press("q")
        # The app has ended with the build still held: its thread is left behind, not joined.
        held = [thread for thread in threading.enumerate() if thread.name == "rows-kernels"]
        assert held and all(thread.daemon and thread.is_alive() for thread in held)
        assert app.return_code == 0
    finally:
        release.set()
