"""XLA's side of the comparison: a layer's optimized-HLO instructions on one target with their
kernels, library calls, layouts, FLOPs and roofline ESTIMATE (`TargetLayer`), and the whole
model's figures (`TargetSummary`).

Loaded when the comparison or the device pane first asks (`XlaTargetProgram.target_layer`): the
layout math and the roofline stay off the first frame's imports.
"""

from __future__ import annotations

import re

from explorer.hlo import layout_math
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Shape
from explorer.hlo.text import format_shape, tiles_text
from explorer.model.bundle import Bundle
from explorer.model.memo import derived
from explorer.model.records import KernelRecord
from explorer.model.roofline import estimate, instruction_bytes, instruction_flops
from explorer.targets import get_target
from explorer.views.programs.target_layer import (
    PLUMBING,
    InstructionComparison,
    LibraryCall,
    OutputLayout,
    TargetLayer,
    display_name,
    kernel_brief,
    target_state,
)
from explorer.views.suggested import capture_hint

# A fusion XLA:GPU hands to Triton names it in backend_config: "kind":"__triton" (e.g. softmax),
# "__triton_gemm", "__triton_nested_gemm_fusion" (matmuls), ...
_TRITON_FUSION = re.compile(r'"kind"\s*:\s*"(__triton[^"]*)"')


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


def hlo_target_layer(bundle: Bundle, layer: str, target: str) -> TargetLayer:
    """`layer` on an XLA target: its top-level optimized-HLO instructions, their kernels and library
    calls, their layouts, FLOPs and roofline ESTIMATE."""
    captured, status = target_state(bundle, target, ("optimized-hlo",))
    module = bundle.hlo_module(target, optimized=True) if captured else None
    if module is None:
        hint = capture_hint(bundle, target) if target not in bundle.targets else ""
        if captured:
            status = "optimized-hlo did not parse"
        return TargetLayer(target, display_name(target), False, status, hint)
    index = bundle.index
    spec = get_target(target)
    located = _locate(module)
    records = bundle.kernels(target)
    kernels_by_hlo = derived(records, "kernels by instruction", lambda: _kernels_by_hlo(records))
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
            if kernel.name not in briefs:
                briefs[kernel.name] = kernel_brief(kernel, target)
        calls += _library_calls(inst, kernels)
    if not spec.has_roofline_figures:
        note = f"no estimate: tensorweg has no published peak figures for {target}"
    return TargetLayer(target, spec.display_name, True, status, "", tuple(rows),
                       tuple(briefs.values()), tuple(calls), note)


def _kernels_by_hlo(records: tuple[KernelRecord, ...]) -> dict[str, list[KernelRecord]]:
    """Each optimized instruction's kernels: one table for every layer's comparison (a deep model's
    one XLA:CPU kernel lists 5,000 fusions, and each layer's warm-up walked them all again)."""
    found: dict[str, list[KernelRecord]] = {}
    for kernel in records:
        for name in kernel.hlo:
            found.setdefault(name, []).append(kernel)
    return found


def module_figures(bundle: Bundle, target: str, from_shapes: bool) -> dict:
    """The whole-model figures the optimized module gives (`TargetSummary`): its fusions, FLOPs and bytes
    counted from shapes when XLA's cost analysis has none, and the roofline ESTIMATE; {} without a module."""
    module = bundle.hlo_module(target, optimized=True)
    if module is None or module.entry is None:
        return {}
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
