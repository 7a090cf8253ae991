"""The mesh view: which device holds which slice of a layer's weights and output (`D`).

Pure: reads `targets/<t>/sharded_hlo.txt`, the module right after XLA's sharding
propagation (the `shardy-xla` pass) that the JAX worker keeps for `--mesh`
captures. There every instruction still has its global shape and carries the
HloSharding the partitioner then applies, so the slices shown are the compiler's
own, for weights and activations alike. (The optimized module after SPMD
partitioning has per-device shapes but no shardings left, and JAX's
`compiled.input_shardings`/`output_shardings` cover only arguments and results.)
This is the picture `jax.debug.visualize_sharding` draws, per tensor of the layer. The module
is read by `explorer.hlo.scan.sharded_arrays`, each sharding by `explorer.hlo.sharding`.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.hlo.scan import array_bytes, sharded_arrays
from explorer.hlo.sharding import device_ranges, parse_sharding
from explorer.labels import label
from explorer.model.sharding import MeshDevice, axis_sizes, mesh_shape
from explorer.model.training import op_phase
from explorer.views.format import format_bytes

# --- the sharded module's entry -----------------------------------------------------------


@dataclass(frozen=True)
class ShardedValue:
    name: str
    dtype: str
    dims: tuple[int, ...]
    sharding: str
    op_name: str
    parameter: int  # -1 unless a parameter


def sharded_values(text: str) -> tuple[ShardedValue, ...]:
    """Every array-shaped instruction of the entry computation that carries a sharding."""
    return tuple(ShardedValue(*found) for found in sharded_arrays(text))


# --- what the view shows ---------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceSlice:
    device: int
    ranges: tuple[tuple[int, int], ...]
    shape: str  # the slice's per-device shape, `f32[64,64]`
    bytes: int


@dataclass(frozen=True)
class MeshTensor:
    """One weight or activation of the layer and what each device holds of it."""

    label: str  # the variable's name (`kernel`), "" for the layer's output (`tensor_name` words it)
    kind: str  # "weight" or "activation"
    shape: str  # the whole array, `f32[64,128]`
    sharding: str  # the HloSharding as XLA printed it
    split: tuple[int, ...]  # tiles per dimension
    replicas: int
    slices: tuple[DeviceSlice, ...]  # in device order


@dataclass(frozen=True)
class MeshLayer:
    target: str
    mesh: str
    shard: str
    grid: tuple[int, int]  # (data, model) axis sizes: device d sits at row d // model, column d % model
    tensors: tuple[MeshTensor, ...]
    devices: tuple[MeshDevice, ...] = ()  # in logical order; empty for captures that did not record them


def mesh_layer(values: tuple[ShardedValue, ...], layer_path: str, weights: dict[int, str],
               output_dims: tuple[int | None, ...],
               target: str, mesh: str, shard: str, inputs: dict[int, str] | None = None,
               devices: tuple[MeshDevice, ...] = ()) -> MeshLayer:
    """The layer's weights (parameters named by `weights`, number -> variable path) and its output
    from the sharded module's values (`sharded_values`, read once per module): the last value of its
    forward pass shaped like the layer's output (`output_dims`, None for the batch). A training
    step's forward pass also keeps masks and other
    values for the backward pass; their shapes or types differ. An input layer's output is the
    model's input parameter of that name (`inputs`, number -> name). `devices`: the recorded
    MeshDevice of each logical number (read_devices)."""
    grid = axis_sizes(mesh_shape(mesh))
    count = grid[0] * grid[1]
    tensors = []
    for value in values:
        name = own_variable(weights.get(value.parameter, ""), layer_path)
        if name:
            tensors.append(_tensor(value, name, "weight", count))
    output = [v for v in values if v.parameter < 0 and v.dtype != "pred" and _fits(v.dims, output_dims)
              and _forward_of(v.op_name, layer_path)]
    output = output or [v for v in values if (inputs or {}).get(v.parameter) == layer_path]
    if output:
        tensors.append(_tensor(output[-1], "", "activation", count))
    return MeshLayer(target, mesh, shard, grid, tuple(t for t in tensors if t is not None), devices)


def _fits(dims: tuple[int, ...], wanted: tuple[int | None, ...]) -> bool:
    return bool(dims) and len(dims) == len(wanted) and all(w in (None, d) for d, w in zip(dims, wanted, strict=True))


def own_variable(variable_path: str, layer_path: str) -> str:
    """`kernel` for `dense/kernel` of dense; `query/kernel` for `attention/query/kernel` of attention
    (a layer built of sub-layers owns their weights); "" for another layer's."""
    short = layer_path.rsplit("/", 1)[-1]
    for owner in (layer_path, short):
        if variable_path.startswith(f"{owner}/"):
            return variable_path[len(owner) + 1:]
    return ""


def in_scope(scope: str, layer_path: str) -> bool:
    return (scope == layer_path or scope.endswith(f"/{layer_path}") or scope.startswith(f"{layer_path}/")
            or f"/{layer_path}/" in scope)


def _forward_of(op_name: str, layer_path: str) -> bool:
    """Whether an op belongs to the layer's forward pass: `jit(fwd)/dense/add` (a call) or
    `jit(train_step)/jvp(dense)/add` (a training step's forward pass)."""
    phase = op_phase(op_name)
    if phase.scope:
        return phase.phase == "forward" and in_scope(phase.scope, layer_path)
    name = op_name.split(";", 1)[0]
    if name.startswith("jit(") and "/" in name:
        name = name.split("/", 1)[1]
    return name.startswith(f"{layer_path}/")


def _tensor(value: ShardedValue, label: str, kind: str, devices: int) -> MeshTensor | None:
    sharding = parse_sharding(value.sharding, len(value.dims), devices)
    if sharding is None:
        return None
    slices = []
    for device, ranges in sorted(device_ranges(value.dims, sharding).items()):
        shape = f"{value.dtype}[{','.join(str(stop - start) for start, stop in ranges)}]"
        slices.append(DeviceSlice(device, ranges, shape, array_bytes(shape)))
    return MeshTensor(label, kind, f"{value.dtype}[{','.join(map(str, value.dims))}]", value.sharding,
                      sharding.tiles, sharding.replicas, tuple(slices))


# --- words and cells (the screen renders these; `inspect --json` prints them) ------------------


def tensor_name(name: str, lang: str = "en") -> str:
    """A weight's variable name as the model has it; the layer's output ("") in the UI's language."""
    return name or label("field.output", lang)


def split_text(tensor: MeshTensor, lang: str = "en") -> str:
    """`dim 1 in 2 parts, each part on 2 devices` / `replicated on all 4 devices`."""
    parts = [label("mesh.split_dim", lang).format(dim=dim, parts=count)
             for dim, count in enumerate(tensor.split) if count > 1]
    if not parts:
        return label("mesh.replicated", lang).format(devices=len(tensor.slices))
    text = ", ".join(parts)
    if tensor.replicas > 1:
        text += ", " + label("mesh.copies", lang).format(copies=tensor.replicas)
    return text


def chip_coords(layer: MeshLayer) -> dict[int, tuple[int, ...]]:
    """logical number -> the chip's coordinates without the dimensions every chip of the slice has
    at 0 (a v5e slice is flat: jax gives (x, y, 0)); {} off TPU (a GPU box's coordinates are
    (slice, host, GPU) indices, not places) or when the capture recorded none."""
    if not layer.target.startswith("tpu:") or not layer.devices or not all(d.coords for d in layer.devices):
        return {}
    keep = len(layer.devices[0].coords)
    while keep > 2 and not any(device.coords[keep - 1] for device in layer.devices):
        keep -= 1
    return {device.logical: tuple(device.coords[:keep]) for device in layer.devices}


def device_name(layer: MeshLayer, logical: int, lang: str = "en") -> str:
    """`d5 = chip (1,0), id 9` on TPU; `d1 = device id 1` where there are no chip coordinates (GPU boxes);
    `d5` when the capture did not record its devices."""
    by_logical = {device.logical: device for device in layer.devices}
    if logical not in by_logical:
        return f"d{logical}"
    coords = chip_coords(layer)
    if logical in coords:
        return label("mesh.chip", lang).format(logical=logical, coords=",".join(map(str, coords[logical])),
                                               id=by_logical[logical].id)
    return label("mesh.device_id", lang).format(logical=logical, id=by_logical[logical].id)


def device_cell(layer: MeshLayer, piece: DeviceSlice, lang: str = "en") -> str:
    """Who (`d1 = chip (1,0), id 1`), the per-device shape and bytes, then the slice `[0:64, 64:128]`."""

    ranges = ", ".join(f"{start}:{stop}" for start, stop in piece.ranges)
    return f"{device_name(layer, piece.device, lang)}\n{piece.shape} {format_bytes(piece.bytes, lang)}\n[{ranges}]"


def grid_cells(layer: MeshLayer, tensor: MeshTensor, lang: str = "en") -> tuple[tuple[str, ...], ...]:
    """One row per data index, one cell per model index: the device at that mesh position and its slice."""
    rows, columns = layer.grid
    by_device = {piece.device: piece for piece in tensor.slices}
    return tuple(tuple(device_cell(layer, by_device[row * columns + column], lang)
                       if row * columns + column in by_device else "-" for column in range(columns))
                 for row in range(rows))


def slice_cells(layer: MeshLayer) -> tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    """The slice as its chips lie: (column headers `x=0`..., rows (`y=0`, one cell per x: the `d<n>` of
    the chip there, "-" where the mesh has none)). Empty without coordinates (GPU boxes, old captures)."""
    coords = chip_coords(layer)
    if not coords:
        return (), ()
    where = {place: logical for logical, place in coords.items()}
    xs = sorted({place[0] for place in where})
    rows = []
    for rest in sorted({place[1:] for place in where}):
        name = ", ".join(f"{axis}={value}" for axis, value in zip("yz", rest, strict=False))
        rows.append((name, tuple(f"d{where[(x, *rest)]}" if (x, *rest) in where else "-" for x in xs)))
    return tuple(f"x={x}" for x in xs), tuple(rows)


def devices_note(layer: MeshLayer, lang: str = "en") -> str:
    """What d<n> and the chip coordinates are, or plainly that the coordinates are not known."""
    if not layer.devices:
        return label("mesh.devices_unknown", lang)
    if not chip_coords(layer):
        return label("mesh.no_coords", lang).format(target=layer.target)
    return label("mesh.devices_note", lang)


def mesh_lines(layer: MeshLayer, lang: str = "en") -> tuple[str, ...]:
    """The view as plain lines (for `tensorweg inspect --json` and tests): a heading per tensor, then
    one line per device."""
    lines = [label("mesh.heading", lang).format(target=layer.target, mesh=layer.mesh, shard=layer.shard)]
    for tensor in layer.tensors:
        lines.append(f"{label(f'mesh.kind.{tensor.kind}', lang)} {tensor_name(tensor.label, lang)} {tensor.shape}: "
                     f"{split_text(tensor, lang)}  {tensor.sharding}")
        lines.extend(f"  {device_cell(layer, piece, lang).replace(chr(10), ' ')}" for piece in tensor.slices)
    lines.append(devices_note(layer, lang))
    return tuple(lines)
