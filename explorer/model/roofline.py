"""A static roofline ESTIMATE per kernel or fusion: is it bound by compute or by memory?

For one optimized-HLO instruction on one target:
    time  = max(flops / peak FLOP/s, bytes / memory bandwidth)
    bound = "compute" if the FLOP term is larger, else "memory"
FLOPs come from XLA's cost analysis where the caller has a per-instruction figure,
otherwise they are counted from shapes (2*M*N*K for dots and convolutions, one per
output element for elementwise ops, one per input element for reductions). Bytes
are the operands' and the output's array sizes: no caching, no reuse, no layout
padding (TPU tiles pad small arrays; real traffic can be larger).

This is an estimate from published peak figures (named in each result), never a
measurement: nothing here ran on the hardware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.hlo.model import HloComputation, HloInstruction, HloModule
from explorer.model.memo import derived
from explorer.targets import TargetSpec

# Ops that move or reinterpret data without arithmetic.
_NO_FLOPS = frozenset({
    "parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy", "copy-start",
    "copy-done", "reshape", "transpose", "broadcast", "slice", "dynamic-slice",
    "dynamic-update-slice", "pad", "concatenate", "iota", "reverse", "gather", "scatter",
    "bitcast-convert", "after-all", "partition-id", "replica-id", "opt-barrier",
})
_REDUCTIONS = frozenset({"reduce", "reduce-window", "reduce-precision"})
# Custom calls that are convolutions in disguise (cuDNN) carry window/dim_labels.
_CONVOLUTION_CALL = re.compile(r"^__cudnn\$conv")


@dataclass(frozen=True)
class RooflineEstimate:
    """One instruction's estimate; `note` says which figures were used."""

    instruction: str
    flops: float
    bytes: int
    seconds: float
    bound: str  # "compute" or "memory"
    peak_flops: float
    peak_dtype: str
    bandwidth: float
    flops_source: str  # "cost analysis" or "shapes"
    note: str


def _by_name(owner, members) -> dict:
    """A computation's instructions or a module's computations by name (built once per owner:
    rebuilding it on every call made a 30k-instruction module's estimate quadratic)."""
    return derived(owner, "by name", lambda: {member.name: member for member in members})


def _operand_shapes(computation: HloComputation, instruction: HloInstruction):
    by_name = _by_name(computation, computation.instructions)
    return [by_name[o].shape for o in instruction.operands if o in by_name]


def _dims_attribute(instruction: HloInstruction, key: str) -> tuple[int, ...]:
    value = instruction.attribute(key).strip("{}")
    return tuple(int(v) for v in value.split(",") if v.strip())


def _dot_flops(computation: HloComputation, instruction: HloInstruction) -> float:
    shapes = _operand_shapes(computation, instruction)
    if not shapes:
        return 0.0
    lhs = shapes[0]
    contracted = 1
    for d in _dims_attribute(instruction, "lhs_contracting_dims"):
        if d < len(lhs.dims):
            contracted *= lhs.dims[d]
    return 2.0 * instruction.shape.element_count * contracted


def _convolution_flops(computation: HloComputation, instruction: HloInstruction) -> float:
    """2 x output elements x (kernel elements per output feature)."""
    shapes = _operand_shapes(computation, instruction)
    labels = instruction.attribute("dim_labels")  # e.g. b01f_01io->b01f
    if len(shapes) < 2 or "_" not in labels:
        return 0.0
    kernel = shapes[1]
    kernel_labels = labels.split("_", 1)[1].split("->", 1)[0]
    out_index = kernel_labels.find("o")
    if out_index < 0 or out_index >= len(kernel.dims) or not kernel.dims[out_index]:
        return 0.0
    output = instruction.shape.tuple_shapes[0] if instruction.shape.is_tuple else instruction.shape
    return 2.0 * output.element_count * kernel.element_count / kernel.dims[out_index]


def instruction_flops(module: HloModule, computation: HloComputation,
                      instruction: HloInstruction) -> float:
    """FLOPs of one instruction counted from shapes (fusions: their body's sum)."""
    op = instruction.opcode
    if op == "dot":
        return _dot_flops(computation, instruction)
    if op == "convolution":
        return _convolution_flops(computation, instruction)
    if op == "custom-call":
        if _CONVOLUTION_CALL.match(instruction.custom_call_target):
            return _convolution_flops(computation, instruction)
        return 0.0  # a library call whose work the HLO does not describe
    if op in ("fusion", "call", "async-start"):
        total = 0.0
        for name in instruction.called_computations:
            called = _by_name(module, module.computations).get(name)
            if called is not None:
                total += sum(instruction_flops(module, called, i) for i in called.instructions)
        return total
    if op in _NO_FLOPS or instruction.shape.is_tuple:
        return 0.0
    if op in _REDUCTIONS:
        shapes = _operand_shapes(computation, instruction)
        return float(shapes[0].element_count) if shapes else 0.0
    return float(instruction.shape.element_count)


def instruction_bytes(computation: HloComputation, instruction: HloInstruction) -> int:
    """Operand bytes read plus output bytes written (unpadded array sizes)."""
    if instruction.opcode == "copy-start":  # output tuple repeats the source: count one copy
        return 2 * sum(s.byte_size for s in _operand_shapes(computation, instruction))
    return sum(s.byte_size for s in _operand_shapes(computation, instruction)) + instruction.shape.byte_size


def _element_type(instruction: HloInstruction) -> str:
    shape = instruction.shape
    while shape.is_tuple and shape.tuple_shapes:
        shape = shape.tuple_shapes[0]
    return shape.element_type


def estimate(module: HloModule, computation: HloComputation, instruction: HloInstruction,
             spec: TargetSpec, flops: float | None = None) -> RooflineEstimate | None:
    """The roofline estimate for one instruction; None when the target has no figures.

    flops: XLA's cost-analysis figure for this instruction when the caller has one.
    """
    if not spec.has_roofline_figures:
        return None
    source = "cost analysis" if flops is not None else "shapes"
    if flops is None:
        flops = instruction_flops(module, computation, instruction)
    moved = instruction_bytes(computation, instruction)
    dtype, peak = spec.peak_for(_element_type(instruction))
    compute_s = flops / peak
    memory_s = moved / spec.memory_bandwidth
    peaks = "peaks derived from published figures" if spec.peak_derived(dtype) else "published peaks"
    note = (f"ESTIMATE from {peaks}, not a measurement: {peak / 1e12:g} TFLOP/s "
            f"({dtype}) and {spec.memory_bandwidth / 1e9:g} GB/s, {spec.roofline_source(dtype)}; "
            f"FLOPs from {source}, bytes = operands + output without padding or caching")
    return RooflineEstimate(
        instruction=instruction.name, flops=flops, bytes=moved,
        seconds=max(compute_s, memory_s),
        bound="compute" if compute_s > memory_s else "memory",
        peak_flops=peak, peak_dtype=dtype, bandwidth=spec.memory_bandwidth,
        flops_source=source, note=note,
    )
