"""Compare "1 chip vs 2x2 vs 4x4": one layer of one target on a single chip and on two meshes.

Each mesh is its own capture (the cache key covers `--mesh` and `--shard`), so the
columns come from sibling bundles in the cache: the same model, options and tools
with only the mesh changed. A column not captured yet names the command that
captures it (compile-only: no chip is needed). Figures are per device and come from
the compiles: per-device shapes (explorer.views.mesh, or the module's parameters on
one chip), the layer's collectives with the ring estimate over the chip's
interconnect, and memory_analysis's peak against the chip's memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from explorer.capture.cache import cached_bundle_path
from explorer.capture.model_source import ModelSource
from explorer.errors import TensorwegError
from explorer.hlo.scan import array_bytes, shape_without_layout
from explorer.labels import label
from explorer.model.bundle import Bundle, is_bundle
from explorer.model.records import CaptureOptions
from explorer.model.sharding import (
    check_mesh_options,
    collectives,
    device_memory,
    interconnect,
    transfer_seconds,
)
from explorer.model.training import op_phase, peak_of
from explorer.targets import MESH_TARGETS
from explorer.views import tables
from explorer.views.format import MISSING, format_bytes, format_seconds
from explorer.views.mesh import in_scope, own_variable, tensor_name
from explorer.views.mesh import layer as mesh_layer
from explorer.views.panes import _weight_shapes
from explorer.views.suggested import mesh_capture, model_argument

MESHES = ("", "2x2", "4x4")  # "" is one chip
DEFAULT_SHARD = "model"  # a one-chip bundle's meshes split the weights: that is what changes a layer


@dataclass(frozen=True)
class LayerCollective:
    opcode: str
    shape: str
    groups: str
    bytes_per_device: int
    seconds: float | None  # the ring estimate; None where the interconnect is unknown


@dataclass(frozen=True)
class MeshColumn:
    """The layer on one mesh ("" = one chip) of one target, per device."""

    mesh: str
    shard: str
    captured: bool
    note: str = ""  # not captured: the command that captures it, or why it cannot be
    tensors: tuple[tuple[str, str, int], ...] = ()  # (variable name, "" for the output; per-device shape; bytes)
    collectives: tuple[LayerCollective, ...] = ()
    peak_bytes: int = 0  # memory_analysis of the whole step, per device
    capacity: tuple[int, str] | None = None  # one chip's memory and its source
    capturable: bool = True  # False: the note says why this mesh cannot be compiled

    @property
    def layer_bytes(self) -> int:
        return sum(size for _label, _shape, size in self.tensors)

    @property
    def fits(self) -> bool | None:
        return None if not self.capacity or not self.peak_bytes else self.peak_bytes <= self.capacity[0]


def meshable(target: str) -> bool:
    """Whether `--mesh` compiles for this target (TPU slices and the GPU boxes with a known interconnect)."""
    return target in MESH_TARGETS


def sibling_options(bundle: Bundle, target: str, mesh: str) -> CaptureOptions:
    """The bundle's options for `target` with only the mesh changed; raises TensorwegError (one line)
    when that mesh cannot be compiled with them (a batch too small to split, say)."""
    options = bundle.manifest.options
    shard = (options.shard or DEFAULT_SHARD) if mesh else ""
    wanted = replace(options, mesh=mesh, shard=shard, targets=(target,))  # the cache key leaves targets out
    if not mesh:  # one chip divides nothing: `--layout-map` needs `--mesh`, so no one-chip capture has one
        wanted = replace(wanted, layout_map=(), layout_map_file="")
    check_mesh_options(wanted)
    return wanted


def sibling_path(bundle: Bundle, target: str, mesh: str) -> tuple[Path | None, str]:
    """(cache path of the same capture on `mesh`, the command that captures `target` there); path
    None when that mesh cannot be compiled with these options (the reason instead of a command)."""
    try:
        wanted = sibling_options(bundle, target, mesh)
    except TensorwegError as refused:
        return None, str(refused)
    identity = bundle.manifest.model
    source = ModelSource(identity.spec, identity.kind, identity.name, identity.sha256)
    command = mesh_capture(model_argument(bundle), wanted)
    return cached_bundle_path(source, wanted), command


def missing_meshes(columns: tuple[MeshColumn, ...], bundle: Bundle, target: str) -> tuple[CaptureOptions, ...]:
    """What `M` captures: the columns not captured that can be (compile-only, into the cache)."""
    wanted = []
    for column in columns:
        if not column.captured and column.capturable:
            try:
                wanted.append(sibling_options(bundle, target, column.mesh))
            except TensorwegError:
                continue  # the column says why
    return tuple(wanted)


def mesh_comparison(bundle: Bundle, target: str, layer: str,
                    refused: Mapping[str, str] | None = None) -> tuple[MeshColumn, ...]:
    """One column per entry of MESHES: the bundle itself where it is that mesh, else its sibling.
    `refused`: mesh -> why its capture was refused or failed (capture_meshes); such a column says so."""
    columns = []
    for mesh in MESHES:
        if bundle.manifest.options.mesh == mesh:
            columns.append(mesh_column(bundle, target, layer))
            continue
        path, note = sibling_path(bundle, target, mesh)
        other = Bundle.open(path) if path is not None and is_bundle(path) else None
        if other is None or target not in other.targets:
            shard = (bundle.manifest.options.shard or DEFAULT_SHARD) if mesh else ""
            reason = (refused or {}).get(mesh)
            columns.append(MeshColumn(mesh, shard, False, reason or note, capturable=path is not None and not reason))
        else:
            columns.append(mesh_column(other, target, layer))
    return tuple(columns)


def mesh_column(bundle: Bundle, target: str, layer: str) -> MeshColumn:
    options = bundle.manifest.options
    memory = bundle.memory(target)
    peak = peak_of(memory.analysis) if memory is not None else 0
    sharded = mesh_layer.layer_mesh(bundle, target, layer)
    record = tables.layer_record(bundle, layer)
    path = record.path if record else layer
    if sharded is not None:
        tensors = tuple((t.label, t.slices[0].shape, t.slices[0].bytes) for t in sharded.tensors if t.slices)
    else:  # one chip: each device holds everything
        tensors = _whole_tensors(bundle, target, path, record, options.batch)
    found = []
    for collective in collectives(bundle.hlo_text(target, optimized=True)):
        if _in_layer(collective.op_name, path):
            found.append(LayerCollective(collective.opcode, shape_without_layout(collective.shape),
                                         collective.replica_groups, collective.bytes_per_device,
                                         transfer_seconds(collective, target)))
    return MeshColumn(options.mesh, options.shard, True, tensors=tensors, collectives=tuple(found), peak_bytes=peak,
                      capacity=device_memory(target))


def _whole_tensors(bundle: Bundle, target: str, path: str, record, batch: int) -> tuple[tuple[str, str, int], ...]:
    tensors = []
    for variable, shape in _weight_shapes(bundle, target).items():
        name = own_variable(variable, path)
        if name:
            text = shape.replace(" ", "")
            tensors.append((name, text, array_bytes(text)))
    if record is not None and record.output_shapes:
        dims = [batch if d is None else d for d in record.output_shapes[0]]
        dtype = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}.get(_compute_dtype(record), "f32")
        text = f"{dtype}[{','.join(map(str, dims))}]"
        tensors.append(("", text, array_bytes(text)))
    return tuple(tensors)


def _compute_dtype(record) -> str:
    policy = getattr(record, "dtype_policy", "") or ""
    return policy.rsplit("_", 1)[-1] if "_" in policy else policy


def _in_layer(op_name: str, path: str) -> bool:
    """Whether a collective was made for the layer, in its forward or backward pass."""
    phase = op_phase(op_name)
    if phase.scope:
        return in_scope(phase.scope, path)
    name = op_name.split(";", 1)[0]
    name = name.split("/", 1)[1] if name.startswith("jit(") and "/" in name else name
    return name.startswith(f"{path}/")


# --- the compare screen's table (the screen lays these cells out) -----------------------------

MESH_ROWS = ("per_device_shapes", "layer_bytes", "collectives", "peak")  # labels `compare.mesh.<row>`


def mesh_table(columns: tuple[MeshColumn, ...], lang: str = "en", capturing: bool = False
               ) -> tuple[list[tuple[str, str]], list[tuple[str, list[str]]]]:
    """(headers: (mesh, shard), rows: (label, one cell per column)) in the UI's language;
    `capturing`: `M` is capturing the missing meshes now."""
    def word(key: str) -> str:
        return label(f"compare.mesh.{key}", lang)

    headers = [(column.mesh or word("one_chip"), word("shard").format(shard=column.shard) if column.shard else "")
               for column in columns]
    cells = []
    for column in columns:
        if not column.captured:
            why = word("not_captured" if column.capturable else "cannot").format(note=column.note)
            if column.capturable and capturing:
                why = word("capturing")
            cells.append([why] + [MISSING] * (len(MESH_ROWS) - 1))
            continue
        talks = [f"{c.opcode} {c.shape} {word('groups')} {c.groups}: {format_bytes(c.bytes_per_device, lang)}, "
                 f"~{format_seconds(c.seconds, lang)}" for c in column.collectives]
        fits = {True: word("fits"), False: word("does_not_fit"), None: ""}[column.fits]
        capacity = f" {fits} {format_bytes(column.capacity[0], lang)}" if column.capacity and fits else ""
        cells.append([
            "\n".join(f"{tensor_name(name, lang)} {shape}" for name, shape, _size in column.tensors) or MISSING,
            format_bytes(column.layer_bytes, lang),
            "\n".join(talks) or word("no_collectives"),
            f"{format_bytes(column.peak_bytes, lang)}{capacity}" if column.peak_bytes else MISSING,
        ])
    rows = [(word(key), [col[row] for col in cells]) for row, key in enumerate(MESH_ROWS)]
    return headers, rows


def mesh_notes(columns: tuple[MeshColumn, ...], target: str, lang: str = "en") -> str:
    """Where the time and memory figures come from."""
    notes = [label("compare.mesh.note", lang)]
    link = interconnect(target)
    if link is not None:
        notes.append(f"{link.link}: {link.bandwidth.citation}")
    capacity = next((c.capacity for c in columns if c.capacity), None)
    if capacity:
        notes.append(capacity[1])
    return "\n".join(notes)
