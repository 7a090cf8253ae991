"""`D`: the selected layer divided over the devices of a mesh capture.

One grid per tensor (the layer's kernel, bias and output): rows are the mesh's
data axis, columns its model axis, and each cell the device at that position with
the slice it holds (per-device shape, bytes, index ranges), the picture
`jax.debug.visualize_sharding` draws. Data: `explorer.views.mesh.layer.layer_mesh` (the
compiler's own shardings); this screen only lays the cells out.
Keyboard: n/p change the layer, arrows and PgUp/PgDn scroll, Esc or D closes.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.mesh import MeshLayer, devices_note, grid_cells, slice_cells, split_text, tensor_name
from explorer.views.mesh.layer import layer_mesh
from explorer.views.trace import neighbour_layer

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter


def mesh_renderable(layer: MeshLayer, lang: str) -> Group:
    """A heading and one device grid per tensor; names are text, never markup."""
    parts = [Text(label("mesh.heading", lang).format(target=layer.target, mesh=layer.mesh, shard=layer.shard))]
    parts.append(Text(devices_note(layer, lang), style="dim"))
    for tensor in layer.tensors:
        name = tensor_name(tensor.label, lang)
        title = Text(f"\n{label(f'mesh.kind.{tensor.kind}', lang)} {name} {tensor.shape}: ", style="bold")
        title.append(split_text(tensor, lang), style="")
        table = Table(show_edge=True, show_lines=True, pad_edge=False, expand=False, header_style="bold")
        table.add_column("")
        for column in range(layer.grid[1]):
            table.add_column(label("mesh.column", lang).format(index=column))
        for row, cells in enumerate(grid_cells(layer, tensor, lang)):
            table.add_row(label("mesh.row", lang).format(index=row), *(Text(cell) for cell in cells))
        parts.extend((title, Text(tensor.sharding, style="dim"), table))
    if not layer.tensors:
        parts.append(Text(label("mesh.empty", lang)))
    parts.extend(_slice_map(layer, lang))
    parts.append(Text("\n" + label("mesh.source", lang), style="dim"))
    return Group(*parts)


def _slice_map(layer: MeshLayer, lang: str) -> list:
    """Where each d<n> sits among the slice's chips (TPU), so the mesh grids above can be read against it."""
    columns, rows = slice_cells(layer)
    if not rows:
        return []
    table = Table(show_edge=True, show_lines=False, pad_edge=False, expand=False, header_style="bold")
    table.add_column("")
    for column in columns:
        table.add_column(column)
    for name, cells in rows:
        table.add_row(name, *(Text(cell) for cell in cells))
    return [Text("\n" + label("mesh.slice", lang), style="bold"), table]


class MeshScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape,D", "close", "mesh.close"),
        keyed("n", "move_layer(1)", "mesh.next_layer"),
        keyed("p", "move_layer(-1)", "mesh.previous_layer"),
    ]

    def __init__(self, layer: str) -> None:
        super().__init__()
        self.layer_name = layer

    def compose(self) -> ComposeResult:
        yield Static("", id="mesh-title")
        with VerticalScroll(id="mesh-body"):
            yield Static("", id="mesh-grids")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#mesh-body").focus()

    def help_text(self) -> str:
        return label("help.mesh", self.app.lang)

    def sync(self) -> None:
        """Redraw from the app's bundle and target (also after a capture or a language change)."""
        app = self.app
        lang = app.lang
        bundle = getattr(app, "bundle", None)
        layer = layer_mesh(bundle, app.target, self.layer_name) if self.layer_name else None
        heading = label("mesh.title", lang)
        if bundle is not None and self.layer_name:
            heading += f" | {bundle.model_name} | {label('text.layer_of', lang).format(layer=self.layer_name)}"
        self.query_one("#mesh-title", Static).update(Content(visible(f"{heading} | {label('mesh.keys', lang)}")))
        grids = self.query_one("#mesh-grids", Static)
        grids.update(mesh_renderable(layer, lang) if layer is not None else Text(label("mesh.none", lang)))

    def show_layer(self, layer: str) -> None:
        self.layer_name = layer
        self.sync()
        self.query_one("#mesh-body", VerticalScroll).scroll_home(animate=False)

    def action_close(self) -> None:
        self.dismiss()

    def action_move_layer(self, step: int) -> None:
        layer = neighbour_layer(getattr(self.app, "bundle", None), self.layer_name, step)
        if layer is None:
            return
        self.show_layer(layer)
