"""The side panes' text widget and the item list's cursor announcements: what keeps
a key press to one repaint (no layout pass, one frame).

Text shown here is compiler output from the recorded bundle (mnist_cnn's
optimized HLO) where it matters what the text is; the pane's own behaviour
(wrapping, scrolling) is checked on that text too.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical

from explorer.views.items import COLUMNS
from explorer.views.rows import rows

from screens.widgets.item_table import ItemTable
from screens.widgets.pane_text import PaneText

from pilot_support import BUNDLE, needs_bundle, sync

pytestmark = needs_bundle


def module_lines() -> list[str]:
    """The optimized HLO module XLA wrote for mnist_cnn on cpu, line by line."""
    from explorer.model.bundle import Bundle

    return Bundle.open(BUNDLE).hlo_text("cpu", optimized=True).splitlines()


class PaneApp(App):
    """One pane in a box of fixed height, as the level screens place them."""

    CSS = "#box { height: 8; width: 40; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield PaneText(id="pane")


def count_layouts(screen) -> list[int]:
    """Calls of the screen's layout pass from now on (one list item per pass)."""
    calls: list[int] = []
    original = screen._refresh_layout

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    screen._refresh_layout = counted
    return calls


@sync
async def test_new_text_of_any_length_repaints_without_a_layout_pass():
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one("#pane", PaneText)
        await pilot.pause()
        size = pane.size
        layouts = count_layouts(app.screen)
        lines = module_lines()
        pane.show("\n".join(lines[:3]))
        await pilot.pause()
        pane.show("\n".join(lines[:40]))  # far taller than the pane: it scrolls inside
        await pilot.pause()
        assert layouts == []
        assert pane.size == size
        assert lines[0].startswith(pane.plain.splitlines()[0])  # drawn from the top, wrapped to the pane


@sync
async def test_brackets_in_compiler_output_are_shown_not_read_as_markup():
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one("#pane", PaneText)
        await pilot.pause()
        pane.show("fusion.1 [fusion] f32[1,26,26,8]")
        await pilot.pause()
        assert "fusion.1 [fusion] f32[1,26,26,8]" in pane.plain


@sync
async def test_wheel_scrolls_overflowing_text_and_new_text_starts_at_its_top():
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one("#pane", PaneText)
        await pilot.pause()
        text = "\n".join(f"line {n}" for n in range(30))
        pane.show(text)
        await pilot.pause()
        assert pane.render_line(0).text.startswith("line 0")
        for _ in range(2):  # two notches of the mouse wheel over the pane
            pane.post_message(events.MouseScrollDown(pane, 1, 1, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert pane.render_line(0).text.startswith("line 2")
        for _ in range(40):
            pane.scroll_lines(1)
        assert pane.render_line(pane.size.height - 1).text.startswith("line 29")  # stops at the end
        pane.show("other text")
        await pilot.pause()
        assert pane.render_line(0).text.startswith("other text")


@sync
async def test_showing_the_same_text_again_does_not_repaint():
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one("#pane", PaneText)
        await pilot.pause()
        pane.show("copy.13: copy")
        await pilot.pause()
        repaints: list[int] = []
        original = pane.refresh
        pane.refresh = lambda *a, **k: (repaints.append(1), original(*a, **k))[1]
        pane.show("copy.13: copy")  # a new str of the same text: what a cursor move within one layer gives
        assert repaints == []


class ListApp(App):
    def __init__(self, items) -> None:
        super().__init__()
        self.items = items
        self.announced: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield ItemTable(COLUMNS["optimized-hlo"], id="items",
                        on_highlighted=lambda item: self.announced.append(item.name if item else None))


@asynccontextmanager
async def _optimized_hlo_list():
    """A list of the recorded bundle's optimized HLO on cpu, drawn, nothing announced yet."""
    from explorer.model.bundle import Bundle

    items = rows(Bundle.open(BUNDLE), "optimized-hlo", "cpu")
    app = ListApp(items)
    async with app.run_test(size=(100, 20)) as pilot:
        table = app.query_one("#items", ItemTable)
        table.set_items(items)
        await pilot.pause()
        app.announced.clear()
        yield app, pilot, table, items


@sync
async def test_a_cursor_move_is_announced_while_the_key_is_handled():
    """No message hop: the screen's panes change before Textual paints the moved cursor."""
    async with _optimized_hlo_list() as (app, pilot, table, items):
        table.table.action_cursor_down()  # what the down key runs; nothing awaited after it
        assert app.announced == [items[1].name]
        await pilot.pause()
        assert app.announced[-1] == items[1].name  # the table's own message does not announce it again
        assert len(app.announced) == 1


@sync
async def test_selecting_a_listed_item_moves_the_cursor_without_listing_the_rows_again():
    """A level's visit selects the item carried down: 30,000 rows are listed once, not again per select."""
    async with _optimized_hlo_list() as (app, _pilot, table, items):
        listed = table._listing
        wanted = next(item for item in items[5:] if item in table._shown)
        assert table.select(wanted.name)
        assert table.current is wanted and app.announced == [wanted.name]
        assert table._listing is listed
        assert not table.select("no_such_instruction") and table.current is wanted


@sync
async def test_a_list_asked_for_the_focus_before_its_rows_are_mounted_focuses_them_once_they_are():
    """A session event can sync the screen between a level view's mounting and its list's compose (a
    `serve` tab's place in line came that early): the list takes the focus then, without a crash."""
    from explorer.model.bundle import Bundle

    items = rows(Bundle.open(BUNDLE), "optimized-hlo", "cpu")
    app = App()
    async with app.run_test(size=(100, 20)) as pilot:
        table = ItemTable(COLUMNS["optimized-hlo"], id="items")
        mounting = app.screen.mount(table)
        table.set_items(items)
        table.focus_rows()  # its rows are not composed yet
        await mounting
        await pilot.pause()
        assert app.focused is table.table


@sync
async def test_a_selection_asked_for_before_the_list_has_composed_opens_it_there():
    """The bundle read in the background can reach a level's list between its mount and its compose (the
    app under load, a `--select` from the command line): that selection raised `NoMatches` (the rows
    widget was not there yet) and ended the app; now the list opens on it."""
    from explorer.model.bundle import Bundle

    items = rows(Bundle.open(BUNDLE), "optimized-hlo", "cpu")
    wanted = items[len(items) - 3]
    app = ListApp(items)
    async with app.run_test(size=(100, 20)) as pilot:
        late = ItemTable(COLUMNS["optimized-hlo"], id="late")
        app.mount(late)  # not awaited: its compose has not run
        late.set_items(items)
        assert late.select(wanted.name)
        late.focus_rows()  # what every sync of the explorer asks of its list
        assert not late.drawn
        await pilot.pause()
        assert late.current is wanted
        rows_widget = late.table
        assert rows_widget.scroll_y <= rows_widget.cursor_row < rows_widget.scroll_y + rows_widget.visible_rows
        assert app.is_running
