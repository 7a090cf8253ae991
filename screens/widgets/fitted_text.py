"""A pane as tall as the lines it shows, whichever update comes when (the memory map's panes)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class FittedText(Static):
    """Static text whose height follows what it shows, whichever update comes when (the memory map's panes).

    Textual 8 counts a layout request only when none is pending yet, and caches a widget's height
    under that count: when the screen lays out between one update and the next, before the first
    update's layout ran, the second reuses the first's height (a bundle's 18 allocations were drawn
    in the one line of the notice before them). A second layout request after the next refresh, when
    none is pending any more, is counted, and the height is measured again.
    """

    def show(self, text: str) -> None:
        """Show `text` (names from the model are text, never markup), measured afresh."""
        self.update(Content(text))
        self.call_after_refresh(self.refresh, layout=True)
