"""Level views whose items form a graph (layers, TF ops): `g` draws the selection's neighbourhood as
boxes and arrows, `+`/`-` change the radius, `e` writes the same neighbourhood as DOT and SVG files
(`screens.graph_export`).

The graph, the neighbourhood and each box's colour come from the core
(`explorer.views.graphs.level`, `graphs.parts.LEGEND`), as `tensorweg graph` draws them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widget import Widget
from textual.widgets import Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.views.items import LevelItem

from screens.bindings import keyed
from screens.level_view import LevelView

MAX_RADIUS = 6
MAX_NODES = 40  # beyond this a terminal drawing stops being readable


class DrawingPane(ScrollableContainer):
    """The drawn graph's scrolling pane; `z` may fill the screen with it (Textual's containers do not)."""

    ALLOW_MAXIMIZE = True


class DrawnGraphView(LevelView):
    BINDINGS = [
        keyed("g", "toggle_graph", "graph.toggle"),
        keyed("plus,equals_sign", "radius(1)", "graph.wider"),
        keyed("minus", "radius(-1)", "graph.narrower"),
        keyed("e", "export_graph", "graph.export", show=False),  # the help screen names it (the footer is full)
    ]

    radius = 1

    def compose_extra(self) -> ComposeResult:
        with DrawingPane(id="drawing-box", classes="-hidden"):
            yield Static("", id="drawing")

    def _drawing_visible(self) -> bool:
        # A capture's first level can ask before the view has composed its drawing (CI met it): hidden.
        boxes = self.query("#drawing-box")
        return bool(boxes) and not boxes.first().has_class("-hidden")

    def action_toggle_graph(self) -> None:
        self.query_one("#drawing-box").toggle_class("-hidden")
        self.show_extra(self.items_table.current)

    def action_radius(self, delta: int) -> None:
        self.radius = max(1, min(MAX_RADIUS, self.radius + delta))
        self.show_extra(self.items_table.current)

    def action_export_graph(self) -> None:
        """The selection's neighbourhood at the drawing's radius, as files in the current directory."""
        session, item = self.session, self.items_table.current
        if session.bundle is None or item is None:
            self.tensorweg.notify(label("graph.nothing_to_export", session.lang))
            return
        bundle, level, target, radius, lang = session.bundle, self.LEVEL, session.target, self.radius, session.lang
        from explorer.views.graphs.level import graph_of  # noqa: PLC0415 (the graph's tables load with the first drawing, not the first frame)

        from screens.graph_export import export_picture  # noqa: PLC0415 (loads with the first export, not the first frame)

        def build() -> tuple[str, int]:
            from explorer.views.graphs.dot import dot_text  # noqa: PLC0415 (pydot loads with the first export, not the first frame)

            graph = graph_of(bundle, level, target, item.name, radius)
            return dot_text(graph, bundle.model_name, lang), graph.node_count()

        export_picture(self, f"{bundle.model_name}-{level}-{item.name}", build)

    def show_extra(self, item: LevelItem | None) -> None:
        if not self._drawing_visible():
            return
        drawing = self.query_one("#drawing", Static)
        lang = self.session.lang
        if item is None:
            drawing.update(label("text.nothing_selected", lang))
            return
        from explorer.views.graphs.level import level_graph  # noqa: PLC0415 (as above)
        from explorer.views.graphs.parts import ROLES, neighbourhood  # noqa: PLC0415 (the graph's tables load with the first drawing, not the first frame)

        from screens.widgets.graph_drawing import draw_picture  # noqa: PLC0415 (as above)

        bundle = self.session.bundle
        try:
            graph = level_graph(bundle, self.LEVEL, self.session.target) if bundle is not None else None
        except TensorwegError:  # a staging bundle without its manifest yet
            graph = None
        edges = graph.pairs() if graph is not None else []
        nodes = neighbourhood(item.name, edges, self.radius)
        shown = sorted(nodes)[:MAX_NODES]
        kept = set(shown) | {item.name}
        styles = {node.name: ROLES[node.role].terminal for node in graph.nodes} if graph is not None else {}
        styles[item.name] = ROLES["selected"].terminal
        picture, middle = draw_picture(sorted(kept), [(a, b) for a, b in edges if a in kept and b in kept],
                                       item.name, styles)
        key = "text.radius_first" if len(nodes) > MAX_NODES else "text.radius"
        note = label(key, lang).format(radius=self.radius, count=len(nodes), shown=MAX_NODES)
        box = self.query_one("#drawing-box", DrawingPane)
        box.border_title = note
        drawing.update(picture)
        if middle is not None:  # once laid out: the pane may be smaller than the picture (6 rows at 80x24)
            self.call_after_refresh(self._centre_on, middle)

    def _centre_on(self, middle: tuple[int, int]) -> None:
        """Scroll the drawing so the selected box sits in the middle of its pane."""
        box = self.query_one("#drawing-box", DrawingPane)
        region = box.scrollable_content_region
        row, column = middle
        box.scroll_to(x=max(0, column - region.width // 2), y=max(0, row - region.height // 2),
                      animate=False, immediate=True)

    def pane_to_maximize(self) -> Widget | None:
        """`z` while the graph shows and the focus is in this view: the graph fills the screen (at
        80x24 its pane has six rows); a side pane the learner focused is still the one that grows."""
        focused = self.screen.focused
        if self._drawing_visible() and (focused is None or self in focused.ancestors_with_self):
            return self.query_one("#drawing-box")
        return super().pane_to_maximize()
