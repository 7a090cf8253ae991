"""The memory map of the optimized level: allocations drawn by offset and size,
value live ranges over program order, the peak marked."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from screens.widgets.memory_map_drawing import allocation_rows, live_range_rows


class MemoryMapScreen(Screen):
    LEVEL = "memory"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    HELP = (
        "Memory map: XLA's buffer assignment for the optimized module. Top: each allocation as a bar "
        "as long as its size, the values placed in it at their offsets. Below: the largest values' "
        "live ranges over program order (instruction positions, not time); ^ marks where the most "
        "bytes are live at once. XLA reuses an allocation for values whose ranges do not overlap."
    )
    BINDINGS = [
        Binding("backspace,escape", "back", "Back", id="memory.back", tooltip="Back to the optimized HLO"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        with VerticalScroll(id="map"):
            yield Static("", id="allocations", classes="pane")
            yield Static("", id="live-ranges", classes="pane")
        yield Footer()

    def on_mount(self) -> None:
        self.sync()

    def on_screen_resume(self) -> None:
        self.sync()

    def on_resize(self) -> None:
        self.sync()

    def sync(self) -> None:
        app = self.app
        self.query_one("#title", Static).update(app.title_line("memory"))
        allocations = self.query_one("#allocations", Static)
        live = self.query_one("#live-ranges", Static)
        allocations.border_title = "Allocations (by size; values at their offsets)"
        live.border_title = "Live ranges over program order"
        memory = app.bundle.memory(app.target) if app.bundle is not None else None
        if memory is None:
            notice = app.level_notice("memory") or "memory level not captured for this target"
            allocations.update(notice)
            live.update("")
            return
        width = max(20, self.size.width - 40)  # label 30 + border and padding
        header = f"peak {memory.peak_bytes:,} bytes, {len(memory.allocations)} allocations"
        allocations.update(header + "\n" + "\n".join(allocation_rows(memory, width)))
        live.update("\n".join(live_range_rows(memory, max(20, self.size.width - 50))))

    def action_back(self) -> None:
        self.app.goto_level("optimized-hlo")

    def help_text(self) -> str:
        return self.HELP
