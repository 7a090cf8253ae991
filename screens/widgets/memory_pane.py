"""Memory layout of the selection (`explorer.views.panes.memory_facts`): shape, dtype, bytes,
minor-to-major, strides, tiles and padding; at the optimized level the buffer it lives in."""

from __future__ import annotations

from rich.text import Text

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.tables import Selection

from screens.widgets.pane_text import PaneText


def memory_text(selection: Selection) -> Text:
    from explorer.views.panes import memory_facts  # noqa: PLC0415 (kept off the first frame: the open worker loads it)

    facts = memory_facts(selection.bundle, selection.level, selection.target, selection.name, selection.lang)
    return Text(visible("\n".join(facts), multiline=True))


class MemoryPane(PaneText):
    """The screen calls `show_selection(selection, lang)` on every cursor move."""

    def show_selection(self, selection: Selection | None, lang: str = "en") -> None:
        """The selection's facts in its language; without one, the prompt to select an item in `lang`."""
        self.show(memory_text(selection) if selection is not None else label("state.select_item", lang))
