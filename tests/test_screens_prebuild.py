"""Level views built while the learner reads (`ExplorerScreen.build_ahead`, on the idle timer of
screens/session_work.py): once the bundle is read and warmed and no key came for a while, the views of
the levels not visited yet are built, hidden, one at a time; a key that moves to such a level shows its
rows and the carried selection in the frame that shows the level, exactly as a view built on the visit
shows them. A key press holds the building back until the learner is idle again."""

from __future__ import annotations

import threading

from large_bundle import write_large_bundle

from explorer.levels import LEVELS
from explorer.views import trace

from screens.app import create_app
from screens.explorer_screen import ExplorerScreen
from screens.widgets.code_view import CodeView, prepared_code
from screens.widgets.item_rows import ItemRows

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle

SIZE = (120, 40)


async def _built_ahead(pilot, level: str) -> None:
    """Until `level`'s view is built ahead (the app idle: no key pressed meanwhile)."""
    for _ in range(600):  # bounded: the warm-up, then one view per idle tick
        if level in pilot.app.explorer.built_levels:
            return
        await pilot.pause(0.05)
    raise AssertionError(f"no view built ahead for {level}: {sorted(pilot.app.explorer.built_levels)}")


async def _settle(pilot) -> None:
    await opened(pilot)
    for _ in range(4):
        await pilot.pause()


def _shown(app) -> tuple[str, str | None, list[str], tuple[int, set[int]]]:
    """The level, its selection, the screen's text outside the code, and the code view's place."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    code = app.explorer.view.query_one(CodeView)
    return (app.level, app.items_table.current.name,
            [line for line in lines if line.strip()], (code.top, code._marked))


async def _dense_then_optimized_hlo(pilot) -> tuple:
    app = pilot.app
    app.items_table.select("dense")
    await pilot.pause()
    await pilot.press("4")
    await _settle(pilot)
    return _shown(app)


@sync
async def test_the_levels_not_visited_are_built_while_the_learner_reads():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, LEVELS[-1])  # the last one built
        assert app.explorer.built_levels == set(LEVELS)
        assert app.level == "layers"  # built hidden: the learner still reads the layers
        built = app.explorer.view_of("optimized-hlo")
        await pilot.press("4")
        await _settle(pilot)
        assert app.level == "optimized-hlo" and app.explorer.view is built  # the view built ahead, not a new one
        assert app.items_table.items and app.items_table.current is not None


PANES = ("#memory", "#explanation")  # what they show is the selection's own (a layer's, an instruction's)


def _panes(screen) -> tuple[str, ...]:
    return tuple(screen.query_one(pane).plain for pane in PANES)


@sync
async def test_a_visit_of_a_level_built_ahead_shows_its_rows_and_the_kept_selection_in_its_first_frame(monkeypatch):
    # What the list draws the first time it is on screen: its rows, the cursor on the item the layer's
    # selection leads to, that row in view, and the side panes already showing that item (the same frame).
    seen: list[tuple[int, str | None, bool, tuple[str, ...]]] = []
    render_line = ItemRows.render_line

    def recording(self, y):
        view = self.app.explorer.view_of("optimized-hlo")
        if not seen and view is not None and view in self.ancestors:
            table, top = view.items_table, int(self.scroll_y)
            name = table.current.name if table.current is not None else None
            cursor_drawn = top <= self.cursor_row < top + self.visible_rows and name in render_line(
                self, self.cursor_row - top + 1).text
            seen.append((len(table.items), name, cursor_drawn, _panes(self.screen)))
        return render_line(self, y)

    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, "optimized-hlo")
        app.items_table.select("dense")
        await _settle(pilot)
        on_the_layer = _panes(app.screen)
        monkeypatch.setattr(ItemRows, "render_line", recording)
        await pilot.press("4")
        await _settle(pilot)
        carried = app.selections["optimized-hlo"]
        assert app.items_table.current.name == carried
        assert trace.layer_of(app.bundle, "optimized-hlo", carried, "cpu") == "dense"  # the selection kept
        settled = _panes(app.screen)
    assert settled != on_the_layer  # the panes tell the layer from its instruction
    rows, name, cursor_drawn, panes = seen[0]
    assert rows > 0 and name == carried and cursor_drawn, seen
    assert panes == settled  # not the layer's panes, then the instruction's a frame later


@sync
async def test_a_first_visit_of_a_view_built_ahead_shows_what_a_view_built_on_the_visit_shows(monkeypatch):
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, "optimized-hlo")
        ahead = await _dense_then_optimized_hlo(pilot)

    monkeypatch.setattr(ExplorerScreen, "build_ahead", lambda self: False)  # nothing is built ahead
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await pilot.pause(1.0)  # idle well past the time a view would be built ahead
        assert app.explorer.built_levels == {"layers"}
        on_visit = await _dense_then_optimized_hlo(pilot)

    assert ahead[1] and ahead[1] == on_visit[1]  # dense's instruction, selected on both
    assert ahead == on_visit


@sync
async def test_keys_hold_the_building_back_until_the_learner_is_idle_again():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, "graph")  # the first one built
        count = len(app.explorer.built_levels)
        for _ in range(12):  # a key every 0.1 s: never idle for BUILD_AHEAD_IDLE_S
            await pilot.press("down")
            await pilot.pause(0.1)
        held = app.explorer.built_levels
        assert len(held) <= count + 1 < len(LEVELS)  # at most the one that was due as the keys began
        await _built_ahead(pilot, LEVELS[-1])  # idle again: the building goes on to the last level
        assert app.explorer.built_levels == set(LEVELS)


@sync
async def test_a_module_built_ahead_is_prepared_off_the_visit():
    """The optimized HLO's module text is made safe and split on a thread once its view is built ahead:
    the visit's code view finds it prepared (a 30,000-instruction module took tens of milliseconds of
    the visit's frame)."""
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, "optimized-hlo")
        module = app.bundle.hlo_text("cpu", True)
        for _ in range(100):  # bounded: the daemon threads' work
            if not any(thread.name == "prepare-code" for thread in threading.enumerate()):
                break
            await pilot.pause(0.05)
        before = prepared_code.cache_info()
        await pilot.press("4")
        await _settle(pilot)
        after = prepared_code.cache_info()
        assert after.misses == before.misses and after.hits > before.hits  # taken prepared, not redone
        assert app.explorer.view.query_one(CodeView).line_count == len(module.rstrip().split("\n"))


@sync
async def test_building_ahead_on_a_screen_being_taken_down_waits_instead_of_failing():
    """The idle timer can tick once more while the app ends and the screen's levels are gone."""
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        explorer = app.explorer
        await explorer.switcher.remove()
        explorer._last_key_at = 0.0  # idle long enough to build
        assert explorer.build_ahead() is True  # nothing built, nothing raised: later, if ever


@sync
async def test_a_long_list_built_ahead_draws_its_first_frame_as_it_settles(monkeypatch, tmp_path):
    """Its scrollbar, its columns fitted to the width and its scroll are the settled ones the first time
    the list is drawn: hidden, it had no size, and each came a frame after the visit's first (the rows
    moved sideways and down after the learner saw them)."""
    large = write_large_bundle(tmp_path / "large", 3000)
    first: list[tuple] = []
    render_line = ItemRows.render_line

    def recording(self, y):
        view = self.app.explorer.view_of("optimized-hlo")
        if not first and view is not None and view in self.ancestors:
            first.append(_list_layout(self))
        return render_line(self, y)

    app = create_app(large, level="layers", target="cpu")
    async with app.run_test(size=(160, 50)) as pilot:
        await _settle(pilot)
        await _built_ahead(pilot, "optimized-hlo")
        monkeypatch.setattr(ItemRows, "render_line", recording)
        await pilot.press("4")
        await _settle(pilot)
        rows = app.items_table.query_one(ItemRows)
        settled = _list_layout(rows)
    assert settled[0] is True  # thousands of rows: the bar shows
    assert first == [settled]


def _list_layout(rows: ItemRows) -> tuple:
    return rows.show_vertical_scrollbar, tuple(rows._widths), int(rows.scroll_y)
