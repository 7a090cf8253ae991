"""The `tvm:cpu` target seen through the comparison: a layer's TVM functions beside XLA's fusions.

Pure (no TVM import): reads `targets/tvm-cpu/tvm.json` and `kernels.json` of a
bundle. XLA's column of a layer lists optimized-HLO instructions; TVM's lists
the TIR functions (after FuseOps + FuseTIR) whose ONNX nodes belong to the
layer, each with its x86 code's widest vector register. There is no HLO for
TVM, so no layouts, FLOPs or roofline estimate: those fields stay empty.
"""

from __future__ import annotations

from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.serial import load_json
from explorer.model.tvm_program import TVM_PROGRAM_FILE, TvmFunction, TvmProgram
from explorer.targets import get_target
from explorer.views.comparison import InstructionComparison, KernelBrief, LibraryCall, TargetLayer

NO_ESTIMATE = "no estimate: TVM's output has no HLO to count FLOPs from"


def is_tvm(target: str) -> bool:
    try:
        return get_target(target).compiler == "tvm"
    except TensorwegError:
        return False


def tvm_program(bundle: Bundle, target: str) -> TvmProgram | None:
    """The bundle's TVM program for `target`, or None when it was not captured."""
    path = bundle.target_dir(target) / TVM_PROGRAM_FILE
    return load_json(TvmProgram, path, f"targets/{path.parent.name}/{TVM_PROGRAM_FILE}") if path.is_file() else None


def short_ops(function: TvmFunction) -> str:
    """`conv2d+relu`: the Relax ops of a function without their namespaces."""
    return "+".join(op.rsplit(".", 1)[-1] for op in function.ops) or function.name


def tvm_target_layer(bundle: Bundle, layer: str, target: str) -> TargetLayer:
    """`layer` on a TVM target: its TIR functions (fused or single ops) and their x86 code."""
    spec = get_target(target)
    status = bundle.status("optimized-hlo", target)
    program = tvm_program(bundle, target) if status.status == "ok" else None
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
    program = tvm_program(bundle, target)
    return None if program is None else sum(f.fused for f in program.functions)
