"""`x`: the selected layer on every target side by side, and the whole model per target.

Columns are targets (the bundle's, then the default ones it lacks, which say
"not captured" and name the key and command that capture them); rows are what
each compiler made of the layer: fusions and instructions, kernels, library
calls, output layouts, bytes with and without tile padding, FLOPs and the
roofline ESTIMATE. Below: `TargetSummaryTable` for the whole model, then the
figures every estimate used. Data: `explorer.views.compare` (real captures only); every
cell's words: `explorer.views.compare.text`, as `tensorweg compare` prints them.
Keyboard: n/p change the layer, arrows and PgUp/PgDn scroll, `e` writes the layer's optimized HLO
on every target as one picture (`screens.graph_export`; the file names in the status line), Esc or x closes.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.compare import LayerComparison, comparison_targets, layer_comparison, target_summary
from explorer.views.compare.mesh import (
    MeshColumn,
    mesh_comparison,
    mesh_notes,
    mesh_table,
    meshable,
    missing_meshes,
)
from explorer.views.compare.text import LAYER_ROWS, figure_notes, layer_cells
from explorer.views.graphs.level import layer_graphs
from explorer.views.session import StatusNote
from explorer.views.trace import compare_layer, neighbour_layer

from screens.bindings import keyed
from screens.graph_export import export_picture
from screens.widgets.keys_footer import KeysFooter
from screens.widgets.status_line import StatusLine
from screens.widgets.target_summary import TargetSummaryTable, target_table

WIDE = 100  # columns from which the target headers also name the board


def layer_for_selection(app) -> str:
    """The layer of the app's current selection; else the first layer any target compiled."""
    level = app.level
    return compare_layer(app.bundle, level, app.selections.get(level, ""), app.target)


class CompareScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape,x", "close", "compare.close"),
        keyed("n", "move_layer(1)", "compare.next_layer"),
        keyed("p", "move_layer(-1)", "compare.previous_layer"),
        keyed("M", "capture_meshes", "compare.capture_meshes", show=False),  # the mesh table names it
        keyed("e", "export_graph", "compare.export"),
        keyed("V", "what_if", "compare.whatif", show=False),  # the help screen lists it
    ]

    def __init__(self, layer: str) -> None:
        super().__init__()
        self.layer_name = layer
        self.comparison: LayerComparison | None = None
        self.mesh_columns: tuple[MeshColumn, ...] = ()
        self._mesh_cache: dict[tuple, tuple[MeshColumn, ...]] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="compare-title")
        with VerticalScroll(id="compare-body"):
            yield Static("", id="compare-layer")
            yield Static("", id="compare-mesh")
            yield TargetSummaryTable("", id="compare-summary")
            yield Static("", id="compare-figures")
        # The app's notifications (`e` says what it wrote); hidden while there is none, so no line
        # is taken from the tables before.
        yield StatusLine(self._status_note(), id="status")
        yield KeysFooter()

    def _status_note(self) -> StatusNote | None:
        """The compare screen stands on the level it was opened from: that level's note is shown."""
        session = getattr(self.app, "session", None)
        return session.status_line(session.level) if session is not None else None

    def show_status(self) -> None:
        """Asked by the app whenever its notification changes (`TensorwegApp.show_status`)."""
        for line in self.query(StatusLine):  # none before the screen is composed
            line.show(self._status_note())

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#compare-body").focus()

    def on_resize(self) -> None:
        self.sync()

    def help_text(self) -> str:
        return label("help.compare", self.app.lang)

    def sync(self) -> None:
        """Recompute from the app's bundle (also called by the app when a capture finishes)."""
        app = self.app
        lang = app.lang
        bundle = getattr(app, "bundle", None)
        title = self.query_one("#compare-title", Static)
        layer_view = self.query_one("#compare-layer", Static)
        try:
            targets = comparison_targets(bundle) if bundle is not None else ()
        except TensorwegError:  # a staging directory: no manifest until the capture ends
            targets = ()
        if not targets:
            title.update(label("compare.title", lang))
            layer_view.update(label("compare.nothing_yet", lang))
            return
        self.comparison = layer_comparison(bundle, self.layer_name) if self.layer_name else None
        summaries = [target_summary(bundle, t) for t in targets]
        if self.comparison is None:
            layer_view.update(label("compare.no_layers", lang))
            title.update(Content(visible(f"{label('compare.title', lang)} | {bundle.model_name}")))
        else:
            layer = label("text.layer_of", lang).format(layer=self.layer_name)
            title.update(Content(visible(f"{label('compare.title', lang)} | {bundle.model_name} | {layer} "
                                         f"({self.comparison.class_name}) | {label('compare.keys', lang)}")))
            columns = self.comparison.targets
            cells = [layer_cells(c, lang) for c in columns]
            rows = [(label(f"compare.row.{key}", lang), [col[row] for col in cells])
                    for row, key in enumerate(LAYER_ROWS)]
            # Board names only where there is room: at 80 columns they would wrap into three lines.
            wide = self.app.size.width >= WIDE
            headers = [(c.target, (c.display_name if wide else "") if c.captured else label("state.not_captured", lang))
                       for c in columns]
            layer_view.update(target_table(label("compare.layer_per_target", lang).format(layer=self.layer_name),
                                           headers, rows))
        self._show_meshes(bundle, lang)
        self.query_one("#compare-summary", TargetSummaryTable).show(summaries, lang)
        notes = figure_notes(summaries, self.comparison, bundle.targets, lang)
        self.query_one("#compare-figures", Static).update(
            Text(label("compare.estimate_note", lang) + "\n", style="bold").append("".join(f"{n}\n" for n in notes)))

    @property
    def capturing_meshes(self) -> bool:
        return self.app.session.meshes_capturing

    def _show_meshes(self, bundle, lang: str) -> None:
        """1 chip vs 2x2 vs 4x4 for the app's target, where it can be compiled for a mesh."""
        mesh_view = self.query_one("#compare-mesh", Static)
        target = self.app.target
        mesh_view.display = bool(self.layer_name) and meshable(target) and target in bundle.targets
        if not mesh_view.display:
            return
        session = self.app.session
        key = (self.layer_name, target, session.generation, session.meshes_captured)
        if key not in self._mesh_cache:  # resizes and language changes redraw without reading bundles again
            self._mesh_cache = {key: mesh_comparison(bundle, target, self.layer_name, session.mesh_refused.get(target))}
        columns = self.mesh_columns = self._mesh_cache[key]
        headers, rows = mesh_table(columns, lang, self.capturing_meshes)
        title = label("compare.mesh.title", lang).format(layer=self.layer_name, target=target)
        notes = Text(mesh_notes(columns, target, lang), style="dim")
        mesh_view.update(Group(target_table(title, headers, rows), notes))

    def action_close(self) -> None:
        self.dismiss()

    def action_what_if(self) -> None:
        """`V`: this layer in another variant of the model (the what-if screen)."""
        from screens.variant_diff import WhatIfScreen  # noqa: PLC0415 (kept off the first frame)

        self.app.push_screen(WhatIfScreen(self.layer_name))

    def on_unmount(self) -> None:
        self.app.session.cancel_meshes()  # the captures' workers are killed; the cache keeps what finished

    def action_capture_meshes(self) -> None:
        """`M`: compile the meshes the table lacks, one after the other, into the cache (if the session
        lets this explorer capture: a `serve` tab of a pack may not)."""
        bundle = getattr(self.app, "bundle", None)
        wanted = missing_meshes(self.mesh_columns, bundle, self.app.target) if bundle is not None else ()
        self.app.run_meshes(self.app.session.capture_meshes(wanted, self.app.target))
        self.sync()

    def action_export_graph(self) -> None:
        """The layer's optimized HLO on every captured target, one box per target, as files."""
        app = self.app
        bundle = getattr(app, "bundle", None)
        if bundle is None or not self.layer_name:
            app.notify(label("graph.nothing_to_export", app.lang))
            return
        layer, lang = self.layer_name, app.lang

        def build() -> tuple[str, int]:
            from explorer.views.graphs.dot import comparison_dot_text, comparison_title  # noqa: PLC0415 (pydot loads with the first export, not the first frame)

            graphs = layer_graphs(bundle, layer)
            if not graphs:
                raise TensorwegError(label("graph.nothing_to_export", lang))
            text = comparison_dot_text(comparison_title(bundle.model_name, layer, lang), graphs, lang)
            return text, sum(graph.node_count() for graph in graphs)

        export_picture(self, f"{bundle.model_name}-compare-{layer}", build)

    def action_move_layer(self, step: int) -> None:
        layer = neighbour_layer(getattr(self.app, "bundle", None), self.layer_name, step)
        if layer is None:
            return
        self.layer_name = layer
        self.sync()
        self.query_one("#compare-body", VerticalScroll).scroll_home(animate=False)
