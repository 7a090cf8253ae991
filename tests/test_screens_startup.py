"""The start-up path: the jump to the selection holds through later layouts, the rows paint
before their selection's panes, the footer redraws only when its keys change, and a click on one
of its keys presses it."""

from __future__ import annotations

from explorer.labels import label

from screens.app import create_app
from screens.widgets.code_view import CodeView
from screens.widgets.item_rows import ItemRows
from screens.widgets.keys_footer import KeysFooter
from screens.widgets.pane_text import PaneText

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


def third_down(rows: ItemRows) -> int:
    return max(0, min(rows.cursor_row - rows.visible_rows // 3, int(rows.max_scroll_y)))


@sync
async def test_the_jump_holds_through_a_resize_and_the_scrollbar_follows():
    app = create_app(BUNDLE, level="optimized-hlo", target="tpu:v5e", select="fusion.11")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        rows = app.items_table.table
        assert rows.scroll_y == third_down(rows) > 0
        assert rows.vertical_scrollbar.position == rows.scroll_y  # the thumb is where the rows are
        await pilot.resize_terminal(80, 34)
        await pilot.pause()
        assert rows.scroll_y == third_down(rows)
        assert rows.vertical_scrollbar.position == rows.scroll_y


@sync
async def test_after_the_reader_moves_a_resize_keeps_the_view():
    app = create_app(BUNDLE, level="optimized-hlo", target="tpu:v5e", select="fusion.11")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        rows = app.items_table.table
        await pilot.press("down")
        top = rows.scroll_y
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        assert rows.scroll_y == top


@sync
async def test_the_module_text_marks_the_first_row_when_nothing_was_selected():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        item = app.items_table.current
        code = app.screen.query_one("#code", CodeView)
        assert item is not None and item.line
        assert code._marked == {item.line}
        assert code.top <= item.line - 1 < code.top + code.size.height


@sync
async def test_the_selection_panes_follow_the_rows():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        for _ in range(3):  # the lazy side panes mount after the first frames
            await pilot.pause()
        rows = app.items_table.table
        assert rows.row_count and rows.drawn
        item = app.items_table.current
        # The panes show the first row's facts once the rows are on screen, not "select an item".
        assert item.name in app.screen.query_one("#device-cpu-text", PaneText).plain
        assert label("state.select_item", "en") not in app.screen.query_one("#explanation", PaneText).plain


async def _footer(pilot) -> KeysFooter:
    """The screen's footer, once the bundle is open and the lazy footer mounted."""
    await opened(pilot)
    for _ in range(3):
        await pilot.pause()
    return pilot.app.screen.query_one(KeysFooter)


@sync
async def test_the_footer_is_not_redrawn_for_the_same_keys():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        footer = await _footer(pilot)
        keys = footer.keys_shown
        assert [key.display for key in keys][:2] == ["/", "⌫"]
        assert "Back" in [key.description for key in keys]
        assert [key.description for key in keys].count("Back") == 1  # Backspace and Esc: one action, said once
        app.screen.refresh_bindings()  # nothing changed: the same keys, not redrawn
        await pilot.pause()
        assert footer.keys_shown is keys
        await pilot.press("L")  # the words change: redrawn in German
        await pilot.pause()
        assert footer.keys_shown != keys
        assert "Zurück" in [key.description for key in footer.keys_shown]


@sync
async def test_a_click_on_a_footer_key_presses_it():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        line = (await _footer(pilot)).render().plain
        x = line.index(" 2 Graph") + 1
        assert await pilot.click(KeysFooter, offset=(x, 0))
        await pilot.pause()
        assert app.level == "graph"


@sync
async def test_the_filter_input_is_mounted_on_the_first_slash():
    """The first screen styles and lays out no filter input; `/` mounts it and typing filters."""
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        table = app.items_table
        assert not table.query("#filter")
        await pilot.press("slash", *"fusion")
        await pilot.pause()
        assert table.query("#filter") and table.filter_text == "fusion"
        assert all("fusion" in item.search_text for item in table._shown if hasattr(item, "search_text"))


@sync
async def test_the_first_frames_rows_get_their_panes_at_its_ready_not_a_refresh_later(monkeypatch):
    """Textual's Ready says the first frame reached the terminal: rows drawn in it are shown, so their
    panes follow at once (`first_frame_out`) instead of after the next refresh (16 ms or more)."""
    from screens.explorer_screen import ExplorerScreen

    painted_by = []
    show_after_rows = ExplorerScreen._show_after_rows

    async def recorded(self, tries):
        was_painted = self._rows_painted
        await show_after_rows(self, tries)
        if self._rows_painted and not was_painted:
            painted_by.append((tries, self.app.first_frame_shown))

    monkeypatch.setattr(ExplorerScreen, "_show_after_rows", recorded)
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert painted_by == [(1, True)]  # once, by the Ready's news (a refresh's try starts at 10)
        assert app.screen.query_one("#explanation", PaneText).plain


@sync
async def test_the_screen_tells_the_session_when_its_panes_are_drawn_with_every_target(monkeypatch):
    """The warm-up's later work waits for it (`SessionService.panes_drawn`)."""
    from explorer.session.service import SessionService

    told = []
    panes_drawn = SessionService.panes_drawn

    def recorded(self):
        told.append(self.reading)
        panes_drawn(self)

    monkeypatch.setattr(SessionService, "panes_drawn", recorded)
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        for _ in range(5):
            await pilot.pause()
        assert frozenset() in told  # told once nothing was read any more


@sync
async def test_panes_asked_for_before_the_screen_has_composed_wait_for_it():
    """A capture's session events can reach the explorer before it has composed its level views (seen
    in CI under load: `show_extra` of no view ended the app). Nothing is shown until there is a view."""
    from screens.explorer_screen import ExplorerScreen

    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        not_composed = ExplorerScreen("layers")
        assert not_composed.view is None
        not_composed.show_panes()  # no error, nothing shown
        assert app.screen.query_one("#explanation", PaneText).plain  # the app goes on
