"""`0`: the source view, level 0 at the top of the trace: the Python lines above the selected layer
or HLO instruction, one per row, each with the instructions it emitted or reached.

What the view holds, its words and where Enter goes come from `explorer.views.source_view`; this
screen lays the rows out. Keyboard: up/down choose a line, Enter goes down to its first
instruction on the HLO level, Esc or 0 closes. (Backspace stays "back from a descent".)
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.source_view import SourceRow, SourceView, line_place, notes, rows, title

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter


def line_option(number: int, row: SourceRow) -> Option:
    """One Python line as a row: `file:line function` in bold, its text and instructions below (text, never markup)."""
    body = "\n".join(f"   {line}" for line in row.body)
    return Option(Content.assemble((visible(row.heading), "bold"), "\n", Content(visible(body, multiline=True))),
                  id=f"line-{number}")


class SourceScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [keyed("escape,0", "close", "source.close")]

    def __init__(self, view: SourceView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield Static("", id="source-title")
        yield OptionList(id="source-lines")
        yield Static("", id="source-notes")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#source-lines").focus()

    def help_text(self) -> str:
        return label("help.source", self.app.lang)

    def sync(self) -> None:
        """Draw the lines (again after a language change), the first one highlighted."""
        lang = self.app.lang
        heading = f"{title(self.view, lang)} | {label('source.keys', lang)}"
        self.query_one("#source-title", Static).update(Content(visible(heading)))
        self.query_one("#source-notes", Static).update(
            Content(visible("\n".join(notes(self.view, lang)) or label("source.empty", lang), multiline=True)))
        lines = self.query_one("#source-lines", OptionList)
        lines.clear_options()
        lines.add_options([line_option(number, row) for number, row in enumerate(rows(self.view, lang))])
        if lines.option_count:
            lines.highlighted = 0

    @on(OptionList.OptionSelected, "#source-lines")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        place = line_place(self.view, event.option_index)
        if place is None:
            self.app.notify(label("notify.source_nowhere", self.app.lang))
            return
        target, level, item = place
        self.dismiss()
        self.app.open_passport_hop(target, level, item)

    def action_close(self) -> None:
        self.dismiss()
