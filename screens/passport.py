"""`P`: the passport of the selected item on the current target, one hop per row.

Python line(s) -> Keras layer -> TensorFlow ops -> HLO -> the fusion -> the kernel -> machine code
and registers -> buffer. Every word comes from `explorer.views.passport.text`; what P opens, where
Enter goes and which target `t` turns to from `explorer.views.passport.place`. This screen lays the
hops out, on the screen it shares with the source view (`screens.option_notes_screen`). Keyboard:
up/down choose a hop, Enter goes to its level with its item selected, t the next target, Esc or P
closes.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.passport import Passport
from explorer.views.passport.place import hop_explanation, hop_place, retarget
from explorer.views.passport.text import hop_heading, hop_lines, title

from screens.bindings import keyed
from screens.option_notes_screen import OptionNotesScreen


def hop_option(number: int, hop, lang: str) -> Option:
    """One hop as a row: its heading in bold, its lines and notes below (text, never markup)."""
    body = "\n".join(f"   {line}" for line in hop_lines(hop, lang))
    text = Content.assemble((visible(hop_heading(hop, number, lang)), "bold"), "\n", Content(visible(body,
                                                                                                  multiline=True)))
    return Option(text, id=f"hop-{number}")


class PassportScreen(OptionNotesScreen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape,P", "close", "passport.close"),
        keyed("t", "next_target", "passport.target"),
    ]
    TITLE_ID, OPTIONS_ID, NOTES_ID = "passport-title", "passport-hops", "passport-explanation"
    HELP_LABEL, NOWHERE_LABEL = "help.passport", "notify.passport_nowhere"

    def __init__(self, found: Passport) -> None:
        super().__init__()
        self.passport = found

    def sync(self) -> None:
        """Redraw the passport (after `t` or a language change), the first hop highlighted."""
        lang = self.app.lang
        found = self.passport
        heading = f"{title(found, lang)} | {label('passport.keys', lang)}"
        if found.went:
            heading += f"\n{found.went}"
        self.draw(Content(visible(heading, multiline=True)),
                  [hop_option(number, hop, lang) for number, hop in enumerate(found.hops, 1)])

    def place(self, index: int) -> tuple[str, str, str] | None:
        return hop_place(self.passport, self.passport.hops[index])

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The course text for the highlighted hop, in the notes pane below the hops."""
        text = hop_explanation(self.passport.hops[event.option_index], self.app.lang)
        self.show_notes(Content.assemble((visible(text.title), "bold"), "  ", Content(visible(text.body))))

    def action_next_target(self) -> None:
        self.passport = retarget(self.app.bundle, self.passport, self.app.lang)
        self.sync()
