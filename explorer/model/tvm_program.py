"""What TVM made of a model (the `tvm:cpu` target), as data, and the text parsing behind it.

Pure: no TVM import. The TVM worker (explorer.capture.tvm_worker) fills a
`TvmProgram` and writes it as `targets/tvm-cpu/tvm.json`; the comparison and the
device pane read it (explorer.views.compare). The functions here cut TVM's printed
output into per-function pieces; tests/test_tvm_program.py runs them on output
recorded from a real capture (tests/fixtures/tvm/).

How a fused function is linked to Keras layers: the ONNX exporter (tf2onnx)
names every ONNX node after the TensorFlow op it came from
(`mnist_cnn_1/conv2d_1/convolution`), so the node names carry the layers' name
scopes; the worker records, while the model is traced for export, which scope
each layer was called under, and links each Relax binding to the ONNX node
that produced it. Nodes the exporter invents (`Transpose__26`, a layout
change between NHWC and NCHW) belong to no layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.hlo.element_bits import ELEMENT_BITS
from explorer.model.records import Allocation, MemoryLevel

TVM_PROGRAM_FILE = "tvm.json"
# The TVM-generated wrapper that checks arguments and calls the function's body.
_FFI_PREFIX = "__tvm_ffi_"
# The function's body, outlined by TVM's LLVM code generator.
_COMPUTE_SUFFIX = "_compute_"
_ASM_LABEL = re.compile(r"^([A-Za-z_][\w.$]*):", re.M)
_LLVM_DEFINE = re.compile(r"^define [^@]*@\"?([\w.$]+)\"?\(", re.M)
_ALLOC_STORAGE = re.compile(
    r"^\s*(?P<name>[\w.]+)\s*:\s*R\.Any\s*=\s*R\.memory\.alloc_storage\("
    r"R\.shape\(\[(?P<size>\d+)\]\),\s*(?P<device>\d+),\s*R\.str\(\"(?P<scope>[^\"]*)\"\)", re.M)
_ALLOC_TENSOR = re.compile(
    r"^\s*(?P<name>[\w.]+)\s*:\s*R\.Tensor\(\((?P<shape>[^)]*)\), dtype=\"\w+\"\)\s*=\s*R\.memory\.alloc_tensor\("
    r"(?P<storage>[\w.]+),", re.M)
_PLT_CALL = re.compile(r"\bcallq?\s+([\w.$]+)@PLT")
# AArch64 (`tvm:arm`): LLVM writes a call as `bl expf`, with no PLT suffix to say it leaves the module.
_BRANCH_LINK = re.compile(r"^\s+bl\s+([\w.$]+)\s*$", re.M)
_BUILTIN_ALLOC = re.compile(
    r"^\s*(?P<name>[\w.]+)\s*:\s*R\.Tensor\(\((?P<shape>[^)]*)\), dtype=\"(?P<dtype>\w+)\"\)\s*=\s*"
    r"R\.builtin\.alloc_tensor\(", re.M)
# TVM's dtype names as XLA spells the element type (sizes: explorer.hlo.element_bits.ELEMENT_BITS).
ELEMENT_TYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "s64",
                 "int32": "s32", "int8": "s8", "uint8": "u8", "bool": "pred"}


@dataclass(frozen=True)
class TvmFunction:
    """One TIR function of the compiled program: a fused group of Relax ops, or one op alone.

    ops: the Relax operators it computes, in program order (`relax.nn.conv2d`, `relax.nn.relu`).
    onnx_nodes: the ONNX nodes those ops came from (the link to the Keras layers).
    layers: the Keras layers of those nodes, in order; empty where the exporter made the node.
    tir: the function in TVMScript after FuseTIR (what the LLVM code generator gets).
    bindings: the Relax vars of `main` as imported (`lv1`, `gv`) that it computes: the link
        from the `hlo` level (Relax as imported) to this function.
    """

    name: str
    ops: tuple[str, ...]
    onnx_nodes: tuple[str, ...]
    layers: tuple[str, ...]
    tir: str = ""
    bindings: tuple[str, ...] = ()

    @property
    def fused(self) -> bool:
        return len(self.ops) > 1


@dataclass(frozen=True)
class TvmProgram:
    """The functions in program order, and how they were compiled."""

    functions: tuple[TvmFunction, ...]
    target: str  # TVM's target, as TVM prints it
    pipeline: str  # the Relax passes applied before the build
    onnx_exporter: str  # what turned the Keras model into ONNX

    def for_layer(self, layer: str) -> tuple[TvmFunction, ...]:
        return tuple(f for f in self.functions if layer in f.layers)


def asm_by_function(asm: str, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each TIR function's assembly (x86, or AArch64 for `tvm:arm`): its FFI wrapper and its outlined body.

    TVM's LLVM code generator emits `__tvm_ffi_<name>` (argument checks) and
    `<name>_compute_` (the loops); a label belongs to the function whose name
    it carries exactly, so `reshape` never takes `reshape1`'s code.
    """
    labels = [(m.start(), m.group(1)) for m in _ASM_LABEL.finditer(asm) if not m.group(1).startswith(".")]
    pieces: dict[str, list[str]] = {name: [] for name in names}
    for index, (start, label) in enumerate(labels):
        end = labels[index + 1][0] if index + 1 < len(labels) else len(asm)
        owner = _owner(label, names)
        if owner:
            pieces[owner].append(asm[start:end].rstrip())
    return {name: "\n\n".join(parts) for name, parts in pieces.items()}


def llvm_ir_by_function(llvm_ir: str, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each TIR function's LLVM IR `define`s (wrapper and body), cut at their closing brace."""
    pieces: dict[str, list[str]] = {name: [] for name in names}
    for match in _LLVM_DEFINE.finditer(llvm_ir):
        owner = _owner(match.group(1), names)
        if not owner:
            continue
        end = llvm_ir.find("\n}", match.start())
        pieces[owner].append(llvm_ir[match.start(): len(llvm_ir) if end < 0 else end + 2])
    return {name: "\n\n".join(parts) for name, parts in pieces.items()}


def plt_calls(asm: str, defined: frozenset[str] | None = None) -> tuple[str, ...]:
    """Library routines the code calls through the PLT (`expf` for softmax), sorted. With `defined` (the
    labels of the whole module's AArch64 assembly, `asm_labels`), also each `bl` to a symbol it does not define."""
    found = set(_PLT_CALL.findall(asm))
    if defined is not None:
        found |= {name for name in _BRANCH_LINK.findall(asm) if name not in defined}
    return tuple(sorted(found))


def asm_labels(asm: str) -> frozenset[str]:
    """Every label the module's assembly defines (its functions and their local helpers)."""
    return frozenset(_ASM_LABEL.findall(asm))


def _owner(symbol: str, names: tuple[str, ...] | list[str]) -> str:
    for name in names:
        if symbol in (f"{_FFI_PREFIX}{name}", name) or symbol.startswith(f"{name}{_COMPUTE_SUFFIX}"):
            return name
    return ""


def static_memory_plan(planned_main: str) -> MemoryLevel:
    """TVM's static memory plan (Relax `main` after StaticPlanBlockMemory), as a memory level.

    Each `R.memory.alloc_storage` is one allocation that several tensors share
    in turn (the plan reuses a storage once its last tensor is dead); the
    output, allocated by `R.builtin.alloc_tensor`, is the program's own. Peak:
    the storages and the output together, since the plan keeps them for the
    whole call. The report lists which tensors share which storage.
    """
    tensors: dict[str, list[str]] = {}
    for match in _ALLOC_TENSOR.finditer(planned_main):
        tensors.setdefault(match["storage"], []).append(f"{match['name']} [{match['shape']}]")
    allocations, report = [], []
    for index, match in enumerate(_ALLOC_STORAGE.finditer(planned_main)):
        size = int(match["size"])
        users = tensors.get(match["name"], [])
        allocations.append(Allocation(index=index, size=size, kind="temp", flags=("storage", match["scope"])))
        report.append(f"{match['name']}: {size} bytes, {match['scope']}, holds {', '.join(users) or 'nothing'}")
    for match in _BUILTIN_ALLOC.finditer(planned_main):
        size = _tensor_bytes(match["shape"], match["dtype"])
        allocations.append(Allocation(index=len(allocations), size=size, kind="output", flags=("output",)))
        report.append(f"{match['name']}: {size} bytes, the output")
    return MemoryLevel(
        allocations=tuple(allocations), peak_bytes=sum(a.size for a in allocations),
        report="TVM static memory plan (StaticPlanBlockMemory)\n" + "\n".join(report),
        peak_source="tvm static plan" if allocations else "")


def _tensor_bytes(shape: str, dtype: str) -> int:
    size = ELEMENT_BITS[ELEMENT_TYPES[dtype]] // 8 if dtype in ELEMENT_TYPES else 4
    for dim in (part.strip() for part in shape.split(",")):
        if dim:
            size *= int(dim) if dim.isdigit() else 0
    return size


def short_ops(function: TvmFunction) -> str:
    """`conv2d+relu`: the Relax ops of a function without their namespaces."""
    return "+".join(op.rsplit(".", 1)[-1] for op in function.ops) or function.name
