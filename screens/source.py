"""`0`: the source view, level 0 at the top of the trace: the Python lines above the selected layer
or HLO instruction, one per row, each with the instructions it emitted or reached.

What the view holds, its words and where Enter goes come from `explorer.views.source_view`; this
screen lays the rows out, on the screen it shares with the passport (`screens.option_notes_screen`).
Keyboard: up/down choose a line, Enter goes down to its first instruction on the HLO level, Esc or 0
closes. (Backspace stays "back from a descent".)
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets.option_list import Option

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.source_view import SourceRow, SourceView, line_place, notes, rows, title

from screens.bindings import keyed
from screens.option_notes_screen import OptionNotesScreen


def line_option(number: int, row: SourceRow) -> Option:
    """One Python line as a row: `file:line function` in bold, its text and instructions below (text, never markup)."""
    body = "\n".join(f"   {line}" for line in row.body)
    return Option(Content.assemble((visible(row.heading), "bold"), "\n", Content(visible(body, multiline=True))),
                  id=f"line-{number}")


class SourceScreen(OptionNotesScreen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [keyed("escape,0", "close", "source.close")]
    TITLE_ID, OPTIONS_ID, NOTES_ID = "source-title", "source-lines", "source-notes"
    HELP_LABEL, NOWHERE_LABEL = "help.source", "notify.source_nowhere"

    def __init__(self, view: SourceView) -> None:
        super().__init__()
        self.view = view

    def sync(self) -> None:
        """Draw the lines (again after a language change), the first one highlighted."""
        lang = self.app.lang
        heading = f"{title(self.view, lang)} | {label('source.keys', lang)}"
        self.draw(Content(visible(heading)),
                  [line_option(number, row) for number, row in enumerate(rows(self.view, lang))],
                  Content(visible("\n".join(notes(self.view, lang)) or label("source.empty", lang), multiline=True)))

    def place(self, index: int) -> tuple[str, str, str] | None:
        return line_place(self.view, index)
