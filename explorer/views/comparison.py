"""One layer, or one whole model, compared across the captured targets (CPU, GPU, TPU).

Pure: reads a `Bundle` (real compiler output) and the target registry; no
compiler, no Textual. Every figure says where it comes from, and a figure the
capture does not have is `None` with the reason, never a guess:

* fusions/instructions of a layer: the top-level optimized-HLO instructions the
  cross-level index (`explorer.model.index`) assigns to it on that target;
* kernels: the target's `KernelRecord`s implementing those instructions;
* library calls: runtime symbols the kernel records name, custom-call targets
  (`__cudnn$conv...`, `__cublas$gemm`) and fusions XLA hands to Triton
  (`"kind":"__triton"` in the fusion's backend_config);
* layouts: each array output's minor-to-major order, tiles and memory space as
  the optimized HLO writes them, with bytes with and without tile padding
  (`explorer.hlo.layout_math`);
* FLOPs and time: `explorer.model.roofline`, an ESTIMATE from published peaks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.hlo import layout_math
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Shape
from explorer.hlo.text import format_shape, tiles_text
from explorer.model.bundle import Bundle
from explorer.model.memo import derived
from explorer.model.records import KernelRecord, LaunchShape
from explorer.model.roofline import RooflineEstimate, estimate, instruction_bytes, instruction_flops
from explorer.model.tvm_program import short_ops
from explorer.targets import DEFAULT_TARGETS, TARGETS, get_target

__all__ = [
    "OutputLayout", "LibraryCall", "KernelBrief", "InstructionComparison", "TargetLayer",
    "LayerComparison", "TargetSummary", "layer_comparison", "target_layer", "target_summary",
    "comparison_targets", "PLUMBING", "capture_hint", "tile_text", "layout_shape_text",
]

# Entry-computation plumbing that does no work of its own (no roofline estimate for it):
# views of another buffer (bitcast, get-tuple-element), inputs and constants.
PLUMBING = frozenset({"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy-done"})
# A fusion XLA:GPU hands to Triton names it in backend_config: "kind":"__triton" (e.g. softmax),
# "__triton_gemm", "__triton_nested_gemm_fusion" (matmuls), ...
_TRITON_FUSION = re.compile(r'"kind"\s*:\s*"(__triton[^"]*)"')
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
    vector_registers: tuple[str, ...] = ()  # the SIMD registers its code uses (x86: xmm/ymm/zmm)


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
        return _sum_or_none(o.bytes for i in self.working for o in i.outputs)

    @property
    def padded_bytes(self) -> int | None:
        return _sum_or_none(o.padded_bytes for i in self.working for o in i.outputs)

    @property
    def flops(self) -> float:
        return sum(i.flops for i in self.instructions)

    @property
    def estimated_seconds(self) -> float | None:
        found = [i.estimate.seconds for i in self.instructions if i.estimate is not None]
        return sum(found) if found else None


@dataclass(frozen=True)
class LayerComparison:
    model: str
    layer: str
    class_name: str
    targets: tuple[TargetLayer, ...]

    def target(self, name: str) -> TargetLayer:
        for found in self.targets:
            if found.target == name:
                return found
        raise KeyError(name)


@dataclass(frozen=True)
class TargetSummary:
    """Whole-model figures for one target; None (with a source saying why) where not captured.

    flops_source: "XLA cost analysis" or "summed from shapes" (the roofline's count).
    peak_memory_source: "xla" (XLA's own live ranges) or "derived" (from program order).
    xla_optimal_seconds: XLA's own cost-analysis time figure where it reports one
        that can be a time (positive and finite); None otherwise.
    xla_optimal_note: why XLA's figure is not shown when it reported one that is
        not physical (libtpu's compile-only cost analysis gives negative ones).
    """

    target: str
    display_name: str
    captured: bool
    status: str
    capture_hint: str = ""
    kernel_count: int | None = None
    kernels_note: str = ""
    fusion_count: int | None = None
    peak_memory_bytes: int | None = None
    peak_memory_source: str = NOT_CAPTURED
    flops: float | None = None
    flops_source: str = NOT_CAPTURED
    bytes_accessed: float | None = None
    bytes_accessed_source: str = NOT_CAPTURED
    estimated_seconds: float | None = None
    compute_bound: int = 0
    memory_bound: int = 0
    estimate_note: str = ""
    xla_optimal_seconds: float | None = None
    xla_optimal_note: str = ""


# --- helpers -----------------------------------------------------------------------------


def _sum_or_none(values) -> int | None:
    total, seen = 0, False
    for value in values:
        if value is None:
            return None
        total, seen = total + value, True
    return total if seen else None


def tile_text(shape: Shape) -> str:
    """`T(8,128)(2,1)` as XLA writes a layout's tiles."""
    return tiles_text(shape.layout)


def layout_shape_text(shape: Shape) -> str:
    """An array shape with its layout as XLA writes it: `bf16[2,13]{1,0:T(8,128)(2,1)S(1)}`."""
    return format_shape(shape)


def _array_parts(shape: Shape):
    if shape.is_tuple:
        for part in shape.tuple_shapes:
            yield from _array_parts(part)
    elif shape.element_type not in ("token", "opaque"):
        yield shape


def _output_layouts(shape: Shape) -> tuple[OutputLayout, ...]:
    layouts = []
    for part in _array_parts(shape):
        try:
            size, padded = layout_math.unpadded_byte_size(part), layout_math.padded_byte_size(part)
        except ValueError:  # unbounded dynamic dimension: no static size to show
            size = padded = None
        layout = part.layout
        layouts.append(OutputLayout(
            shape=layout_shape_text(part), minor_to_major=layout.minor_to_major if layout else (),
            tiles=tile_text(part), memory_space=layout.memory_space if layout else 0,
            bytes=size, padded_bytes=padded))
    return tuple(layouts)


def _library_family(symbol: str) -> str:
    lowered = symbol.lower()
    for needle, family in (("cublaslt", "cuBLASLt"), ("cublas", "cuBLAS"), ("cudnn", "cuDNN"),
                           ("triton", "Triton"), ("onednn", "oneDNN"), ("mkl", "oneDNN"),
                           ("eigen", "Eigen"), ("xla_cpu_runtime", "XLA runtime"),
                           ("xla_gpu", "XLA runtime")):
        if needle in lowered:
            return family
    return "runtime library"


def _library_calls(instruction: HloInstruction, kernels: list[KernelRecord]) -> list[LibraryCall]:
    calls: list[LibraryCall] = []
    if instruction.custom_call_target:
        target = instruction.custom_call_target
        calls.append(LibraryCall(target, _library_family(target), instruction.name, "custom-call target"))
    triton = _TRITON_FUSION.search(instruction.backend_config) if instruction.opcode == "fusion" else None
    if triton:
        calls.append(LibraryCall(triton.group(1), "Triton", instruction.name, "fusion backend_config"))
    for kernel in kernels:
        for symbol in kernel.library_calls:
            if all(c.name != symbol for c in calls):
                calls.append(LibraryCall(symbol, _library_family(symbol), instruction.name, "kernel record"))
        if kernel.kind == "library" and not kernel.library_calls and not calls:
            # XLA:CPU says the op runs in a runtime library but the capture names no symbol.
            calls.append(LibraryCall("", "runtime library", instruction.name, "kernel kind"))
    return calls


def _locate(module: HloModule) -> dict[str, tuple[HloComputation, HloInstruction]]:
    """Every instruction by name, built once per module (each layer and target asks)."""
    return derived(module, "locate", lambda: {inst.name: (comp, inst) for comp, inst in module.all_instructions()})


def capture_hint(bundle: Bundle, target: str) -> str:
    """How to get a target that is not in the bundle: the UI key and the command."""
    targets = ",".join(dict.fromkeys((*bundle.targets, target)))
    return (f"press c in the explorer (opened from a model), or run: tensorweg capture "
            f"{bundle.manifest.model.spec} --targets {targets}")


def comparison_targets(bundle: Bundle) -> tuple[str, ...]:
    """The bundle's targets, then the default targets it lacks (shown as not captured)."""
    return tuple(dict.fromkeys((*bundle.targets, *DEFAULT_TARGETS)))


def _target_state(bundle: Bundle, target: str, levels: tuple[str, ...]) -> tuple[bool, str]:
    if target not in bundle.targets:
        return False, NOT_CAPTURED
    for level in levels:
        status = bundle.status(level, target)
        if status.status != "ok":
            detail = f": {status.error}" if status.error else ""
            state = NOT_CAPTURED if status.status == "pending" else status.status
            return False, f"{level} {state}{detail}"
    return True, "ok"


def _display_name(target: str) -> str:
    spec = TARGETS.get(target)
    return spec.display_name if spec else target


# --- one layer across targets ----------------------------------------------------------------


def target_layer(bundle: Bundle, layer: str, target: str) -> TargetLayer:
    """`layer` on one target (the device pane shows one at a time)."""
    if target in TARGETS and TARGETS[target].compiler == "tvm":  # TIR functions, not HLO
        return tvm_target_layer(bundle, layer, target)
    captured, status = _target_state(bundle, target, ("optimized-hlo",))
    module = bundle.hlo_module(target, optimized=True) if captured else None
    if module is None:
        hint = capture_hint(bundle, target) if target not in bundle.targets else ""
        if captured:
            status = "optimized-hlo did not parse"
        return TargetLayer(target, _display_name(target), False, status, hint)
    index = bundle.index
    spec = get_target(target)
    located = _locate(module)
    kernels_by_hlo: dict[str, list[KernelRecord]] = {}
    for kernel in bundle.kernels(target):
        for name in kernel.hlo:
            kernels_by_hlo.setdefault(name, []).append(kernel)
    rows, briefs, calls, note = [], {}, [], ""
    for name in index.items_for_layer(layer, "optimized-hlo", target):
        if name not in located:
            continue
        computation, inst = located[name]
        entry = index.entry("optimized-hlo", name, target)
        also = tuple(other for other in ((entry.layer,) + entry.also_layers if entry else ())
                     if other and other != layer)
        kernels = kernels_by_hlo.get(name, [])
        plumbing = inst.opcode in PLUMBING
        est = None if plumbing else estimate(module, computation, inst, spec)
        if est is not None:
            note = est.note
        rows.append(InstructionComparison(
            name=name, opcode=inst.opcode, fusion_kind=inst.fusion_kind,
            custom_call_target=inst.custom_call_target, also_layers=also,
            outputs=_output_layouts(inst.shape), kernels=tuple(k.name for k in kernels),
            flops=0.0 if plumbing else instruction_flops(module, computation, inst),
            bytes_accessed=0 if plumbing else instruction_bytes(computation, inst),
            estimate=est, plumbing=plumbing))
        for kernel in kernels:
            briefs.setdefault(kernel.name, KernelBrief(
                kernel.name, kernel.kind, kernel.hlo, kernel.library_calls, kernel.launch,
                kernel.vector_width_bits, kernel.notes, kernel.vector_registers))
        calls += _library_calls(inst, kernels)
    if not spec.has_roofline_figures:
        note = f"no estimate: tensorweg has no published peak figures for {target}"
    return TargetLayer(target, spec.display_name, True, status, "", tuple(rows),
                       tuple(briefs.values()), tuple(calls), note)


def layer_comparison(bundle: Bundle, layer: str) -> LayerComparison:
    """`layer` on every target of `comparison_targets(bundle)`, side by side.

    Raises TensorwegError for a layer the model does not have.
    """
    record = next((candidate for candidate in bundle.layers if candidate.name == layer), None)
    if record is None:
        known = ", ".join(candidate.name for candidate in bundle.layers) or "none captured"
        raise TensorwegError(f"no layer '{layer}' in {bundle.model_name} (layers: {known})")
    return LayerComparison(
        model=bundle.model_name, layer=layer, class_name=record.class_name,
        targets=tuple(target_layer(bundle, layer, t) for t in comparison_targets(bundle)))


# --- whole model per target -----------------------------------------------------------------


def target_summary(bundle: Bundle, target: str) -> TargetSummary:
    """Kernel and fusion counts, peak memory, FLOPs, bytes and the roofline ESTIMATE for `target`."""
    name = _display_name(target)
    if target not in bundle.targets:
        return TargetSummary(target, name, False, NOT_CAPTURED, capture_hint(bundle, target))
    captured, status = _target_state(bundle, target, ("optimized-hlo",))
    figures: dict = {}
    if bundle.status("kernels", target).status == "ok":
        kernels = bundle.kernels(target)
        figures["kernel_count"] = len(kernels)
        figures["kernels_note"] = next((k.notes for k in kernels if k.notes), "")
    memory = bundle.memory(target) if bundle.status("memory", target).status == "ok" else None
    if memory is not None:
        figures["peak_memory_bytes"] = memory.peak_bytes
        figures["peak_memory_source"] = memory.peak_source or "memory.json"
    cost = bundle.cost(target)
    if cost is not None:
        figures.update(flops=cost.flops, flops_source="XLA cost analysis",
                       bytes_accessed=cost.bytes_accessed, bytes_accessed_source="XLA cost analysis")
        optimal = dict(cost.extras).get("optimal_seconds")
        if optimal is not None:
            figures.update(_optimal_time(optimal))
    module = bundle.hlo_module(target, optimized=True) if captured else None
    if module is not None and module.entry is not None:
        figures.update(_module_figures(bundle, target, module, cost is None))
    elif captured and TARGETS[target].compiler == "tvm":
        figures["fusion_count"] = tvm_fusion_count(bundle, target)
    return TargetSummary(target, name, captured, status, "", **figures)


def _optimal_time(seconds: float) -> dict:
    """XLA's `optimal_seconds`, or a note saying why it is dropped: a run cannot take no or negative time."""
    if math.isfinite(seconds) and seconds > 0:
        return {"xla_optimal_seconds": seconds}
    return {"xla_optimal_note": f"dropped: XLA reported {seconds:.3g} s, not a possible run time"}


def _module_figures(bundle: Bundle, target: str, module: HloModule, from_shapes: bool) -> dict:
    entry = module.entry
    index = bundle.index
    fusions = sum(1 for e in index.top_level("optimized-hlo", target) if e.opcode == "fusion")
    figures: dict = {"fusion_count": fusions}
    work = [i for i in entry.instructions if i.opcode not in PLUMBING]
    if from_shapes:
        figures.update(
            flops=sum(instruction_flops(module, entry, i) for i in work),
            flops_source="summed from shapes (entry computation)",
            bytes_accessed=float(sum(instruction_bytes(entry, i) for i in work)),
            bytes_accessed_source="summed from shapes (operands + outputs, no padding)")
    spec = get_target(target)
    if not spec.has_roofline_figures:
        figures["estimate_note"] = f"no estimate: tensorweg has no published peak figures for {target}"
        return figures
    estimates = [e for e in (estimate(module, entry, i, spec) for i in work) if e is not None]
    if estimates:
        figures.update(
            estimated_seconds=sum(e.seconds for e in estimates),
            compute_bound=sum(e.bound == "compute" for e in estimates),
            memory_bound=sum(e.bound == "memory" for e in estimates),
            estimate_note="sum of per-instruction roofline times; " + estimates[0].note)
    return figures


# --- `tvm:cpu` through the comparison: a layer's TIR functions beside XLA's fusions -----------
# TVM's output has no HLO, so no layouts, FLOPs or roofline estimate: those fields stay empty.

NO_ESTIMATE = "no estimate: TVM's output has no HLO to count FLOPs from"


def tvm_target_layer(bundle: Bundle, layer: str, target: str) -> TargetLayer:
    """`layer` on a TVM target: its TIR functions (fused or single ops) and their x86 code."""
    spec = get_target(target)
    status = bundle.status("optimized-hlo", target)
    program = bundle.tvm_program(target) if status.status == "ok" else None
    if program is None:
        state = "not captured" if status.status in ("pending", "ok") else status.status
        detail = f"optimized-hlo {state}" + (f": {status.error}" if status.error else "")
        return TargetLayer(target, spec.display_name, False, detail)
    kernels = {kernel.name: kernel for kernel in bundle.kernels(target)}
    rows, briefs, calls = [], [], []
    for function in program.for_layer(layer):
        kernel = kernels.get(function.name)
        rows.append(InstructionComparison(
            name=function.name, opcode="fusion" if function.fused else short_ops(function),
            fusion_kind=short_ops(function) if function.fused else "", custom_call_target="",
            also_layers=tuple(other for other in function.layers if other != layer), outputs=(),
            kernels=(function.name,) if kernel else (), flops=0.0, bytes_accessed=0, estimate=None))
        if kernel is not None:
            briefs.append(KernelBrief(kernel.name, kernel.kind, kernel.hlo, kernel.library_calls, None,
                                      kernel.vector_width_bits, kernel.notes, kernel.vector_registers))
            calls += [LibraryCall(symbol, "runtime library", function.name, "kernel record")
                      for symbol in kernel.library_calls]
    return TargetLayer(target, spec.display_name, True, "ok", "", tuple(rows), tuple(briefs), tuple(calls),
                       NO_ESTIMATE)


def tvm_fusion_count(bundle: Bundle, target: str) -> int | None:
    program = bundle.tvm_program(target)
    return None if program is None else sum(f.fused for f in program.functions)
