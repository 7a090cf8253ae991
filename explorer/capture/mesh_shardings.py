"""`--mesh` captures keep the module as XLA's sharding propagation left it (for the mesh view).

Runs only inside the JAX worker. See explorer.mesh_view for why this snapshot, and
not the optimized module or JAX's input/output shardings, is the exact source.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.mesh_view import SHARDED_HLO, SHARDING_PASS


def enable_sharding_dump(request: dict) -> None:
    """Before jax is imported: XLA also dumps each module after `shardy-xla` (one file per module).
    `--passes` already dumps after every pass, that one included."""
    if request.get("mesh") and not request.get("passes"):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_hlo_pass_re={SHARDING_PASS}".strip()


def keep_sharded_module(dump_dir: Path, module_name: str, out_dir: Path) -> None:
    """out_dir/sharded_hlo.txt from the dump; nothing when XLA wrote none (the view then says so)."""
    from explorer.capture.jax_worker import _write

    found = sorted(dump_dir.glob(f"*.{module_name}.*.after_{SHARDING_PASS}.*txt"))
    if found:
        _write(out_dir / SHARDED_HLO, found[0].read_text(encoding="utf-8"))
