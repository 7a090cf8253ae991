"""Sharded compiles: the mesh option, and what the compiled module says about dividing the work.

Pure: no compiler is imported. The JAX worker (explorer.capture.jax_mesh) turns the
mesh option into compile-only devices; this module checks the option before any
worker starts, and reads per-device shapes and collectives from optimized HLO text
(through explorer.hlo.scan).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions
from explorer.model.serial import load_json
from explorer.targets import MESH_TARGETS, TARGETS, Interconnect

# Axis names of every mesh: the first grid dimension splits the batch, the rest the weights.
MESH_AXES = ("data", "model")
# The largest slice compiled: a 16x16 v5e pod (256 chips) compiles in minutes for small models.
MAX_DEVICES = 256

_MESH = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?$")


def mesh_shape(mesh: str) -> tuple[int, ...]:
    """`2x2` -> (2, 2); raises TensorwegError for anything else."""
    match = _MESH.match(mesh)
    dims = tuple(int(d) for d in match.groups() if d is not None) if match else ()
    if not dims or any(d < 1 for d in dims):
        raise TensorwegError(f"bad --mesh '{mesh}': expected ROWSxCOLUMNS, e.g. 2x2")
    if device_count(dims) > MAX_DEVICES:
        raise TensorwegError(f"bad --mesh '{mesh}': {device_count(dims)} devices; at most {MAX_DEVICES}")
    return dims


def device_count(dims: tuple[int, ...]) -> int:
    count = 1
    for dim in dims:
        count *= dim
    return count


def axis_sizes(dims: tuple[int, ...]) -> tuple[int, int]:
    """(data, model) sizes of the mesh: the first grid dimension, then all the others."""
    return dims[0], device_count(dims[1:])


def sharding_flag(options: CaptureOptions) -> str:
    """How the user divided the work, as they wrote it: `--layout-map FILE` (which sets `shard` to
    model: a message naming `--shard model` would name a flag never given) or `--shard data|model`."""
    if options.layout_map_file:
        return f"--layout-map {options.layout_map_file}"
    return f"--shard {options.shard}"


def check_mesh_options(options: CaptureOptions) -> None:
    """Refuse mesh options no worker could compile, before anything starts."""
    if not options.mesh:
        if options.shard:
            raise TensorwegError(f"{sharding_flag(options)} needs --mesh, e.g. --mesh 2x2")
        return
    dims = mesh_shape(options.mesh)
    if not options.shard:
        raise TensorwegError("--mesh needs --shard data or --shard model")
    single = [t for t in options.targets if t not in MESH_TARGETS]
    if single:
        raise TensorwegError(f"--mesh compiles for TPU slices and GPU boxes ({', '.join(MESH_TARGETS)}); "
                             f"{', '.join(single)} is one device: leave it out of --targets")
    data, model = axis_sizes(dims)
    parts = data * model if options.shard == "data" else data
    if options.batch % parts:
        raise TensorwegError(f"{sharding_flag(options)} on a {options.mesh} mesh splits the batch in {parts}: "
                             f"--batch {options.batch} is not a multiple of {parts}")


# --- what the compiled module says ------------------------------------------------

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
               "collective-broadcast")
_COLLECTIVE_OPCODES = frozenset(COLLECTIVES + tuple(f"{opcode}-start" for opcode in COLLECTIVES))


@dataclass(frozen=True)
class Collective:
    """One collective of the optimized module: who talks to whom, and how much each device sends."""

    name: str
    opcode: str  # without -start/-done
    shape: str  # the per-device result, as printed
    bytes_per_device: int
    replica_groups: str  # as printed, e.g. `[2,2]<=[4]` or `{{0,1},{2,3}}`
    group_size: int
    op_name: str = ""

    def ring_bytes(self) -> float:
        """Bytes each device sends in a ring algorithm (the usual estimate for ICI and NVLink)."""
        n = max(self.group_size, 1)
        if self.opcode == "all-reduce":
            return 2 * (n - 1) / n * self.bytes_per_device
        if self.opcode in ("all-gather", "reduce-scatter", "all-to-all"):
            return (n - 1) / n * self.bytes_per_device
        return float(self.bytes_per_device)


def collectives(optimized_hlo: str) -> tuple[Collective, ...]:
    """Every collective of the module, in program order (an async pair counts once, at its start)."""
    from explorer.hlo.scan import (  # noqa: PLC0415 (start-up: opening a cached bundle checks the mesh option, reads no HLO)
        array_bytes,
        group_size,
        instructions,
        last_array,
        op_name,
        replica_groups,
    )

    found = []
    for name, shape, opcode, line in instructions(optimized_hlo, _COLLECTIVE_OPCODES):
        base = opcode.removesuffix("-start")
        groups = replica_groups(line)
        if opcode.endswith("-start") and shape.startswith("("):  # (operand, result) of an async start
            shape = last_array(shape)
        found.append(Collective(
            name=name, opcode=base, shape=shape, bytes_per_device=array_bytes(shape),
            replica_groups=groups, group_size=group_size(groups) if groups else 0, op_name=op_name(line),
        ))
    return tuple(found)


def interconnect(target: str) -> Interconnect | None:
    """The chip-to-chip link of a target (explorer.targets); None for one device or an unknown name."""
    spec = TARGETS.get(target)
    return spec.interconnect if spec is not None else None


def transfer_seconds(collective: Collective, target: str) -> float | None:
    """The ring estimate of one collective's time over the target's interconnect; None when unknown."""
    link = interconnect(target)
    return collective.ring_bytes() / link.bandwidth.value if link else None


def device_memory(target: str) -> tuple[int, str] | None:
    """(bytes, citation) of one chip's memory, from the target's table row; None when unknown."""
    spec = TARGETS.get(target)
    figure = spec.memory_capacity if spec is not None else None
    return (int(figure.value), figure.citation) if figure is not None else None


# --- what a mesh capture keeps in its target's folder (capture/mesh_shardings.py writes it) ---

# The module right after XLA's sharding propagation, where every value still has its global
# shape and carries the sharding the partitioner applies (the mesh view reads it).
SHARDED_HLO = "sharded_hlo.txt"
MESH_DEVICES = "mesh_devices.json"  # each logical device's id and chip coordinates (capture/mesh_shardings.py)
SHARDING_PASS = "shardy-xla"  # the pass after which XLA's dump holds the propagated shardings


@dataclass(frozen=True)
class MeshDevice:
    """One device of a mesh capture, recorded from the compile-only topology the step was compiled for.

    logical: XLA's logical device number, the `d<n>` of the shardings (the device's place in the
    mesh, row by row); id: the runtime's device id; coords: as jax gives them: on a TPU slice the
    chip's place (x, y, z); on a GPU box (slice, host, GPU), an index and no place on a board."""

    logical: int
    id: int
    coords: tuple[int, ...] = ()
    kind: str = ""  # jax's device_kind, `TPU v5 lite`


def read_devices(target_dir) -> tuple[MeshDevice, ...]:
    """The devices a mesh capture recorded (target_dir/mesh_devices.json); () for one that did not."""
    path = target_dir / MESH_DEVICES
    return tuple(load_json(list[MeshDevice], path)) if path.is_file() else ()
