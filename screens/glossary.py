"""`G`: the glossary, searchable, in the app's language (explorer.texts.glossary).

Typing filters the term list with the course's own ranking (term matches first,
then definitions that mention the query); the highlighted term's definition and
its "see also" terms show beside the list. Selecting a "see also" term is left
to the search box: typing its name finds it.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from explorer.labels import label
from explorer.session.course import GlossaryEntry, search_glossary

from screens.bindings import keyed


class GlossaryScreen(ModalScreen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape", "dismiss", "glossary.close"),
        keyed("down", "move(1)", "glossary.next", show=False),
        keyed("up", "move(-1)", "glossary.previous", show=False),
    ]

    def __init__(self, lang: str, query: str = "") -> None:
        super().__init__()
        self.lang = lang
        self.initial_query = query
        self.entries: list[GlossaryEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="glossary-box") as box:
            box.border_title = f"{label('pane.glossary', self.lang)} (Esc)"
            yield Input(self.initial_query, placeholder=label("text.glossary_placeholder", self.lang),
                        id="glossary-search")
            with Horizontal(id="glossary-body"):
                yield OptionList(id="glossary-terms")
                with VerticalScroll(id="glossary-definition-box"):
                    yield Static("", id="glossary-definition")

    def on_mount(self) -> None:
        self.show_matches(self.initial_query)
        search = self.query_one("#glossary-search", Input)
        search.cursor_blink = False  # snapshots must not depend on the blink phase
        search.focus()

    @property
    def terms(self) -> list[str]:
        """The terms now listed, in order (what tests and the reviewer see)."""
        return [entry.term for entry in self.entries]

    def show_matches(self, query: str) -> None:
        self.entries = search_glossary(query, self.lang)
        options = self.query_one("#glossary-terms", OptionList)
        options.clear_options()
        options.add_options([Option(entry.term, id=str(number)) for number, entry in enumerate(self.entries)])
        if self.entries:
            options.highlighted = 0
        self.show_definition(self.entries[0] if self.entries else None)

    def show_definition(self, entry: GlossaryEntry | None) -> None:
        text = self.query_one("#glossary-definition", Static)
        if entry is None:
            text.update(label("text.glossary_nothing", self.lang))
            return
        # Definitions contain `[...]` (shapes such as f32[8]): assembled as text, never read as markup.
        parts: list = [(entry.term, "bold"), "\n\n", entry.definition]
        if entry.see_also:
            parts += ["\n\n", (f"{label('word.see_also', self.lang)}:", "italic"), " ", ", ".join(entry.see_also)]
        text.update(Content.assemble(*parts))

    @on(Input.Changed, "#glossary-search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.show_matches(event.value)

    @on(OptionList.OptionHighlighted, "#glossary-terms")
    def _term_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_definition(self.entries[event.option_index] if event.option_index < len(self.entries) else None)

    def action_move(self, step: int) -> None:
        """Up/down move through the terms while the cursor stays in the search box."""
        options = self.query_one("#glossary-terms", OptionList)
        if not self.entries:
            return
        current = options.highlighted if options.highlighted is not None else -step
        options.highlighted = max(0, min(len(self.entries) - 1, current + step))

