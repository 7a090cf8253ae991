"""The rows of an ItemTable: a virtual list drawn line by line (Textual's Line API).

A DataTable measures and stores every row it is given: about a second to first
paint at 10k rows, and a refill on every filter keystroke. Here the rows are a
plain list and `render_line` draws only the lines on screen, each cached as a
strip (`textual.cache.LRUCache`) until the cursor, the width, the focus or the
rows change. Its height is known the moment the rows are set, so a jump to a
row scrolls there at once, before any refresh (no "rows not measured yet").

It looks like the DataTable it replaces (same component styles, a cell
padding of one on each side, the header fixed on top, the cursor a full row).
Its columns fit the width it has (`explorer.views.columns`): a cell too long for its
column ends in an ellipsis, a name's in the middle, instead of at the list's edge.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from explorer.views.columns import cut, fit_widths

# Blank cells before and after a cell's text: what the DataTable drew for a column of fixed width.
PAD_LEFT, PAD_RIGHT = 1, 1


class ItemRows(ScrollView, can_focus=True):
    """Rows of cells (each a tuple of `Text`) under a fixed header, with a row cursor."""

    COMPONENT_CLASSES = {"item-rows--header", "item-rows--cursor"}
    DEFAULT_CSS = """
    ItemRows {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .item-rows--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .item-rows--header { background-tint: $foreground 5%; }
        }
        & > .item-rows--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .item-rows--header { background: ansi_bright_blue; color: ansi_default; }
        & > .item-rows--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """
    # Navigation every list has: kept out of the help's key list (system), as the DataTable's were
    # listed after tensorweg's own keys.
    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False, system=True, id="rows.up", tooltip="Previous row"),
        Binding("down", "cursor_down", "Down", show=False, system=True, id="rows.down", tooltip="Next row"),
        Binding("pageup", "page_up", "Page up", show=False, system=True, id="rows.pageup",
                tooltip="A page of rows up"),
        Binding("pagedown", "page_down", "Page down", show=False, system=True, id="rows.pagedown",
                tooltip="A page of rows down"),
        Binding("home", "first", "First", show=False, system=True, id="rows.first", tooltip="The first row"),
        Binding("end", "last", "Last", show=False, system=True, id="rows.last", tooltip="The last row"),
        Binding("enter", "select_cursor", "Select", show=False, system=True, id="rows.select",
                tooltip="Choose the row under the cursor"),
    ]

    cursor_row: reactive[int] = reactive(0, repaint=False, always_update=True)

    class Selected(Message):
        """Enter on the cursor's row."""

        def __init__(self, rows: ItemRows, row: int) -> None:
            super().__init__()
            self.rows = rows
            self.row = row

        @property
        def control(self) -> ItemRows:
            return self.rows

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._titles: tuple[str, ...] = ()
        self._natural: list[int] = []  # each column's widest cell
        self._widths: list[int] = []  # the columns as drawn at the present width
        self._count = 0
        self._cells: Callable[[int], tuple[Text, ...]] = lambda row: ()
        self._version = 0  # bumped when the rows change: cached strips of older rows are stale
        # (row, cursor, width, scroll x, focused, version) -> strip; bounded, a screen's worth many times over
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)
        self.lines_rendered = 0  # rows drawn afresh (not from the cache): what the scale tests count
        self._pinned = -1  # the row a jump put a third down the view, kept there until the reader moves
        self._drawn = True  # the rows last set have been drawn (Textual renders lines only to paint them)

    # --- content ---------------------------------------------------------------

    def set_rows(self, titles: tuple[str, ...], widths: list[int], count: int,
                 cells: Callable[[int], tuple[Text, ...]], cursor: int = 0) -> None:
        """Show `count` rows, row `i` being `cells(i)`, asked for only when it comes on screen."""
        self._titles, self._natural, self._count, self._cells = titles, widths, count, cells
        self._version += 1
        self._strips.clear()
        self._drawn = False
        self._decide_scrollbar()
        self._fit_columns()
        self.set_reactive(ItemRows.cursor_row, self._clamp(cursor))
        self.scroll_to(y=min(self.scroll_y, self.max_scroll_y), animate=False, immediate=True, force=True)
        self._scroll_cursor_visible()
        self.refresh()

    def _decide_scrollbar(self) -> None:
        """The vertical bar shown or not by the rows and the height they get, decided here, not by
        Textual's `auto`: that decides after a layout, so a list built ahead (hidden) got its bar one
        frame after its first visit's (and the rows moved two columns over)."""
        if not self._region()[1]:  # no list laid out yet (the first screen): Textual's own decision
            self.styles.overflow_y = "auto"
            return
        shows = self._count > self.visible_rows
        self.styles.overflow_y = "scroll" if shows else "hidden"
        self.show_vertical_scrollbar = shows  # Textual sets it only when a layout gives a size

    def _fit_columns(self) -> None:
        """The columns for the width the list has now (rows redrawn when they change)."""
        padding = (PAD_LEFT + PAD_RIGHT) * len(self._natural)
        available = self._region()[0] - padding if self.is_mounted else 0
        widths = fit_widths(self._natural, [len(title) for title in self._titles], available) \
            if available > 0 else list(self._natural)
        if widths != self._widths:
            self._widths = widths
            self._version += 1
            self._strips.clear()
        self.virtual_size = Size(sum(widths) + padding, self._count + 1)  # + the header

    @property
    def row_count(self) -> int:
        return self._count

    @property
    def drawn(self) -> bool:
        """Whether the rows last set have been drawn for a frame."""
        return self._drawn

    def _clamp(self, row: int) -> int:
        return max(0, min(row, self._count - 1))

    # (width without a scrollbar, height) of the last list laid out, any list's: every level's list sits
    # in the same place, so a view built ahead (hidden: no size yet) fits its columns, decides its
    # scrollbar and places its selection by it, and its first visit's first frame is the one its layout
    # leaves (the rows were a row off, without their bar and unfitted, and moved a frame later).
    _last_laid_out = (0, 0)

    def _region(self) -> tuple[int, int]:
        """(width, height) the rows have, scrollbar excluded; estimated while not laid out."""
        region = self.scrollable_content_region
        if region.height:
            return region.width, region.height
        width, height = ItemRows._last_laid_out
        bar = self.styles.scrollbar_size_vertical if self.show_vertical_scrollbar else 0
        return max(0, width - bar), height

    @property
    def visible_rows(self) -> int:
        """Rows that fit below the header."""
        return max(1, self._region()[1] - 1)

    # --- cursor ---------------------------------------------------------------

    def move_cursor(self, row: int, scroll: bool = True) -> None:
        self._pinned = -1  # the reader moves: the view follows the cursor from here
        self.cursor_row = self._clamp(row)
        if scroll:
            self._scroll_cursor_visible()

    def watch_cursor_row(self, old: int, new: int) -> None:
        if old != new:
            self.refresh_row(old)
            self.refresh_row(new)

    def refresh_row(self, row: int) -> None:
        y = row - int(self.scroll_y) + 1  # the row's line on screen, below the header
        if 1 <= y < self.size.height:
            # ScrollView's refresh_lines takes the line in the scrolled content and subtracts the
            # scroll itself: given the screen line, a scrolled list redrew the wrong row and the
            # cursor vanished after Down (issue 35).
            self.refresh_lines(row + 1)

    def row_in_view(self, row: int) -> bool:
        """Whether `row` shows below the header as the list is scrolled now; a list not laid out yet
        counts as showing it (its first layout brings the cursor into view, `on_resize`)."""
        top = int(self.scroll_y)
        return not self.size.height or top <= row < top + self.visible_rows

    def scroll_to_row(self, row: int, third: bool = False) -> None:
        """Scroll so `row` shows: a third down the view (`third`), else just into view.

        A jump a third down holds through later layouts (the first one, the lazy side panes
        mounting, the narrow layout): each resize puts the row there again until the reader
        moves the cursor or scrolls. A jump asked for before the list has a height lands
        once it has one.
        """
        self._pinned = row if third else -1
        if third:
            y = max(0, row - self.visible_rows // 3)
        else:
            top = int(self.scroll_y)
            y = row if row < top else (row - self.visible_rows + 1 if row >= top + self.visible_rows else top)
        # Forced: whether a scrollbar shows is settled by the next layout, the new height is known now.
        self.scroll_to(y=y, animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        region = self.scrollable_content_region
        if region.height:
            bar = self.styles.scrollbar_size_vertical if self.show_vertical_scrollbar else 0
            ItemRows._last_laid_out = (region.width + bar, region.height)
        self._decide_scrollbar()
        self._fit_columns()
        if 0 <= self._pinned == self.cursor_row:
            self.scroll_to_row(self._pinned, third=True)
        elif self._count and not self.row_in_view(self.cursor_row):
            self.scroll_to_row(self.cursor_row)  # a smaller terminal keeps the cursor on screen

    def on_mouse_scroll_down(self) -> None:
        self._pinned = -1

    def on_mouse_scroll_up(self) -> None:
        self._pinned = -1

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        self._fit_columns()  # the bar takes its columns from the rows' width, or gives them back
        # Textual moves the scrollbar's thumb only while the bar shows: a jump made before
        # the first layout showed it would leave the thumb at the top.
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def _scroll_cursor_visible(self) -> None:
        if self._count and self.size.height:
            self.scroll_to_row(self.cursor_row)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self.visible_rows)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self.visible_rows)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self._count - 1)

    def action_select_cursor(self) -> None:
        if self._count:
            self.post_message(self.Selected(self, self.cursor_row))

    def on_click(self, event) -> None:
        row = event.y - 1 + int(self.scroll_y)
        if event.y >= 1 and 0 <= row < self._count:
            if row == self.cursor_row and event.chain > 1:
                self.action_select_cursor()
            self.move_cursor(row)

    # --- drawing ----------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # theme or focus change: the cached rows carry the old colours

    def render_line(self, y: int) -> Strip:
        self._drawn = True
        width = self.size.width
        scroll_x, scroll_y = int(self.scroll_x), int(self.scroll_y)
        row = -1 if y == 0 else y - 1 + scroll_y  # the header stays on top
        if row >= self._count:
            return Strip.blank(width, self.rich_style)
        cursor = row == self.cursor_row
        key = (row, cursor, width, scroll_x, self.has_focus, self._version)
        strip = self._strips.get(key)
        if strip is None:
            self.lines_rendered += 1
            strip = self._strips[key] = self._draw(row, cursor, width, scroll_x)
        return strip

    def _draw(self, row: int, cursor: bool, width: int, scroll_x: int) -> Strip:
        base = self.rich_style
        if row < 0:
            cells: tuple[Text, ...] = tuple(Text(title) for title in self._titles)
            pre, post = self.get_component_styles("item-rows--header").rich_style, Style.null()
        else:
            cells = self._cells(row)
            pre, post = base, Style.null()
            if cursor:
                cursor_style = self.get_component_rich_style("item-rows--cursor")
                pre = base + cursor_style
                post = Style.from_color(color=cursor_style.color)  # the cursor's colour wins over a cell's
        segments: list[Segment] = []
        console = self.app.console
        # Each cell carries its place as meta (clicks read it), which also keeps cells apart
        # as the DataTable drew them.
        for column, (cell, cell_width) in enumerate(zip(cells, self._widths, strict=False)):
            if cell.cell_len > cell_width:
                cell = _cut(cell, cell_width, middle=column == 0)
            padded = Text(" " * PAD_LEFT)
            padded.append_text(cell)
            padded.append(" " * (cell_width - cell.cell_len + PAD_RIGHT))
            where = Style.from_meta({"row": row, "column": column})
            segments.extend(Segment.apply_style(padded.render(console), pre + where, post))
        table_width = sum(self._widths) + (PAD_LEFT + PAD_RIGHT) * len(self._widths)
        if width > table_width:
            outside = Style.from_meta({"row": row, "column": 0, "out_of_bounds": True})
            segments.append(Segment(" " * (width - table_width), pre + outside))
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.adjust_cell_length(width, base).simplify()


def _cut(cell: Text, width: int, middle: bool) -> Text:
    """`cell` in `width` cells with an ellipsis; a name (`middle`) keeps its start and its end."""
    if cell.plain.isascii():
        return Text(cut(cell.plain, width, middle), style=cell.style)
    cell = cell.copy()
    cell.truncate(width, overflow="ellipsis")  # wide characters: cut by cells, at the end
    return cell
