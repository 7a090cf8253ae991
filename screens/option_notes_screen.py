"""A screen of rows that lead somewhere: a title line, an option list, a notes pane, the keys footer.

The passport (`P`, one hop per row) and the source view (`0`, one Python line per row) are this screen
with different words: a subclass names its widgets' ids (its sibling `.tcss` styles them), its help
text, where a chosen row goes (`place`) and what it draws (`sync`, through `draw`). Enter on a row
goes to its level with its item selected (`open_passport_hop`); a row that leads nowhere says so in
the status line. Esc closes.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.labels import label

from screens.widgets.keys_footer import KeysFooter


class OptionNotesScreen(Screen):
    TITLE_ID: ClassVar[str]  # the widgets' ids, which the subclass's .tcss styles
    OPTIONS_ID: ClassVar[str]
    NOTES_ID: ClassVar[str]
    HELP_LABEL: ClassVar[str]  # the labels of the help text and of "this row leads nowhere"
    NOWHERE_LABEL: ClassVar[str]

    def compose(self) -> ComposeResult:
        yield Static("", id=self.TITLE_ID)
        yield OptionList(id=self.OPTIONS_ID)
        yield Static("", id=self.NOTES_ID)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()
        self.query_one(f"#{self.OPTIONS_ID}").focus()

    def help_text(self) -> str:
        return label(self.HELP_LABEL, self.app.lang)

    def sync(self) -> None:
        """Draw the screen (again after a language change or a new target): the subclass calls `draw`."""
        raise NotImplementedError

    def place(self, index: int) -> tuple[str, str, str] | None:
        """Where row `index` leads: (target, level, item), or None when nowhere."""
        raise NotImplementedError

    def draw(self, title: Content, options: list[Option], notes: Content | None = None) -> None:
        """The title, the rows with the first one highlighted, and the notes (None: left to the subclass)."""
        self.query_one(f"#{self.TITLE_ID}", Static).update(title)
        if notes is not None:
            self.show_notes(notes)
        rows = self.query_one(f"#{self.OPTIONS_ID}", OptionList)
        rows.clear_options()
        rows.add_options(options)
        if rows.option_count:
            rows.highlighted = 0

    def show_notes(self, notes: Content) -> None:
        self.query_one(f"#{self.NOTES_ID}", Static).update(notes)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        place = self.place(event.option_index)
        if place is None:
            self.app.notify(label(self.NOWHERE_LABEL, self.app.lang))
            return
        target, level, item = place
        self.dismiss()
        self.app.open_passport_hop(target, level, item)

    def action_close(self) -> None:
        self.dismiss()
