"""A read-only code view: highlighted lazily, drawn as a window around the selection.

Long lines (HLO with its metadata, LLVM IR) are not cut: the view scrolls
sideways (left/right, Home), the line numbers staying put, and an ellipsis
at either edge says there is more that way.

Rich's `Syntax` would re-lex a 3,000-line module on every selection change;
here HLO (a line-oriented lexer) is lexed one line at a time as lines come
into view, and each refresh only slices the visible window, so opening a
ResNet-sized module and moving through its instructions stay instant.
Pygments is imported on the first highlighted line, not with the app, and
not in the frame that first shows code (often the one with the rows): that
frame draws the lines plain, the next one highlights them.

The code comes from a bundle (untrusted text): `set_code` shows its control characters as
stand-ins (`explorer.safe_text.visible`) before anything measures or lexes it. Rich drops BEL, BS,
VT, FF and CR from a `Text`, so a line with one of them would no longer be as long as the line it
was built from (issue 36: one BEL in an `op_name` ended the app).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from explorer.safe_text import visible

from screens.background import start_daemon

# Pygments lexer names per kind of code: llvm for IR, nasm for x86 assembly, Pygments' own PTX
# lexer; HLO and SASS have lexers of ours (screens/widgets/hlo_lexer.py, sass_lexer.py).
LEXERS = {"hlo": "hlo", "llvm": "llvm", "asm": "nasm", "ptx": "ptx", "text": "text"}


@lru_cache(maxsize=8)
def _lexer(language: str):
    from pygments.lexers import get_lexer_by_name  # noqa: PLC0415 (lexers load on first use)
    from pygments.util import ClassNotFound  # noqa: PLC0415 (kept off the first frame)

    if language == "hlo":
        from screens.widgets.hlo_lexer import HloLexer  # noqa: PLC0415 (built on Pygments: loads on first use)

        return HloLexer()
    if language == "sass":
        from screens.widgets.sass_lexer import SassLexer  # noqa: PLC0415 (built on Pygments: loads on first use)

        return SassLexer()
    try:
        return get_lexer_by_name(LEXERS.get(language, "text"))
    except ClassNotFound:
        return get_lexer_by_name("text")


def _pygments_loaded() -> bool:
    """Whether a lexer was built (Pygments imported): until then code is drawn plain."""
    return _lexer.cache_info().currsize > 0


@lru_cache(maxsize=1)
def _token_styles() -> dict:
    return {}


def _style(token_type) -> Style:
    styles = _token_styles()
    style = styles.get(token_type)
    if style is None:
        from rich.syntax import Syntax  # noqa: PLC0415 (kept off the first frame)

        full = Syntax.get_theme("ansi_dark").get_style_for_token(token_type)
        style = styles[token_type] = Style(color=full.color, bold=full.bold, italic=full.italic)
    return style


def _highlighted(code: str, language: str) -> Text:
    """`code` lexed. Colours come from Rich's ANSI theme (foreground only), so they follow the
    terminal's own palette, work in 256 colours and vanish under NO_COLOR; token backgrounds are
    dropped so the widget's theme background shows."""
    text = Text(no_wrap=True, end="")
    for token_type, value in _lexer(language).get_tokens(code):
        text.append(value, _style(token_type))
    return text


def highlight_line(line: str, language: str) -> Text:
    """One line on its own (no lexer of a recorded code carries state across lines: tests/test_screens_widgets.py)."""
    text = _highlighted(line, language)
    if text.plain.endswith("\n") and not line.endswith("\n"):
        text.right_crop(1)  # the newline Pygments adds
    return text


@dataclass(frozen=True)
class PreparedCode:
    """Code as the view draws it: its lines with stand-ins for control characters, and the longest."""

    lines: tuple[str, ...]
    longest: int  # cells of the longest line, to bound sideways scrolling


@lru_cache(maxsize=4)
def prepared_code(code: str) -> PreparedCode:
    """`code` made safe and split, once per text: a 30,000-instruction module takes tens of
    milliseconds, so a level view prepares its module on a thread ahead of its first visit
    (`prepare_ahead`) and the visit finds it here."""
    code = visible(code.rstrip(), multiline=True)  # one stand-in per control character: lengths hold
    lines = tuple(code.split("\n")) if code else ()
    return PreparedCode(lines, max(map(len, lines), default=0))


def prepare_ahead(code: str) -> None:
    """Prepare `code` on a daemon thread (the UI thread finds it cached, or prepares it itself)."""
    start_daemon(lambda: prepared_code(code), "prepare-code")


def warm_up_renderers() -> None:
    """Import what a selection's code renders with (Pygments): called on a worker thread, so the
    first code shown does not pay for it on the UI thread."""
    highlight_line("", "hlo")


class CodeView(Widget, can_focus=True):
    """Code with line numbers; `mark(lines, focus)` highlights the selected item's lines."""

    COMPONENT_CLASSES = {"code-view--gutter", "code-view--marked"}
    DEFAULT_CSS = """
    CodeView { height: 1fr; background: $surface; text-wrap: nowrap; text-overflow: ellipsis; }
    CodeView > .code-view--gutter { color: $text-muted; }
    CodeView > .code-view--marked { background: $primary 45%; text-style: bold; }
    """
    BINDINGS = [
        Binding("down,j", "scroll_lines(1)", "Down", show=False, id="code.down", tooltip="Scroll the code down"),
        Binding("up,k", "scroll_lines(-1)", "Up", show=False, id="code.up", tooltip="Scroll the code up"),
        Binding("pagedown", "scroll_lines(20)", "Page down", show=False, id="code.pagedown",
                tooltip="Scroll the code a page down"),
        Binding("pageup", "scroll_lines(-20)", "Page up", show=False, id="code.pageup",
                tooltip="Scroll the code a page up"),
        Binding("right,l", "scroll_columns(8)", "Right", show=False, id="code.right",
                tooltip="Scroll the code right, to the end of long lines"),
        Binding("left,h", "scroll_columns(-8)", "Left", show=False, id="code.left",
                tooltip="Scroll the code left"),
        Binding("home", "scroll_columns(-1000000)", "Line start", show=False, id="code.home",
                tooltip="Scroll back to the start of the lines"),
    ]

    top: reactive[int] = reactive(0)
    left: reactive[int] = reactive(0)  # columns of code scrolled off to the left

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._source: tuple[str, ...] = ()  # plain lines
        self._language = "text"
        self._lines: dict[int, Text] = {}  # 0-based line -> highlighted, filled as lines are shown
        self._marked: set[int] = set()
        self._placeholder = ""
        self._focus = 0
        # (line, marked, width, left) -> drawn row; bounded, since scrolling sideways and resizing add keys.
        self._strips: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(2048)
        self._longest = 0  # cells of the longest line, to bound sideways scrolling
        self._highlight_pending = False  # lines were drawn plain: highlighted after this frame

    def set_code(self, code: str, language: str, placeholder: str = "") -> None:
        prepared = prepared_code(code)
        self._source = prepared.lines
        self._language = language
        # Lexed a line at a time as lines come into view, whatever the language: kernel code is not
        # always small (a deep model's one XLA:CPU `part_00` holds 2.7 MB of assembly and 14 MB of LLVM
        # IR; lexed whole on a visit it held the UI thread 25 s, issue 36). Every recorded kernel's code
        # lexes the same line by line as whole (tests/test_code_view.py).
        self._lines = {}
        self._placeholder = visible(placeholder)
        self._marked = set()
        self._strips.clear()
        self._longest = prepared.longest
        self.top = 0
        self.left = 0
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._source)

    def _line(self, index: int) -> Text:
        line = self._lines.get(index)
        if line is None:
            if not _pygments_loaded():  # the frame does not wait for Pygments' import
                if not self._highlight_pending:
                    self._highlight_pending = True
                    self.call_after_refresh(self._highlight_after_plain)
                return Text(self._source[index])
            line = self._lines[index] = highlight_line(self._source[index], self._language)
        return line

    def _highlight_after_plain(self) -> None:
        _lexer(self._language)  # Pygments' import, between this frame and the next
        self._highlight_pending = False
        self._strips.clear()  # the rows drawn plain
        self.refresh()

    @property
    def marked(self) -> frozenset[int]:
        """The lines marked (the selection's), 1-based."""
        return frozenset(self._marked)

    def mark(self, lines: set[int], focus: int = 0) -> None:
        """Highlight 1-based `lines` and scroll so `focus` sits a third down the view."""
        self._marked = set(lines)
        self._focus = focus
        self._scroll_to_focus()
        self.refresh()

    def _scroll_to_focus(self) -> None:
        if self._focus and self.size.height:
            self.top = self._shown_top()

    def _shown_top(self) -> int:
        """The first line drawn: a third above the focus while the view follows it, for the height
        the view has now. (Textual paints a widget in the frame that gives it its size, before the
        widget hears of the size: a stored `top` would draw that frame at the old place, and
        highlight thirty lines nobody sees.)"""
        height = self.size.height
        if self._focus and height:
            return max(0, min(self._focus - 1 - height // 3, max(0, len(self._source) - height)))
        return self.top

    def on_resize(self) -> None:
        # A screen marks its selection before layout gives this widget a height.
        self._scroll_to_focus()

    def action_scroll_lines(self, delta: int) -> None:
        top = self._shown_top()
        self._focus = 0  # the reader scrolls now; a resize must not jump back
        self.top = max(0, min(top + delta, max(0, len(self._source) - 1)))

    def action_scroll_columns(self, delta: int) -> None:
        visible = max(1, self.size.width - self._gutter_width())
        self.left = max(0, min(self.left + delta, max(0, self._longest - visible + 1)))

    def _gutter_width(self) -> int:
        return len(str(len(self._source))) + 1

    def watch_top(self, top: int) -> None:
        if self._focus and top != self._shown_top():
            self._focus = 0  # scrolled elsewhere (a key, a caller): the view no longer follows the focus
        self.refresh()

    def watch_left(self) -> None:
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # theme or class change: the cached rows carry the old colours

    def render_line(self, y: int) -> Strip:
        """One row of the view, cached: moving the mark redraws two rows, not the window."""
        width = self.size.width
        number = self._shown_top() + y + 1
        if not self._source:
            text = Text(self._placeholder if y == 0 else "")
            return self._strip(text, width)
        if number > len(self._source):
            return Strip.blank(width, self.rich_style)
        marked = number in self._marked
        key = (number, marked, width, self.left)
        strip = self._strips.get(key)
        if strip is None:
            digits = self._gutter_width() - 1
            gutter = self.get_component_rich_style("code-view--gutter", partial=True)
            code = self._line(number - 1)
            if self.left:
                code = code[self.left:] if len(code) > self.left else Text("")
                code = Text.assemble(("…", gutter), code[1:]) if code.plain else code
            row = Text.assemble((f"{number:>{digits}} ", gutter), code)
            if marked:
                row.stylize(self.get_component_rich_style("code-view--marked", partial=True))
            strip = self._strips[key] = self._strip(row, width)
        return strip

    def _strip(self, row: Text, width: int) -> Strip:
        if row.cell_len > width:
            row.truncate(width, overflow="ellipsis")
        strip = Strip(list(row.render(self.app.console)), row.cell_len)
        return strip.extend_cell_length(width).apply_style(self.rich_style)
