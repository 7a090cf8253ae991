"""The memory map of the optimized level: allocations drawn by offset and size,
value live ranges over program order, the peak marked."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.format import format_int

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter
from screens.widgets.memory_map_drawing import allocation_rows, live_range_rows
from screens.widgets.status_line import StatusLine


class MapPane(Static):
    """A pane of the map, as tall as what it shows, whichever update comes when.

    Textual 8.2.8 counts a layout request (`Widget._layout_updates`, part of the key of the widget's
    box-model cache) only when none is pending yet. When the screen lays out (a resize, another
    widget's request) between one update and the next, before the pane's pending layout ran, it
    caches the pane's height for the first content under that count, and the pending layout reuses
    it for the second: the bundle's 18 allocations drawn in the one line the notice before them
    took, and no later refresh undoes it (whether the bundle lands in that gap is up to its worker).
    """

    def refresh(self, *regions, repaint=True, layout=False, recompose=False):
        if layout and self._layout_required:
            self._layout_updates += 1  # new content, new height: not the one cached for the old
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class MemoryMapScreen(Screen):
    LEVEL = "memory"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("backspace,escape", "back", "memory.back"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        with VerticalScroll(id="map"):
            yield MapPane("", id="allocations", classes="pane")
            yield MapPane("", id="live-ranges", classes="pane")
        yield StatusLine(self.app.session.status_line(self.LEVEL), id="status")  # never over the map
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()

    def on_screen_resume(self) -> None:
        self.sync()

    def on_resize(self) -> None:
        self.sync()

    def sync(self) -> None:
        app = self.app
        session = app.session  # the title and notice (explorer.views.session)
        # Names from the model (title, allocations, errors) are text: Content, never markup.
        self.query_one("#title", Static).update(Content(visible(session.title_line("memory"))))
        self.show_status()
        allocations = self.query_one("#allocations", Static)
        live = self.query_one("#live-ranges", Static)
        allocations.border_title = label("pane.allocations", app.lang)
        live.border_title = label("pane.live_ranges", app.lang)
        memory = app.bundle.memory(app.target) if app.bundle is not None else None
        if memory is None:
            notice = session.level_notice("memory") or label("notice.memory_not_captured", app.lang)
            allocations.update(Content(notice))
            live.update("")
            return
        width = max(20, self.size.width - 40)  # label 30 + border and padding
        header = label("text.memory_header", app.lang).format(peak=format_int(memory.peak_bytes, app.lang),
                                                               count=len(memory.allocations))
        allocations.update(Content(header + "\n" + "\n".join(allocation_rows(memory, width, app.lang))))
        live.update(Content("\n".join(live_range_rows(memory, max(20, self.size.width - 50), lang=app.lang))))

    def show_status(self) -> None:
        for line in self.query(StatusLine):  # none before the screen is composed
            line.show(self.app.session.status_line(self.LEVEL))

    def action_back(self) -> None:
        if self.maximized is not None:  # Esc first restores a maximised pane
            self.minimize()
            return
        self.app.return_from(self.LEVEL, default="optimized-hlo")

    def help_text(self) -> str:
        return label("help.memory", self.app.lang)
