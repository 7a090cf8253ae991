"""`?`: what the current screen shows and every key that works there."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from explorer.labels import label

from screens.bindings import keyed, words


def key_lines(screen: Screen) -> list[str]:
    """Every active binding (screen, then app) as `key  description - tooltip`, once each, in the app's language."""
    lang = getattr(screen.app, "lang", "en")
    lines, seen = [], set()
    # tensorweg's own keys (they all have ids) before the widgets' generic navigation keys.
    ordered = sorted(screen.active_bindings.values(), key=lambda active: active.binding.id is None)
    for active in ordered:
        binding = active.binding
        ident = binding.id or binding.action
        if ident in seen or not binding.description or binding.system:
            continue
        seen.add(ident)
        display = screen.app.get_key_display(binding)
        description, tooltip = words(binding, lang)
        tip = f": {tooltip}" if tooltip else ""
        lines.append(f"{display:>10}  {description}{tip}")
    return lines


class HelpScreen(ModalScreen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [keyed("escape,question_mark,q", "dismiss", "help.close")]

    def __init__(self, for_screen: Screen) -> None:
        super().__init__()
        self.for_screen = for_screen

    def compose(self) -> ComposeResult:
        helper = getattr(self.for_screen, "help_text", None)
        text = helper() if helper else ""
        keys = "\n".join(key_lines(self.for_screen))
        lang = getattr(self.app, "lang", "en")
        with VerticalScroll(id="help-box") as box:
            box.border_title = label("pane.help", lang)
            yield Static(text, id="help-text")
            yield Static(label("word.keys", lang) + "\n" + keys, id="help-keys")
            yield Static(label("help.palette", lang), id="help-palette")
