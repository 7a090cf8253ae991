"""Enter on the what-if screen: one changed fusion's optimized HLO in both variants, side by side.

The texts are `explorer.views.whatif.panes.fusion_hlo`'s (each fusion's line, then the computation it
calls, as the module writes them); this screen only places them. Esc closes.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from explorer.safe_text import visible

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter


class FusionPairScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [keyed("escape", "close", "whatif.close_pair")]

    def __init__(self, title: str, columns: tuple[tuple[str, str], tuple[str, str]]) -> None:
        """columns: (heading, HLO text) of each variant."""
        super().__init__()
        self.title_text = title
        self.columns = columns

    def compose(self) -> ComposeResult:
        yield Static(Content(visible(self.title_text)), id="pair-title")
        with Horizontal(id="pair-body"):
            for number, (heading, text) in enumerate(self.columns):
                with VerticalScroll(id=f"pair-{number}", classes="pair-column"):
                    yield Static(Content(visible(heading)), classes="pair-heading")
                    yield Static(Content(visible(text, multiline=True)), classes="pair-code")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#pair-0").focus()

    def action_close(self) -> None:
        self.dismiss()
