"""The memory map of the optimized level (`m`): allocations drawn by offset and size, value live ranges
over program order, the peak marked. The pictures are `explorer.views.memory_map`'s; this view has no
list, so the screen hides the side panes while it shows (`ExplorerScreen.show_level`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll

from explorer.labels import label
from explorer.levels import level_named
from explorer.views.format import format_int
from explorer.views.memory_map import allocation_rows, live_range_rows

from screens.bindings import keyed
from screens.widgets.fitted_text import FittedText

if TYPE_CHECKING:
    from explorer.session.service import SessionService


class MemoryMapView(VerticalScroll):
    LEVEL = "memory"
    BINDINGS = [
        keyed("backspace,escape", "back", "memory.back"),
    ]
    DEFAULT_CSS = """
    MemoryMapView { height: 1fr; }
    MemoryMapView .pane { margin: 0 0 1 0; }
    """
    shown_item = None  # no list: nothing selected here
    items_table = None

    def __init__(self) -> None:
        super().__init__(id=f"view-{self.LEVEL}", classes="level-view")

    @property
    def session(self) -> SessionService:
        return self.app.session  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield FittedText("", id="allocations", classes="pane")
        yield FittedText("", id="live-ranges", classes="pane")

    def on_resize(self) -> None:
        self.sync()

    def sync(self) -> None:
        session = self.session
        allocations = self.query_one("#allocations", FittedText)
        live = self.query_one("#live-ranges", FittedText)
        allocations.border_title = label("pane.allocations", session.lang)
        live.border_title = label("pane.live_ranges", session.lang)
        memory = session.bundle.memory(session.target) if session.bundle is not None else None
        if memory is None:  # names from the model (allocations, errors) are text: Content, never markup
            notice = session.level_notice(self.LEVEL) or label("notice.memory_not_captured", session.lang)
            allocations.show(notice)
            live.show("")
            return
        width = max(20, self.size.width - 40)  # label 30 + border and padding
        header = label("text.memory_header", session.lang).format(peak=format_int(memory.peak_bytes, session.lang),
                                                                   count=len(memory.allocations))
        allocations.show(header + "\n" + "\n".join(allocation_rows(memory, width, session.lang)))
        live.show("\n".join(live_range_rows(memory, max(20, self.size.width - 50), lang=session.lang)))

    def selection(self, item=None) -> None:
        return None

    def show_extra(self, item) -> None:
        """No extra: the map is the view."""

    def focus_list(self) -> None:
        self.focus()

    def action_back(self) -> None:
        if self.screen.maximized is not None:  # Esc first restores a maximised pane
            self.screen.minimize()
            return
        self.app.return_from(self.LEVEL, default="optimized-hlo")  # type: ignore[attr-defined]

    def help_text(self) -> str:
        return label(level_named(self.LEVEL).help_key, self.session.lang)
