"""A deep model blocks nothing (issues 23 and 36): a level's first list, the number key's selection
there, the side panes and the code view read what they need on workers, and the keys act meanwhile.
A 5,000-layer bundle's first visit to the kernels level took the UI thread 90 s, and a key pressed
meanwhile took effect 77 s later; after issue 23 still 31 s, XLA:CPU having put every fusion in one
kernel, whose 2.7 MB of assembly the code view lexed whole, and the jump parsed the modules.

The build is held on an event, so the test orders what happens (press, move, release) instead of
timing it; bench/bench_terminal.py times what a learner sees.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from deep_bundle import layer_name, write_deep_bundle
from textual.worker import WorkerState

from explorer.model.bundle import Bundle

from screens import level_view
from screens.app import create_app
from screens.help import HelpScreen
from screens.screenshot import workers_done
from screens.widgets import code_view
from screens.widgets.code_view import CodeView

from pilot_support import opened, sync, wait_for_jumps

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
        await workers_done(app)
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


# Issue 36: the same model as XLA:CPU compiled it, one kernel (`part_00`) holding every fusion's code.
ONE_PART_LAYERS = 300
HOLD_S = 30  # a held read gives up after this long (the test then fails on it, instead of hanging)


@pytest.fixture
def one_part_bundle(tmp_path):
    return write_deep_bundle(tmp_path / "one-part", ONE_PART_LAYERS, one_part=True)


class HeldReads:
    """Once `watching`, every module parse and JSON read off the UI thread waits for `release`, those
    the UI thread makes are recorded in `on_ui_thread`, and the lines it lexes at once in `lexed`."""

    def __init__(self, monkeypatch) -> None:
        self.release, self.watching = threading.Event(), False
        self.on_ui_thread: list[str] = []
        self.timed_out: list[str] = []
        self.lexed: list[int] = []
        read_module, load, lex = Bundle._read_module, Bundle._load, code_view._highlighted

        def held(what: str) -> None:
            if not self.watching:
                return
            if threading.current_thread() is threading.main_thread():
                self.on_ui_thread.append(what)
            elif not self.release.wait(HOLD_S):
                self.timed_out.append(what)

        def held_module(bundle, target, optimized):
            held(f"{target} {'optimized ' if optimized else ''}HLO")
            return read_module(bundle, target, optimized)

        def held_load(bundle, cls, relative):
            held(relative)
            return load(bundle, cls, relative)

        def counted(code, language):
            if self.watching and threading.current_thread() is threading.main_thread():
                self.lexed.append(code.count("\n") + 1)
            return lex(code, language)

        # The learner is quicker than the warm-up after opening (on the real model it reads for many
        # seconds): it reads nothing ahead here, so the visit reads it all.
        for warm in ("explorer.session.opening.prepare_first_screen", "explorer.session.opening.prepare_levels",
                     "explorer.views.panes.warm_layer_facts"):
            monkeypatch.setattr(warm, lambda *args, **kwargs: None)
        monkeypatch.setattr(Bundle, "_read_module", held_module)
        monkeypatch.setattr(Bundle, "_load", held_load)
        monkeypatch.setattr(code_view, "_highlighted", counted)


@sync
async def test_a_key_acts_while_a_one_part_kernels_level_loads(one_part_bundle, monkeypatch):
    """`5` from a layer of a deep model: the level shows at once, `?` answers while its modules are still
    being read, and once read the list lands on the layer's kernel with its code, lexed as far as shown."""
    reads = HeldReads(monkeypatch)
    app = create_app(one_part_bundle, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("down", "down")
        await pilot.pause()
        assert app.items_table.current.name == layer_name(1)
        reads.watching = True
        await pilot.press("5")
        await pilot.pause()
        assert app.level == "kernels"
        assert "Listing" in str(app.explorer.view.query_one(".notice").render())
        await pilot.press("question_mark")
        await pilot.pause()
        # The help is up while every read the level waits for is still held.
        assert isinstance(app.screen, HelpScreen)
        assert not reads.release.is_set() and not reads.timed_out
        reads.release.set()
        await pilot.press("escape")
        await workers_done(app)
        await pilot.pause()
        await wait_for_jumps(pilot)
        assert app.items_table.current.name == "part_00"  # where dense_1's fusion went
        code = app.explorer.view.query_one("#code", CodeView)
        assert code.line_count > 10 * ONE_PART_LAYERS and code.border_title.startswith("assembly")
    assert reads.on_ui_thread == [] and reads.timed_out == []
    assert sum(reads.lexed) <= 40  # the lines on screen, not the part's thousands
