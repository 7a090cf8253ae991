"""`P`: the passport of the selected item on the current target, one hop per row.

Python line(s) -> Keras layer -> TensorFlow ops -> HLO -> the fusion -> the kernel -> machine code
and registers -> buffer. Every word comes from `explorer.views.passport_text`; what P opens, where
Enter goes and which target `t` turns to from `explorer.views.passport_place`. This screen lays the
hops out. Keyboard: up/down choose a hop, Enter goes to its level with its item selected, t the
next target, Esc or P closes.
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
from explorer.views.passport import Passport
from explorer.views.passport_place import hop_explanation, hop_place, retarget
from explorer.views.passport_text import hop_heading, hop_lines, title

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter


def hop_option(number: int, hop, lang: str) -> Option:
    """One hop as a row: its heading in bold, its lines and notes below (text, never markup)."""
    body = "\n".join(f"   {line}" for line in hop_lines(hop, lang))
    text = Content.assemble((visible(hop_heading(hop, number, lang)), "bold"), "\n", Content(visible(body,
                                                                                                  multiline=True)))
    return Option(text, id=f"hop-{number}")


class PassportScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape,P", "close", "passport.close"),
        keyed("t", "next_target", "passport.target"),
    ]

    def __init__(self, found: Passport) -> None:
        super().__init__()
        self.passport = found

    def compose(self) -> ComposeResult:
        yield Static("", id="passport-title")
        yield OptionList(id="passport-hops")
        yield Static("", id="passport-explanation")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#passport-hops").focus()

    def help_text(self) -> str:
        return label("help.passport", self.app.lang)

    def sync(self) -> None:
        """Redraw the passport (after `t` or a language change), the first hop highlighted."""
        lang = self.app.lang
        found = self.passport
        heading = f"{title(found, lang)} | {label('passport.keys', lang)}"
        if found.went:
            heading += f"\n{found.went}"
        self.query_one("#passport-title", Static).update(Content(visible(heading, multiline=True)))
        hops = self.query_one("#passport-hops", OptionList)
        hops.clear_options()
        hops.add_options([hop_option(number, hop, lang) for number, hop in enumerate(found.hops, 1)])
        hops.highlighted = 0

    @on(OptionList.OptionHighlighted, "#passport-hops")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The course text for the highlighted hop, below the hops."""
        text = hop_explanation(self.passport.hops[event.option_index], self.app.lang)
        self.query_one("#passport-explanation", Static).update(
            Content.assemble((visible(text.title), "bold"), "  ", Content(visible(text.body))))

    @on(OptionList.OptionSelected, "#passport-hops")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        place = hop_place(self.passport, self.passport.hops[event.option_index])
        if place is None:
            self.app.notify(label("notify.passport_nowhere", self.app.lang))
            return
        target, level, item = place
        self.dismiss()
        self.app.open_passport_hop(target, level, item)

    def action_next_target(self) -> None:
        self.passport = retarget(self.app.bundle, self.passport, self.app.lang)
        self.sync()

    def action_close(self) -> None:
        self.dismiss()
