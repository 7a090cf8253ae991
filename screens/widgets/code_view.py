"""A read-only code view: highlighted once, drawn as a window around the selection.

Rich's `Syntax` would re-lex a 3,000-line module on every selection change;
here the text is lexed once into lines and each refresh only slices the
visible window, so moving through instructions stays instant.
"""

from __future__ import annotations

from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget

from screens.widgets.hlo_lexer import HloLexer

# Pygments lexer names per kind of code (issue 3: llvm for IR, nasm for assembly).
LEXERS = {"hlo": "hlo", "llvm": "llvm", "asm": "nasm", "ptx": "text", "text": "text"}


def highlight_lines(code: str, language: str) -> list[Text]:
    """Lex `code` once into one Text per line.

    Colours come from Rich's ANSI theme (foreground only), so they follow the
    terminal's own palette, work in 256 colours and vanish under NO_COLOR;
    token backgrounds are dropped so the widget's theme background shows.
    """
    if language == "hlo":
        lexer = HloLexer()
    else:
        try:
            lexer = get_lexer_by_name(LEXERS.get(language, "text"))
        except ClassNotFound:
            lexer = get_lexer_by_name("text")
    theme = Syntax.get_theme("ansi_dark")
    styles: dict = {}
    text = Text(no_wrap=True, end="")
    for token_type, value in lexer.get_tokens(code):
        style = styles.get(token_type)
        if style is None:
            full = theme.get_style_for_token(token_type)
            style = styles[token_type] = Style(color=full.color, bold=full.bold, italic=full.italic)
        text.append(value, style)
    text.rstrip()
    return text.split("\n", allow_blank=True)


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
    ]

    top: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[Text] = []
        self._marked: set[int] = set()
        self._placeholder = ""
        self._focus = 0

    def set_code(self, code: str, language: str, placeholder: str = "") -> None:
        self._lines = highlight_lines(code, language) if code else []
        self._placeholder = placeholder
        self._marked = set()
        self.top = 0
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def mark(self, lines: set[int], focus: int = 0) -> None:
        """Highlight 1-based `lines` and scroll so `focus` sits a third down the view."""
        self._marked = set(lines)
        self._focus = focus
        self._scroll_to_focus()
        self.refresh()

    def _scroll_to_focus(self) -> None:
        height = self.size.height
        if self._focus and height:
            self.top = max(0, min(self._focus - 1 - height // 3, max(0, len(self._lines) - height)))

    def on_resize(self) -> None:
        # A screen marks its selection before layout gives this widget a height.
        self._scroll_to_focus()

    def action_scroll_lines(self, delta: int) -> None:
        self._focus = 0  # the reader scrolls now; a resize must not jump back
        self.top = max(0, min(self.top + delta, max(0, len(self._lines) - 1)))

    def watch_top(self) -> None:
        self.refresh()

    def render(self) -> Text:
        if not self._lines:
            return Text(self._placeholder)
        height = max(1, self.size.height)
        width = len(str(len(self._lines)))
        gutter = self.get_component_rich_style("code-view--gutter", partial=True)
        marked = self.get_component_rich_style("code-view--marked", partial=True)
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        for number in range(self.top + 1, min(len(self._lines), self.top + height) + 1):
            line = self._lines[number - 1].copy()
            prefix = Text(f"{number:>{width}} ", style=gutter)
            row = prefix + line
            if number in self._marked:
                row.stylize(marked)
            out.append_text(row)
            out.append("\n")
        out.rstrip()
        return out
