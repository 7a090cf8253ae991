"""Level screens whose items form a graph (layers, TF ops): `g` draws the
selection's neighbourhood as boxes and arrows, `+`/`-` change the radius."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from explorer.labels import label
from explorer.views.items import LevelItem

from screens.bindings import keyed
from screens.level_screen import LevelScreen
from screens.widgets.graph_drawing import draw, neighbourhood

MAX_RADIUS = 6
MAX_NODES = 40  # beyond this a terminal drawing stops being readable


class DrawnGraphScreen(LevelScreen):
    BINDINGS = [
        keyed("g", "toggle_graph", "graph.toggle"),
        keyed("plus,equals_sign", "radius(1)", "graph.wider"),
        keyed("minus", "radius(-1)", "graph.narrower"),
    ]

    radius = 1

    def compose_extra(self) -> ComposeResult:
        with ScrollableContainer(id="drawing-box", classes="-hidden"):
            yield Static("", id="drawing")

    def graph_edges(self) -> list[tuple[str, str]]:
        """(producer, consumer) pairs between item names of this level."""
        raise NotImplementedError

    def _drawing_visible(self) -> bool:
        return not self.query_one("#drawing-box").has_class("-hidden")

    def action_toggle_graph(self) -> None:
        self.query_one("#drawing-box").toggle_class("-hidden")
        self.show_extra(self.items_table.current)

    def action_radius(self, delta: int) -> None:
        self.radius = max(1, min(MAX_RADIUS, self.radius + delta))
        self.show_extra(self.items_table.current)

    def show_extra(self, item: LevelItem | None) -> None:
        if not self._drawing_visible():
            return
        drawing = self.query_one("#drawing", Static)
        if item is None:
            drawing.update(label("text.nothing_selected", self.tensorweg.lang))
            return
        edges = self.graph_edges()
        nodes = neighbourhood(item.name, edges, self.radius)
        shown = sorted(nodes)[:MAX_NODES]
        kept = set(shown) | {item.name}
        lines = draw(sorted(kept), [(a, b) for a, b in edges if a in kept and b in kept], center=item.name)
        key = "text.radius_first" if len(nodes) > MAX_NODES else "text.radius"
        note = label(key, self.tensorweg.lang).format(radius=self.radius, count=len(nodes), shown=MAX_NODES)
        self.query_one("#drawing-box").border_title = note
        drawing.update(Text("\n".join(lines), no_wrap=True))
