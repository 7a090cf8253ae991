"""`--mesh` captures keep the module as XLA's sharding propagation left it, and which device and
chip each logical device number is (for the mesh view).

Runs only inside the JAX worker. See explorer.views.mesh for why this snapshot, and
not the optimized module or JAX's input/output shardings, is the exact source.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.capture.jax_levels import write_normalised
from explorer.model.serial import dump_json
from explorer.model.sharding import MESH_DEVICES, SHARDED_HLO, SHARDING_PASS, MeshDevice


def enable_sharding_dump(request: dict) -> None:
    """Before jax is imported: XLA also dumps each module after `shardy-xla` (one file per module).
    `--passes` already dumps after every pass, that one included."""
    if request.get("mesh") and not request.get("passes"):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_hlo_pass_re={SHARDING_PASS}".strip()


def keep_sharded_module(dump_dir: Path, module_name: str, out_dir: Path) -> None:
    """out_dir/sharded_hlo.txt from the dump; nothing when XLA wrote none (the view then says so)."""
    found = sorted(dump_dir.glob(f"*.{module_name}.*.after_{SHARDING_PASS}.*txt"))
    if found:
        write_normalised(out_dir / SHARDED_HLO, found[0].read_text(encoding="utf-8"))


def mesh_devices(compiled) -> list[MeshDevice]:
    """Each logical device of the compiled step, from the mesh its arguments were placed on.

    XLA's logical number n (the `d<n>` of the shardings) is the n-th device of the mesh, row by
    row: JAX hands XLA the mesh's devices flattened as the device assignment. On a TPU slice the
    compile-only devices carry their chip coordinates; a GPU box's carry ids only."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    sharding = next(s for s in jax.tree.leaves(compiled.input_shardings) if hasattr(s, "mesh"))
    return [MeshDevice(logical, int(device.id), tuple(int(c) for c in getattr(device, "coords", None) or ()),
                       str(device.device_kind))
            for logical, device in enumerate(sharding.mesh.devices.flat)]


def keep_mesh_devices(compiled, out_dir: Path) -> None:
    """out_dir/mesh_devices.json: which device and chip each `d<n>` of the mesh view is."""
    dump_json(mesh_devices(compiled), out_dir / MESH_DEVICES)
