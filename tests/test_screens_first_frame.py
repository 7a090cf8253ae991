"""The first frame a learner waits for: a bundle opened on its layers is read before the first
screen is built (its rows are in the first frame), the screen is laid out at the terminal's width
from the start, its side panes follow the rows (or come anyway when no rows do), and the cyclic
garbage collector, off for the start, is on again once it is drawn."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from screens.app import create_app
from screens.explorer_screen import PANES_AT_THE_LATEST_S, ExplorerScreen
from screens.widgets.item_rows import ItemRows

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


def _record_at_compose(monkeypatch) -> list[tuple[str, bool, set[str]]]:
    """Per explorer screen composed: its first level, whether the app had its bundle then, its classes
    after compose."""
    seen: list[tuple[str, bool, set[str]]] = []
    compose = ExplorerScreen.compose

    def recording(self):
        yield from compose(self)
        seen.append((self.first_level, self.tensorweg.bundle is not None, set(self.classes)))

    monkeypatch.setattr(ExplorerScreen, "compose", recording)
    return seen


@sync
async def test_a_bundle_opened_on_its_layers_is_read_before_the_first_screen_is_built(monkeypatch):
    seen = _record_at_compose(monkeypatch)
    app = create_app(BUNDLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
    assert seen[0][:2] == ("layers", True)


@sync
async def test_a_bundle_opened_on_another_level_is_read_on_the_worker(monkeypatch):
    # Its rows may take a module's parse: the first screen says "opening" meanwhile.
    seen = _record_at_compose(monkeypatch)
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert app.bundle is not None
    assert seen[0][:2] == ("optimized-hlo", False)


@sync
async def test_the_first_screen_is_laid_out_for_the_terminals_width_from_the_start(monkeypatch):
    seen = _record_at_compose(monkeypatch)
    for size, wanted in (((80, 24), "-narrow"), ((160, 50), "-wide")):
        seen.clear()
        app = create_app(BUNDLE)
        async with app.run_test(size=size) as pilot:
            await opened(pilot)
        assert wanted in seen[0][2]


@sync
async def test_the_first_screens_rows_are_drawn_before_its_side_panes_exist(monkeypatch):
    drawn_with_panes: list[bool] = []
    render_line = ItemRows.render_line

    def recording(self, y):
        if self.row_count and not drawn_with_panes:
            drawn_with_panes.append(bool(self.screen.query("#explanation")))
        return render_line(self, y)

    monkeypatch.setattr(ItemRows, "render_line", recording)
    app = create_app(BUNDLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        for _ in range(3):
            await pilot.pause()
        assert drawn_with_panes == [False]
        item = app.items_table.current
        assert item.name in app.screen.query_one("#explanation").plain or app.screen.query_one("#memory").plain


@sync
async def test_the_side_panes_come_when_no_rows_do(tmp_path: Path):
    app = create_app(tmp_path / "no_bundle_here")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert app.load_error
        await pilot.pause(PANES_AT_THE_LATEST_S + 0.2)
        assert app.screen.query("#explanation") and app.screen.query("#devices")


@sync
async def test_the_cyclic_collector_is_on_again_once_the_first_frame_is_drawn():
    # `tensorweg open` turns it off for the start (screens.cli); the app turns it on again.
    gc.disable()
    try:
        app = create_app(BUNDLE)
        async with app.run_test(size=(80, 24)) as pilot:
            await opened(pilot)
            assert gc.isenabled()
    finally:
        gc.enable()


def test_an_open_that_fails_before_the_ui_leaves_the_collector_on(capsys):
    from screens.cli import main

    assert main(["open", "mnist_cnn"]) == 2  # no terminal under pytest: the last check before the UI
    assert "needs a terminal" in capsys.readouterr().err
    assert gc.isenabled()


def test_the_explorer_runs_with_a_short_switch_interval_and_gives_it_back(monkeypatch):
    """The UI thread gets the interpreter's lock back from a level's loading threads within a tenth of
    a millisecond, not Python's 5 ms after each turn of its loop (a key during a deep model's load
    took a second: bench/bench_deep_keys.py); the interval is the interpreter's again afterwards,
    also when the open fails."""
    import sys

    from screens import cli

    seen = []

    def open_explorer(*args):
        seen.append(sys.getswitchinterval())
        raise RuntimeError("stop here")

    before = sys.getswitchinterval()
    monkeypatch.setattr(cli, "_open_explorer", open_explorer)
    with pytest.raises(RuntimeError):
        cli._run_explorer(None)
    assert seen == [pytest.approx(cli.UI_SWITCH_INTERVAL_S)]
    assert before > cli.UI_SWITCH_INTERVAL_S
    assert sys.getswitchinterval() == before


@sync
async def test_the_side_panes_wait_for_textuals_first_frame(monkeypatch):
    # Textual renders a starting app's frames but the terminal gets none until its Ready event (the
    # first frame displayed): the side panes, mounted after the rows are painted, wait for it.
    seen: list[bool] = []
    compose = ExplorerScreen.compose

    def recording(self):
        seen.append(self.app.first_frame_shown)
        yield from compose(self)

    monkeypatch.setattr(ExplorerScreen, "compose", recording)
    app = create_app(BUNDLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert seen == [False] and app.first_frame_shown
        assert app.explorer.query("#explanation")
