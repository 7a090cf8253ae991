"""The text of a side pane: a fixed-size box that repaints new text without a layout pass.

A `Static.update` re-lays out the whole screen (the text might have grown), and
a scrolling box around it shows or hides its scrollbar, another layout pass.
On a ResNet-sized module those passes and the repaints they cause were most of
a key press, while the side panes change on nearly every cursor move. This
widget keeps its size whatever it shows: it wraps the text to its width itself,
draws the visible window line by line, scrolls with the mouse wheel and draws
its own scrollbar in the columns Textual's would take, so new text only
repaints the pane.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from explorer.safe_text import visible


def _same(a: RenderableType, b: RenderableType) -> bool:
    """Equal content, not just equal objects: a rebuilt Text of the same lines and styles is the same."""
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.spans == b.spans and a.style == b.style
    return a is b


class PaneText(Widget):
    """Shows one Rich renderable (Text, a course text's Group); `show(content)` only repaints.

    Strings become `Text`, so brackets in compiler output (`[fusion]`, shapes
    such as `f32[8]`) are never read as markup.
    """

    COMPONENT_CLASSES = {"pane-text--scrollbar", "pane-text--scrollbar-thumb"}
    DEFAULT_CSS = """
    PaneText { height: 1fr; }
    PaneText > .pane-text--scrollbar { background: $scrollbar-background; }
    PaneText > .pane-text--scrollbar-thumb { background: $scrollbar; }
    """

    def __init__(self, content: RenderableType | str = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._content: RenderableType = Text(visible(content, multiline=True)) if isinstance(content, str) else content
        self._top = 0  # first shown line
        self._wrapped: tuple[tuple[int, int], list[Strip]] | None = None  # (width, height) -> lines
        # Wrapped lines of recent contents by identity: explanations are cached drawn texts,
        # and wrapping them again on every return to an opcode costs a frame.
        self._recent: dict[tuple[int, int, int], tuple[RenderableType, list[Strip]]] = {}
        self._base_style: Style | None = None  # the widget's style, looked up once per theme

    @property
    def content(self) -> RenderableType:
        """What the pane shows."""
        return self._content

    @property
    def plain(self) -> str:
        """The text without styles as wrapped to the pane, every line (scrolled out of view or not)."""
        return "\n".join(strip.text.rstrip() for strip in self._lines())

    def show(self, content: RenderableType | str) -> None:
        """Show `content` from its first line; nothing happens when it is what the pane shows."""
        if isinstance(content, str):  # the panes' texts carry names from the model: shown, never obeyed
            content = Text(visible(content, multiline=True))
        if _same(content, self._content):
            return
        self._content = content
        self._top = 0
        self._wrapped = None
        self.refresh()

    # --- drawing --------------------------------------------------------------

    @property
    def _scrollbar_width(self) -> int:
        return self.styles.scrollbar_size_vertical

    @property
    def _style(self) -> Style:
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def _wrap(self, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        lines = console.render_lines(self._content, options, style=self._style, pad=False)
        return [Strip(line) for line in lines]

    def _lines(self) -> list[Strip]:
        """The content wrapped to the width left beside the scrollbar, when it needs one."""
        width, height = self.size
        if self._wrapped is None or self._wrapped[0] != (width, height):
            key = (id(self._content), width, height)
            recent = self._recent.get(key)
            if recent is not None and recent[0] is self._content:
                lines = recent[1]
            else:
                lines = self._wrap(width)
                if len(lines) > height > 0:
                    lines = self._wrap(width - self._scrollbar_width)
                if len(self._recent) >= 32:
                    self._recent.pop(next(iter(self._recent)))
                self._recent[key] = (self._content, lines)
            self._wrapped = ((width, height), lines)
        return self._wrapped[1]

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        lines = self._lines()
        overflows = len(lines) > height > 0
        text_width = width - self._scrollbar_width if overflows else width
        index = self._top + y
        line = lines[index] if index < len(lines) else Strip.blank(0)
        # Every segment needs a style: Textual's NO_COLOR filter reads each one.
        line = line.crop_extend(0, text_width, self._style).apply_style(self._style)
        line = self._selected(line, index).apply_offsets(0, index)  # where the mouse selects text
        if not overflows:
            return line
        return Strip.join([line, self._scrollbar_cell(y, height, len(lines))])

    def _scrollbar_cell(self, y: int, height: int, total: int) -> Strip:
        """Row `y` of a scrollbar for `height` of `total` lines: track, or thumb where the view is."""
        thumb_size = max(1, round(height * height / total))
        thumb_start = min(height - thumb_size, round(self._top * height / total))
        component = "pane-text--scrollbar-thumb" if thumb_start <= y < thumb_start + thumb_size \
            else "pane-text--scrollbar"
        style: Style = self.get_component_rich_style(component)
        return Strip([Segment(" " * self._scrollbar_width, style)], self._scrollbar_width)

    # --- selecting and copying ---------------------------------------------
    # Textual's own mechanism: the mouse selects over the lines' offsets (each line's `offset` meta is
    # its place in the wrapped text), Ctrl+C (the app's copy key) asks `get_selection`.

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the text as wrapped in the pane."""
        return selection.extract(self.plain), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _selected(self, line: Strip, index: int) -> Strip:
        """`line` (number `index` of the wrapped text) with the selected part in the selection's style."""
        selection = self.text_selection
        span = selection.get_span(index) if selection is not None else None
        if span is None:
            return line
        start, end = span
        end = line.cell_length if end == -1 else min(end, line.cell_length)
        if start >= end:
            return line
        style = self.screen.get_component_rich_style("screen--selection")
        before, chosen, after = line.divide([start, end, line.cell_length])
        return Strip.join([before, chosen.apply_style(style), after])

    # --- scrolling ----------------------------------------------------------

    def scroll_lines(self, delta: int) -> bool:
        """Move the view `delta` lines; False when it is already at that end."""
        top = max(0, min(self._top + delta, len(self._lines()) - self.size.height))
        if top == self._top:
            return False
        self._top = top
        self.refresh()
        return True

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self.scroll_lines(1):
            event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.scroll_lines(-1):
            event.stop()

    # --- cached lines follow size and theme ------------------------------------

    def on_resize(self) -> None:
        self._wrapped = None
        self._top = max(0, min(self._top, len(self._lines()) - self.size.height))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # Theme or class change: the wrapped lines carry the old colours.
        self._wrapped = self._base_style = None
        self._recent.clear()
