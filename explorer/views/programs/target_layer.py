"""A layer on one target, as the comparison table and the device pane show it: the records every
compiler's program fills (`explorer.views.programs`), and the words for a target that is not there.

Pure data and a few lookups (no parsing): below the programs that build these records and the
comparison that sets them side by side. The fields' types are imported at run time: the records
are decoded from JSON by their type hints (`explorer.model.serial`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.model.built import about_to_walk
from explorer.model.memo import built_already, derived
from explorer.model.records import KernelRecord, LaunchShape
from explorer.model.roofline import RooflineEstimate
from explorer.targets import TARGETS

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

# Entry-computation plumbing that does no work of its own (no roofline estimate for it):
# views of another buffer (bitcast, get-tuple-element), inputs and constants.
PLUMBING = frozenset({"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy-done"})
NOT_CAPTURED = "not captured"


@dataclass(frozen=True)
class OutputLayout:
    """One array output of an instruction, as laid out in memory on that target.

    tiles: XLA's tiling text (`T(8,128)(2,1)`), "" when untiled.
    memory_space: the layout's `S(n)` (0 = device memory; on TPU 1 = VMEM).
    bytes / padded_bytes: the elements alone, and with the tiles' padding
        (None when the shape has no static layout, e.g. unbounded dynamic dims).
    """

    shape: str
    minor_to_major: tuple[int, ...]
    tiles: str
    memory_space: int
    bytes: int | None
    padded_bytes: int | None


@dataclass(frozen=True)
class LibraryCall:
    """A call out of XLA's own code generation into a library or another compiler.

    family: "cuDNN", "cuBLAS", "cuBLASLt", "Triton", "oneDNN", "Eigen", "XLA runtime"
        or "runtime library" (named from the symbol; never guessed beyond it).
    source: where the capture says so ("custom-call target", "kernel record",
        "fusion backend_config", "kernel kind").
    """

    name: str
    family: str
    instruction: str
    source: str


@dataclass(frozen=True)
class KernelBrief:
    """The part of a `KernelRecord` worth comparing (its code stays in the bundle)."""

    name: str
    kind: str
    hlo: tuple[str, ...]
    library_calls: tuple[str, ...] = ()
    launch: LaunchShape | None = None
    vector_width_bits: int = 0
    notes: str = ""
    vector_registers: tuple[str, ...] = ()  # the SIMD registers its code uses (x86: zmm3; AArch64: v4.4s)
    register_count: int = 0  # distinct vector registers (an AArch64 register may show two arrangements)
    lanes: int = 0  # lanes of its vector code (`.4s`: 4; x86: the widest register in 32-bit lanes)
    lane_bits: int = 0
    instructions: int = 0  # machine instructions in its listing (0: no listing recorded)


def kernel_brief(kernel: KernelRecord, target: str) -> KernelBrief:
    """A kernel record as the comparison shows it: its vector width, registers, lanes and listing length,
    read with the instruction set of the target's row (explorer.capture.listing). Read once per record:
    XLA:CPU's one kernel of a 5,000-layer model (`part_00`, 2.7 MB of assembly) is every layer's, and
    counting its listing again for each layer kept a warming thread on the interpreter's lock for
    minutes, every key waiting its turn beside it."""
    kind = f"kernel brief {target}"
    if not built_already(kernel, kind):  # the UI thread leaves a listing of many lines to a worker
        about_to_walk(kernel.asm.count("\n"), f"{kernel.name}'s listing")
    return derived(kernel, kind, lambda: _read_brief(kernel, target))


def _read_brief(kernel: KernelRecord, target: str) -> KernelBrief:
    from explorer.capture import listing  # noqa: PLC0415 (start-up: the listing readers load when a comparison is made)

    spec = TARGETS.get(target)
    isa = spec.isa if spec is not None else ""
    lanes, lane_bits = listing.lanes(kernel.asm, isa, kernel.vector_width_bits)
    return KernelBrief(kernel.name, kernel.kind, kernel.hlo, kernel.library_calls, kernel.launch,
                       kernel.vector_width_bits, kernel.notes, kernel.vector_registers,
                       listing.register_count(kernel.vector_registers), lanes, lane_bits,
                       listing.instruction_count(kernel.asm, isa) if kernel.asm and isa else 0)


@dataclass(frozen=True)
class InstructionComparison:
    """One top-level optimized-HLO instruction of the layer on one target.

    also_layers: other layers whose ops the same instruction contains (a fusion
        across a layer boundary), so its figures are not the layer's alone.
    flops / bytes_accessed: counted from shapes (operands + output, no padding),
        as the roofline does; 0 for pure plumbing.
    estimate: the roofline ESTIMATE (None for plumbing or a target without
        published peak figures, e.g. `cpu`).
    plumbing: a view, input or constant (`PLUMBING`): no work, no new buffer.
    """

    name: str
    opcode: str
    fusion_kind: str
    custom_call_target: str
    also_layers: tuple[str, ...]
    outputs: tuple[OutputLayout, ...]
    kernels: tuple[str, ...]
    flops: float
    bytes_accessed: int
    estimate: RooflineEstimate | None
    plumbing: bool = False


@dataclass(frozen=True)
class TargetLayer:
    """The layer on one target; `captured` False (with `status`) when there is nothing to show."""

    target: str
    display_name: str
    captured: bool
    status: str  # "ok", or why not: "not captured", "failed: ...", "unavailable: ..."
    capture_hint: str = ""
    instructions: tuple[InstructionComparison, ...] = ()
    kernels: tuple[KernelBrief, ...] = ()
    library_calls: tuple[LibraryCall, ...] = ()
    estimate_note: str = ""

    @property
    def fusions(self) -> tuple[InstructionComparison, ...]:
        return tuple(i for i in self.instructions if i.opcode == "fusion")

    @property
    def working(self) -> tuple[InstructionComparison, ...]:
        """The instructions that compute or move data (plumbing left out)."""
        return tuple(i for i in self.instructions if not i.plumbing)

    @property
    def bytes(self) -> int | None:
        """Bytes the working instructions write (views and constants would count a buffer twice)."""
        return sum_or_none(o.bytes for i in self.working for o in i.outputs)

    @property
    def padded_bytes(self) -> int | None:
        return sum_or_none(o.padded_bytes for i in self.working for o in i.outputs)

    @property
    def flops(self) -> float:
        return sum(i.flops for i in self.instructions)

    @property
    def estimated_seconds(self) -> float | None:
        found = [i.estimate.seconds for i in self.instructions if i.estimate is not None]
        return sum(found) if found else None


def sum_or_none(values) -> int | None:
    total, seen = 0, False
    for value in values:
        if value is None:
            return None
        total, seen = total + value, True
    return total if seen else None


def target_state(bundle: Bundle, target: str, levels: tuple[str, ...]) -> tuple[bool, str]:
    if target not in bundle.targets:
        return False, NOT_CAPTURED
    for level in levels:
        status = bundle.status(level, target)
        if status.status != "ok":
            detail = f": {status.error}" if status.error else ""
            state = NOT_CAPTURED if status.status == "pending" else status.status
            return False, f"{level} {state}{detail}"
    return True, "ok"


def display_name(target: str) -> str:
    spec = TARGETS.get(target)
    return spec.display_name if spec else target
