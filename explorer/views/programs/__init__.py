"""One target's compiled program, as every view asks it: the seam between the views and the compilers.

The per-target levels (`hlo`, `optimized-hlo`, `kernels`, and `memory` for the explanations) show
what a compiler made of the model, and each compiler says it differently: XLA as HLO modules linked to
the layers by the cross-level index (`explorer.views.programs.xla`), TVM as Relax bindings and TIR
functions linked through its fusion groups (`explorer.views.programs.tvm`). The views (rows, trace,
explanations, panes, comparison, inspect) and the course ask a `TargetProgram` and never which
compiler it is: the next compiler is a new module here implementing `TargetProgram` and one line in
`_PROGRAMS`, not a branch in each view.

`program_for(bundle, target)` chooses the implementation by the target registry's `compiler` and keeps
one program per (bundle, target) with the bundle's other tables (`explorer.views.tables.per_bundle`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.targets import TARGETS

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

from explorer.views.programs.program import TargetProgram
from explorer.views.tables import per_bundle

__all__ = ["TargetProgram", "program_for"]


def _xla_program() -> type:
    from explorer.views.programs.xla import XlaTargetProgram  # noqa: PLC0415 (start-up: the first screen's layers need no program)

    return XlaTargetProgram


def _tvm_program() -> type:
    from explorer.views.programs.tvm import TvmTargetProgram  # noqa: PLC0415 (why: start-up; only a bundle with a TVM target reads it)

    return TvmTargetProgram


# The registry's `compiler` of a target -> its program's class (imported when first asked for).
# A target the registry does not know is read as XLA's, as `explorer.targets.TargetSpec.compiler`
# defaults to it.
_PROGRAMS: dict[str, Callable[[], type]] = {"xla": _xla_program, "tvm": _tvm_program}


@per_bundle
def program_for(bundle: Bundle, target: str) -> TargetProgram:
    """The program `target`'s compiler made in `bundle`, built once per bundle and target."""
    spec = TARGETS.get(target)
    return _PROGRAMS[spec.compiler if spec is not None else "xla"]()(bundle, target)
