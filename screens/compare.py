"""`x`: the selected layer on every target side by side, and the whole model per target.

Columns are targets (the bundle's, then the default ones it lacks, which say
"not captured" and name the key and command that capture them); rows are what
each compiler made of the layer: fusions and instructions, kernels, library
calls, output layouts, bytes with and without tile padding, FLOPs and the
roofline ESTIMATE. Below: `TargetSummaryTable` for the whole model, then the
figures every estimate used. Data: `explorer.comparison` (real captures only).
Keyboard: n/p change the layer, arrows and PgUp/PgDn scroll, Esc or x closes.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from explorer.bundle import Bundle
from explorer.comparison import (
    LayerComparison,
    TargetLayer,
    comparison_targets,
    layer_comparison,
    target_summary,
)
from explorer.comparison_view import (
    MISSING,
    format_bytes,
    format_count,
    format_seconds,
    library_text,
)
from explorer.errors import TensorwegError
from explorer.view import compare_layer

from screens.widgets.target_summary import TargetSummaryTable, target_table

WIDE = 100  # columns from which the target headers also name the board
LAYER_ROWS = ("fusions/ops", "kernels", "library calls", "layouts", "bytes / padded", "FLOPs", "est. time")


def layer_for_selection(app) -> str:
    """The layer of the app's current selection; else the first layer any target compiled."""
    level = app.current_mode
    return compare_layer(app.bundle, level, app.selections.get(level, ""), app.target)


def column_cells(column: TargetLayer) -> list[str]:
    """The cells of one target's column, in LAYER_ROWS order."""
    if not column.captured:
        return [f"{column.status} (see below)"] + [MISSING] * (len(LAYER_ROWS) - 1)
    if not column.instructions:
        return ["no instruction carries this layer's ops"] + [MISSING] * (len(LAYER_ROWS) - 1)
    # The custom-call target is on the library-calls row; here the opcode (and fusion kind) is enough.
    # Views and constants are counted, not listed: they do no work and own no new buffer.
    working = column.working
    instructions = [f"{i.name}: {i.opcode}" + (f" {i.fusion_kind}" if i.fusion_kind else "")
                    + (f" (also {','.join(i.also_layers)})" if i.also_layers else "") for i in working]
    plumbing = sorted({i.opcode for i in column.instructions if i.plumbing})
    if plumbing:
        count = len(column.instructions) - len(working)
        instructions.append(f"+{count} {'/'.join(plumbing)}")
    kernels = []
    for k in column.kernels:
        launch = (f" grid {'x'.join(map(str, k.launch.grid))} block {'x'.join(map(str, k.launch.block))}"
                  if k.launch else "")
        kernels.append(f"{k.name} ({k.kind}){launch}")
    layouts = [o.shape for i in working for o in i.outputs]
    seconds = column.estimated_seconds
    bound = [i.estimate.bound for i in column.instructions if i.estimate is not None]
    bound_text = ", ".join(f"{bound.count(b)} {b}-bound" for b in ("memory", "compute") if b in bound)
    return [
        "\n".join(instructions),
        "\n".join(kernels) or "none",
        library_text(column),
        "\n".join(layouts),
        f"{format_bytes(column.bytes)} / {format_bytes(column.padded_bytes)}",
        f"{format_count(column.flops)} (shapes)",
        f"{format_seconds(seconds)} ({bound_text})" if seconds is not None else "no peak figures",
    ]


def figure_notes(bundle: Bundle, comparison: LayerComparison | None, summaries) -> Text:
    """Which published figures each estimate used, and how to capture missing targets."""
    text = Text("Est. time is a roofline ESTIMATE from published peaks, never a measurement. "
                "S(n) in a layout is XLA's memory space (on TPU, S(1) is VMEM).\n", style="bold")
    for summary in summaries:
        if summary.estimate_note:
            text.append(f"{summary.target}: {summary.estimate_note}\n")
        if summary.kernels_note:
            text.append(f"{summary.target} kernels: {summary.kernels_note}\n")
        if summary.capture_hint:
            text.append(f"{summary.target} not captured: {summary.capture_hint}\n")
    if comparison is not None:
        for column in comparison.targets:
            if column.captured is False and column.target in bundle.targets:
                text.append(f"{column.target}: {column.status}\n")
    return text


class CompareScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        Binding("escape,x", "close", "Close", id="compare.close",
                tooltip="Close the comparison and return to the level screen"),
        Binding("n", "move_layer(1)", "Next layer", id="compare.next_layer",
                tooltip="Compare the next layer of the model"),
        Binding("p", "move_layer(-1)", "Prev layer", id="compare.previous_layer",
                tooltip="Compare the previous layer of the model"),
    ]

    def __init__(self, layer: str) -> None:
        super().__init__()
        self.layer_name = layer
        self.comparison: LayerComparison | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="compare-title")
        with VerticalScroll(id="compare-body"):
            yield Static("", id="compare-layer")
            yield TargetSummaryTable("", id="compare-summary")
            yield Static("", id="compare-figures")
        yield Footer()

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#compare-body").focus()

    def on_resize(self) -> None:
        self.sync()

    def help_text(self) -> str:
        return __doc__.split("\n\n", 1)[1].strip()

    def sync(self) -> None:
        """Recompute from the app's bundle (also called by the app when a capture finishes)."""
        app = self.app
        bundle = getattr(app, "bundle", None)
        title = self.query_one("#compare-title", Static)
        layer_view = self.query_one("#compare-layer", Static)
        try:
            targets = comparison_targets(bundle) if bundle is not None else ()
        except TensorwegError:  # a staging directory: no manifest until the capture ends
            targets = ()
        if not targets:
            title.update("Compare targets")
            layer_view.update("Nothing to compare yet: the capture is still running or no bundle is open.")
            return
        self.comparison = layer_comparison(bundle, self.layer_name) if self.layer_name else None
        summaries = [target_summary(bundle, t) for t in targets]
        if self.comparison is None:
            layer_view.update("This model has no layers to compare.")
            title.update(Content(f"Compare targets | {bundle.model_name}"))
        else:
            title.update(Content(f"Compare targets | {bundle.model_name} | layer {self.layer_name} "
                                 f"({self.comparison.class_name}) | n/p layer, Esc back"))  # names are text
            columns = self.comparison.targets
            cells = [column_cells(c) for c in columns]
            rows = [(label, [col[row] for col in cells]) for row, label in enumerate(LAYER_ROWS)]
            # Board names only where there is room: at 80 columns they would wrap into three lines.
            wide = self.app.size.width >= WIDE
            headers = [(c.target, (c.display_name if wide else "") if c.captured else "not captured")
                       for c in columns]
            layer_view.update(target_table(f"Layer {self.layer_name} per target", headers, rows))
        self.query_one("#compare-summary", TargetSummaryTable).show(summaries)
        self.query_one("#compare-figures", Static).update(figure_notes(bundle, self.comparison, summaries))

    def action_close(self) -> None:
        self.dismiss()

    def action_move_layer(self, step: int) -> None:
        bundle = getattr(self.app, "bundle", None)
        names = [layer.name for layer in bundle.layers] if bundle is not None else []
        if not names:
            return
        at = names.index(self.layer_name) if self.layer_name in names else -step
        self.layer_name = names[(at + step) % len(names)]
        self.sync()
        self.query_one("#compare-body", VerticalScroll).scroll_home(animate=False)
