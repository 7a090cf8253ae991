"""Memory layout of the selection (`explorer.view.memory_facts`): shape, dtype, bytes,
minor-to-major, strides, tiles and padding; at the optimized level the buffer it lives in."""

from __future__ import annotations

from rich.text import Text

from explorer.view import Selection, memory_facts

from screens.widgets.pane_text import PaneText


def memory_text(selection: Selection) -> Text:
    return Text("\n".join(memory_facts(selection.bundle, selection.level, selection.target, selection.name)))


class MemoryPane(PaneText):
    """The screen calls `show_selection(selection)` on every cursor move."""

    def show_selection(self, selection: Selection | None, placeholder: str = "select an item") -> None:
        self.show(memory_text(selection) if selection is not None else placeholder)
