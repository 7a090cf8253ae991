"""The main list of a level: a DataTable with a `/` filter.

Rows are built once per level (`LevelItem`s); filtering is a lowercase
substring match over prebuilt `search_text`, then a bulk `add_rows`, which
keeps ResNet-sized modules (~3,000 instructions) responsive.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Input

from explorer.view import CREATED_BY_XLA, LevelItem


class _Rows(DataTable):
    """The DataTable of an ItemTable; tells it about a cursor move at once.

    DataTable announces a move with a message, which reaches the screen only
    after Textual has painted the moved cursor: the panes and code view then
    followed in a second frame, a full frame later on a ResNet-sized module.
    Told while the key is handled, the screen draws the move and all it
    changes in one frame.
    """

    def watch_cursor_coordinate(self, old_coordinate: Coordinate, new_coordinate: Coordinate) -> None:
        super().watch_cursor_coordinate(old_coordinate, new_coordinate)
        if old_coordinate.row != new_coordinate.row and isinstance(self.parent, ItemTable):
            self.parent._cursor_moved(new_coordinate.row)


class ItemTable(Vertical):
    """Filter input (hidden until `/`) over a cursor-row DataTable of `LevelItem`s."""

    DEFAULT_CSS = """
    ItemTable { height: 1fr; }
    ItemTable > Input { display: none; height: 3; }
    ItemTable.-filtering > Input { display: block; }
    ItemTable > DataTable { height: 1fr; }
    """

    class Highlighted(Message):
        """The cursor moved to `item` (None when the list is empty)."""

        def __init__(self, table: "ItemTable", item: LevelItem | None) -> None:
            super().__init__()
            self.table = table
            self.item = item

    class Chosen(Message):
        """Enter was pressed on `item`."""

        def __init__(self, table: "ItemTable", item: LevelItem) -> None:
            super().__init__()
            self.table = table
            self.item = item

    def __init__(self, columns: tuple[str, ...], *, id: str | None = None,
                 on_highlighted: Callable[[LevelItem | None], None] | None = None) -> None:
        """`on_highlighted(item)`, when given, is called directly on every cursor move instead
        of posting `Highlighted`, so its changes are drawn in the same frame as the cursor."""
        super().__init__(id=id)
        self._on_highlighted = on_highlighted
        self._announced_row = -1  # the row a cursor move was last announced for
        self._filling = False  # rows being replaced: the table's cursor moves are not the reader's
        self._columns = columns
        self._created_text = CREATED_BY_XLA  # what the last column says for an item no layer owns
        self._items: tuple[LevelItem, ...] = ()
        self._shown: list[LevelItem] = []
        self._created: set[str] = set()
        self._jumped_to = -1  # the row `select` put a third down the view
        self.scrolls_pending = 0  # jumps scheduled for after the next refresh (tests wait for 0)
        self.filter_text = ""

    def compose(self) -> ComposeResult:
        # No blinking cursor: snapshots and screen readers both prefer a steady one.
        yield Input(placeholder="filter (substring of name, opcode, shape, op_name) - Esc closes", id="filter")
        table: DataTable = _Rows(cursor_type="row", zebra_stripes=False, id="rows")
        yield table

    def on_mount(self) -> None:
        self.table.add_columns(*self._columns)
        self.query_one("#filter", Input).cursor_blink = False

    def _set_columns(self, rows: list[tuple]) -> None:
        """Columns as wide as their widest cell, measured here rather than by the DataTable.

        The DataTable sizes auto-width columns on its next idle, but rows arrive
        after the first frame (the bundle is read in a worker) and a header
        rendered in between would stay cached at its old width; fixed widths
        leave nothing to catch up on.
        """
        widths = [cell_len(title) for title in self._columns]
        for row in rows:
            for index, cell in enumerate(row):
                width = cell_len(cell.plain if isinstance(cell, Text) else cell)
                if width > widths[index]:
                    widths[index] = width
        table = self.table
        table.clear(columns=True)
        for title, width in zip(self._columns, widths):
            table.add_column(title, width=width)

    @property
    def table(self) -> DataTable:
        return self.query_one("#rows", DataTable)

    @property
    def items(self) -> tuple[LevelItem, ...]:
        return self._items

    @property
    def shown(self) -> list[LevelItem]:
        return self._shown

    def set_titles(self, columns: tuple[str, ...], created_text: str) -> None:
        """The column titles and the "created by XLA" cell in the app's language (rows refilled)."""
        if (columns, created_text) == (self._columns, self._created_text):
            return
        self._columns, self._created_text = columns, created_text
        if self.is_mounted:
            self._fill()  # the cursor goes to the top: the caller selects again

    def set_items(self, items: tuple[LevelItem, ...], created_by_compiler: set[str] = frozenset()) -> None:
        self._items = items
        self._created = set(created_by_compiler)
        self._fill()

    def _row(self, item: LevelItem) -> tuple:
        # A str cell would be read as markup by the DataTable; names from the model are text.
        cells = tuple(Text(cell) if isinstance(cell, str) else cell for cell in item.cells)
        if item.name in self._created:
            return (*cells[:-1], Text(self._created_text, style="italic"))
        return cells

    def _fill(self) -> None:
        needle = self.filter_text.lower()
        self._shown = [i for i in self._items if needle in i.search_text] if needle else list(self._items)
        rows = [self._row(i) for i in self._shown]
        self._filling = True
        try:
            self._set_columns(rows)
            self.table.add_rows(rows)
        finally:
            self._filling = False
        self._announce(self.current)

    @property
    def current(self) -> LevelItem | None:
        row = self.table.cursor_row
        return self._shown[row] if 0 <= row < len(self._shown) else None

    def select(self, name: str) -> bool:
        """Move the cursor to the item called `name`, clearing a filter that hides it."""
        for attempt in range(2):
            for row, item in enumerate(self._shown):
                if item.name == name:
                    self.table.move_cursor(row=row, scroll=False)
                    # After the table has measured new rows: a jump lands a third down the view.
                    self._jumped_to = row
                    self._schedule_scroll(row)
                    self._announce(item)
                    return True
            if attempt == 0 and self.filter_text:
                self.apply_filter("")
        return False

    def on_resize(self) -> None:
        # The lazy side panes and the narrow layout change the height after a jump:
        # keep the jumped-to row a third down until the reader moves the cursor.
        if self._jumped_to >= 0 and self._jumped_to == self.table.cursor_row:
            self._schedule_scroll(self._jumped_to)

    def _schedule_scroll(self, row: int, attempt: int = 0) -> None:
        self.scrolls_pending += 1
        self.table.call_after_refresh(self._scroll_to_row, row, attempt)

    def _scroll_to_row(self, row: int, attempt: int = 0) -> None:
        self.scrolls_pending -= 1
        table = self.table
        visible = max(1, table.scrollable_content_region.height - 1)  # less the header row
        y = max(0, row - visible // 3)
        if y > table.max_scroll_y and attempt < 5:
            # New rows not measured yet: a scroll now would be clamped to the top. Try after the next refresh.
            self._schedule_scroll(row, attempt + 1)
            return
        table.scroll_to(y=y, animate=False, immediate=True)
        table.refresh()  # a scroll from inside a refresh callback is not repainted on its own

    def apply_filter(self, text: str) -> None:
        self.filter_text = text
        self._fill()

    def open_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one("#filter", Input).focus()

    def close_filter(self) -> None:
        self.remove_class("-filtering")
        self.table.focus()

    @property
    def filtering(self) -> bool:
        return self.has_class("-filtering")

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.apply_filter(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close_filter()

    def _announce(self, item: LevelItem | None) -> None:
        if self._on_highlighted is not None:
            self._on_highlighted(item)
        else:
            self.post_message(self.Highlighted(self, item))

    def _cursor_moved(self, row: int) -> None:
        if self._filling:
            return
        self._announced_row = row
        self._announce(self.current)

    @on(DataTable.RowHighlighted, "#rows")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.cursor_row != self._announced_row:  # a highlight without a cursor move (rows refilled)
            self._announce(self.current)

    @on(DataTable.RowSelected, "#rows")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if (item := self.current) is not None:
            self.post_message(self.Chosen(self, item))
