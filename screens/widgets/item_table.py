"""The main list of a level: a virtual list of rows with a `/` filter and folds.

Rows are built once per level (`LevelItem`s, with their `RowGroup`s on HLO
levels); the list draws only the rows on screen (`ItemRows`), so a 30,000-row
module opens, moves and filters as fast as a small one. Filtering is a
lowercase substring match over prebuilt `search_text`, narrowed from the last
result while the filter text grows. A group (the entry's parameters, its
constants, a called computation) is one header row that Enter or space folds
and unfolds; a selection inside a folded group unfolds it. A group headed by an
item (a container layer: `RowGroup.head`) has that item as its header row, which
stays selectable (Enter goes down from it; space folds), its members indented
below it; groups may sit inside groups (`RowGroup.within`).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input

from explorer.safe_text import visible
from explorer.views.items import CREATED_BY_XLA, LevelItem, RowGroup

from screens.bindings import keyed
from screens.widgets.item_rows import ItemRows

FOLDED, UNFOLDED = "▸ ", "▾ "  # a group header's mark: folded, unfolded
INDENT = "  "  # per container holding a row, and the mark's place on rows heading nothing


class _Rows(ItemRows):
    """The rows of an ItemTable; tells it about a cursor move at once.

    Announced while the key is handled (not by a message, which reaches the
    screen only after Textual has painted the moved cursor), the screen draws
    the move and all it changes in one frame.
    """

    def watch_cursor_row(self, old: int, new: int) -> None:
        super().watch_cursor_row(old, new)
        if old != new and isinstance(self.parent, ItemTable):
            self.parent.cursor_moved(new)


class ItemTable(Vertical):
    """Filter input (hidden until `/`) over a cursor-row DataTable of `LevelItem`s."""

    DEFAULT_CSS = """
    ItemTable { height: 1fr; }
    ItemTable > Input { display: none; height: 3; }
    ItemTable.-filtering > Input { display: block; }
    ItemTable > ItemRows { height: 1fr; }
    """
    BINDINGS = [
        keyed("space", "toggle_group", "items.fold", show=False),
    ]

    class Highlighted(Message):
        """The cursor moved to `item` (None when the list is empty or on a group's header)."""

        def __init__(self, table: ItemTable, item: LevelItem | None) -> None:
            super().__init__()
            self.table = table
            self.item = item

    class Chosen(Message):
        """Enter was pressed on `item`."""

        def __init__(self, table: ItemTable, item: LevelItem) -> None:
            super().__init__()
            self.table = table
            self.item = item

    def __init__(self, columns: tuple[str, ...], *, id: str | None = None,
                 on_highlighted: Callable[[LevelItem | None], None] | None = None) -> None:
        """`on_highlighted(item)`, when given, is called directly on every cursor move instead
        of posting `Highlighted`, so its changes are drawn in the same frame as the cursor."""
        super().__init__(id=id)
        self._on_highlighted = on_highlighted
        self._filling = False  # rows being replaced: the cursor's moves are not the reader's
        self._columns = columns
        self._widths: list[int] = [cell_len(title) for title in columns]
        self._created_text = CREATED_BY_XLA  # what the last column says for an item no layer owns
        self._items: tuple[LevelItem, ...] = ()
        self._by_name: dict[str, LevelItem] = {}
        self._groups: dict[str, RowGroup] = {}
        self._folded: set[str] = set()
        self._heads: dict[str, str] = {}  # item name -> the group it heads
        self._runs: list[tuple[str, int, int]] = []  # (group, start, end) of each run of items (`_group_runs`)
        self._listing: list[LevelItem | RowGroup] = []  # what the rows show, headers included
        self._shown: list[LevelItem] = []
        self._matches: tuple[str, list[LevelItem]] = ("", [])  # the last filter and what it kept
        self._created: frozenset[str] = frozenset()
        self._rows_ready = False  # the rows widget is there to show rows in (`on_mount`)
        self._focus_when_ready = False  # focus asked for before the rows were mounted (`focus_rows`)
        self._opens_on: LevelItem | RowGroup | None = None  # the cursor's entry asked for before that
        self.filter_text = ""

    def compose(self) -> ComposeResult:
        # The filter's input is mounted on the first `/` (`_filter_box`): a first screen without it
        # styles and lays out one widget and its sheet less before the rows show.
        yield _Rows(id="rows")

    def on_mount(self) -> None:
        # Textual marks a widget mounted only after its mount handler: from here the rows may be shown
        # (rows set while it mounted, by a sync between its compose and its mount, are shown now).
        self._rows_ready = True
        wanted = self._opens_on  # a selection asked for while it mounted (a sync as the bundle came in)
        row = self._row_of(wanted) if wanted is not None else self._first_item_row()
        self._show(row)
        if wanted is not None:
            self.table.scroll_to_row(row, third=True)
        if self._focus_when_ready:
            self.table.focus()

    def focus_rows(self) -> None:
        """Focus the rows; asked before they are mounted (a session event synced the screen between this
        table's mounting and its compose), they take the focus once they are."""
        if self._rows_ready:
            self.table.focus()
        else:
            self._focus_when_ready = True

    def _filter_box(self) -> Input:
        """The filter's input, mounted above the rows the first time it is asked for."""
        found = self.query("#filter")
        if found:
            return found.first(Input)
        box = Input(placeholder="filter (substring of name, opcode, shape, op_name) - Esc closes", id="filter")
        box.cursor_blink = False  # no blinking cursor: snapshots and screen readers both prefer a steady one
        self.mount(box, before=self.table)
        return box

    @property
    def table(self) -> ItemRows:
        return self.query_one("#rows", ItemRows)

    @property
    def items(self) -> tuple[LevelItem, ...]:
        return self._items

    @property
    def shown(self) -> list[LevelItem]:
        """The items listed now: the filter's matches, else every item outside a folded group."""
        return self._shown

    @property
    def groups(self) -> dict[str, RowGroup]:
        return self._groups

    def folded(self, key: str) -> bool:
        return key in self._folded

    def set_titles(self, columns: tuple[str, ...], created_text: str) -> None:
        """The column titles and the "created by XLA" cell in the app's language (rows refilled)."""
        if (columns, created_text) == (self._columns, self._created_text):
            return
        self._columns, self._created_text = columns, created_text
        self._widths = self._measure()
        if self._rows_ready:
            self._fill()  # the cursor goes to the top: the caller selects again

    def set_items(self, items: tuple[LevelItem, ...], created_by_compiler: set[str] = frozenset(),
                  groups: dict[str, RowGroup] | None = None, keep_folds: bool = False) -> None:
        """Show `items`; `keep_folds` keeps the groups the user folded or opened (the same rows reworded)."""
        self._items = items
        self._by_name = {item.name: item for item in reversed(items)}  # the first of a name, as listed
        self._created = frozenset(created_by_compiler)
        self._groups = dict(groups or {})
        self._heads = {group.head: key for key, group in self._groups.items() if group.head}
        self._runs = self._group_runs()  # folding and unfolding relist by runs: a visit lists 30,000 rows often
        if keep_folds:
            self._folded &= set(self._groups)
        else:
            self._folded = {key for key, group in self._groups.items() if group.folded}
        self._matches = ("", list(items))
        self._widths = self._measure()
        self._fill()

    def _measure(self) -> list[int]:
        """Columns as wide as their widest cell, over every item (stable while filtering and folding)."""
        widths = [cell_len(title) for title in self._columns]
        last = len(widths) - 1
        rows = [(self._first_cell(item), *item.cells[1:]) for item in self._items] + [
            (FOLDED + group.cells[0], *group.cells[1:]) for group in self._groups.values() if not group.head]
        if self._created:
            rows.append(("",) * last + (self._created_text,))
        for cells in rows:
            for index, cell in enumerate(cells):
                # An ASCII control character's stand-in is one cell too (explorer.safe_text).
                width = len(cell) if cell.isascii() else cell_len(visible(cell))
                if width > widths[index]:
                    widths[index] = width
        return widths

    # --- what the rows show --------------------------------------------------------

    def _listed(self) -> list[LevelItem | RowGroup]:
        if self.filter_text:
            return list(self._filtered())
        listing: list[LevelItem | RowGroup] = []
        groups, items = self._groups, self._items
        for key, start, end in self._runs:  # asked once per run of a group's items, not for each of 30,000 rows
            if key and not groups[key].head and self._open(groups[key].within):
                listing.append(groups[key])
            if self._open(key):
                listing.extend(items[start:end])
        return listing

    def _group_runs(self) -> list[tuple[str, int, int]]:
        """(group, start, end) for each run of consecutive items in one group ("": none, the top)."""
        runs: list[tuple[str, int, int]] = []
        groups, group, start = self._groups, "", 0
        for index, item in enumerate(self._items):
            key = item.group if item.group in groups else ""  # groups not given: a flat list
            if key != group:
                if index > start:
                    runs.append((group, start, index))
                group, start = key, index
        if len(self._items) > start:
            runs.append((group, start, len(self._items)))
        return runs

    def _open(self, key: str) -> bool:
        """Neither the group `key` nor any group it is inside is folded ("" is the top: open)."""
        for _ in range(len(self._groups) + 1):  # bounded: `within` never loops, but data is data
            if not key:
                return True
            if key in self._folded:
                return False
            key = self._groups[key].within if key in self._groups else ""
        return True

    def _enclosing(self, key: str) -> list[str]:
        """`key` and every group it is inside, innermost first."""
        found: list[str] = []
        while key in self._groups and key not in found:
            found.append(key)
            key = self._groups[key].within
        return found

    def _first_cell(self, item: LevelItem) -> str:
        """The name cell: indented by its containers, marked open or folded where it heads a group."""
        if not self._heads:
            return item.cells[0]
        key = self._heads.get(item.name)
        mark = (FOLDED if key in self._folded else UNFOLDED) if key else INDENT
        return INDENT * item.depth + mark + item.cells[0]

    def _filtered(self) -> list[LevelItem]:
        """The items matching the filter, narrowed from the last match while the text grows."""
        needle = self.filter_text.lower()
        last, kept = self._matches
        pool = kept if last and needle.startswith(last) else self._items
        found = [item for item in pool if needle in item.search_text]
        self._matches = (needle, found)
        return found

    def _cells(self, row: int) -> tuple[Text, ...]:
        entry = self._listing[row]
        if isinstance(entry, RowGroup):
            mark = FOLDED if entry.key in self._folded else UNFOLDED
            first, *rest = entry.cells
            return (Text(visible(mark + first), style="bold"), *(Text(visible(cell), style="italic") for cell in rest))
        # Names from the model are text, never markup, their control characters shown (as measured).
        cells = (Text(visible(self._first_cell(entry)), style="bold" if entry.name in self._heads else ""),
                 *(Text(visible(cell)) for cell in entry.cells[1:]))
        if entry.name in self._created:
            return (*cells[:-1], Text(self._created_text, style="italic"))
        return cells

    def _fill(self, cursor_on: LevelItem | RowGroup | None = None) -> None:
        """List the rows again, the cursor on `cursor_on` (else the first item)."""
        self._listing = self._listed()
        self._shown = [entry for entry in self._listing if isinstance(entry, LevelItem)]
        self._opens_on = cursor_on
        self._show(self._row_of(cursor_on) if cursor_on is not None else self._first_item_row())

    def _show(self, cursor: int) -> None:
        if not self._rows_ready:
            return
        self._filling = True
        try:
            self.table.set_rows(self._columns, self._widths, len(self._listing), self._cells, cursor)
        finally:
            self._filling = False
        self._announce(self.current)

    def _first_item_row(self) -> int:
        """The list opens on the program's work, past the folded parameters and constants."""
        return next((row for row, entry in enumerate(self._listing) if isinstance(entry, LevelItem)), 0)

    def _row_of(self, wanted: LevelItem | RowGroup) -> int:
        return next((row for row, entry in enumerate(self._listing) if entry is wanted), 0)

    @property
    def current(self) -> LevelItem | None:
        entry = self._at_cursor()
        return entry if isinstance(entry, LevelItem) else None

    def _at_cursor(self) -> LevelItem | RowGroup | None:
        row = self.table.cursor_row if self._rows_ready else 0
        return self._listing[row] if 0 <= row < len(self._listing) else None

    def select(self, name: str) -> bool:
        """Move the cursor to the item called `name`, clearing a filter that hides it and
        unfolding its group; the row lands a third down the view."""
        item = self._by_name.get(name)
        if item is None:
            return False
        hidden = bool(self.filter_text) and item not in self._shown
        if hidden:
            self.filter_text = ""
            self._filter_box().value = ""
        folded = self._folded.intersection(self._enclosing(item.group))
        if hidden or folded or not self._rows_ready:
            self._folded.difference_update(folded)
            self._fill(item)
            row = self._row_of(item)
        else:  # the same rows: only the cursor moves (a level's first visit lists 30,000 rows once, not twice)
            row = self._row_of(item)
            if row == self.table.cursor_row and self.table.row_in_view(row):
                # Already there: a sync repeating the session's selection moves nothing (it jumped the
                # list a third down only when that sync came before the list's first layout).
                return True
            self._move_to(row)
        if self._rows_ready:  # else the rows widget is not there yet: `on_mount` opens the list on it
            self.table.scroll_to_row(row, third=True)  # held there through later layouts
        return True

    def _move_to(self, row: int) -> None:
        """The cursor on `row` of the rows listed, announced as a new listing's is."""
        self._filling = True
        try:
            self.table.move_cursor(row, scroll=False)
        finally:
            self._filling = False
        self._announce(self.current)

    # --- folding ---------------------------------------------------------------

    def action_toggle_group(self) -> None:
        """Fold or unfold the group at the cursor (on its header or one of its rows)."""
        entry = self._at_cursor()
        if isinstance(entry, RowGroup):
            key = entry.key
        else:  # an item heading a group folds its own; any other item its enclosing group
            key = self._heads.get(entry.name) or entry.group if entry is not None else ""
        if key and not self.filter_text:
            self.toggle_group(key)

    def toggle_group(self, key: str) -> None:
        """Fold or unfold `key`; the cursor stays on the group's header."""
        self._folded.symmetric_difference_update({key})
        head = self._groups[key].head
        self._fill(next((item for item in self._items if item.name == head), None) if head else self._groups[key])
        self.table.scroll_to_row(self.table.cursor_row)

    # --- filter ---------------------------------------------------------------

    def apply_filter(self, text: str) -> None:
        kept = self.current
        self.filter_text = text
        self._fill(kept if kept is not None and (not text or text.lower() in kept.search_text) else None)

    def open_filter(self) -> None:
        self.add_class("-filtering")
        self._filter_box().focus()

    def close_filter(self) -> None:
        self.remove_class("-filtering")
        self.table.focus()

    @property
    def drawn(self) -> bool:
        """Whether the rows last set have been drawn for a frame (not before the rows widget is there)."""
        return self._rows_ready and self.table.drawn

    @property
    def filtering(self) -> bool:
        return self.has_class("-filtering")

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value != self.filter_text:
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

    def cursor_moved(self, row: int) -> None:
        if self._filling:
            return
        self._announce(self.current)

    @on(ItemRows.Selected, "#rows")
    def _row_selected(self, event: ItemRows.Selected) -> None:
        event.stop()
        entry = self._at_cursor()
        if isinstance(entry, RowGroup):
            self.toggle_group(entry.key)
        elif entry is not None:
            self.post_message(self.Chosen(self, entry))
