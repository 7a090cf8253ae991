"""The mesh view's data for one layer (`D`): which device holds which slice of its weights and output."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

from explorer.model.sharding import SHARDED_HLO, read_devices
from explorer.model.training import INPUTS, WEIGHTS
from explorer.views.buffers import step_layout
from explorer.views.mesh import mesh_layer, sharded_values
from explorer.views.tables import layer_record, per_bundle


@per_bundle
def layer_mesh(bundle: Bundle | None, target: str, layer: str):
    """The selected layer's weights and output over the target's mesh (explorer.views.mesh.MeshLayer);
    None when the target was not compiled for a mesh or the bundle predates the sharded snapshot."""
    if bundle is None or target not in bundle.targets:
        return None
    layout = step_layout(bundle, target)
    path = bundle.target_dir(target) / SHARDED_HLO
    if layout is None or not layout.mesh or not path.is_file():
        return None
    record = layer_record(bundle, layer)
    weights = {group.first + offset: name for group in layout.arguments if group.role == WEIGHTS
               for offset, name in enumerate(group.names)}
    inputs = {group.first + offset: name for group in layout.arguments if group.role == INPUTS
              for offset, name in enumerate(group.names)}
    output = tuple(record.output_shapes[0]) if record and record.output_shapes else ()
    return mesh_layer(_sharded_module(bundle, target), record.path if record else layer, weights, output,
                      target, layout.mesh, layout.shard, inputs, read_devices(bundle.target_dir(target)))


@per_bundle
def _sharded_module(bundle: Bundle, target: str):
    """The sharded module's values, read once per bundle and target: each layer of the mesh view
    (`n`) picks its own from them instead of reading the whole module again."""
    return sharded_values((bundle.target_dir(target) / SHARDED_HLO).read_text(encoding="utf-8"))
