"""TVM's Relax at the levels the learner knows: `hlo` is Relax as imported, `optimized-hlo` after fusion.

Pure (no TVM import): reads the bundle's `hlo.txt`, `optimized_hlo.txt` (TVMScript, as
the TVM worker printed them) and `tvm.json`. XLA's HLO levels list instructions;
for a TVM target they list:

* `hlo`: each binding of Relax `main` as the ONNX importer made it (`lv1 = R.nn.conv2d(...)`),
  linked to the TIR function that computes it after fusion (`TvmFunction.bindings`,
  recorded by the worker from FuseOps' grouping) and so to its layers;
* `optimized-hlo`: each TIR function `main` calls after FuseOps + FuseTIR, in program
  order (`fused_conv2d_relu`), at the line of its `def` in the module's text;
* `kernels`: the same functions, compiled (one `KernelRecord` each, named alike).

The trace (`layer_of`, `items_for_layer`, `down`, `up`) and `counterpart` answer from
these links; `TvmTargetProgram` answers for a TVM target what the views ask of any target's
program (`explorer.views.programs.TargetProgram`), the comparison's column included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NoReturn

from explorer.errors import TensorwegError
from explorer.levels import NEXT_DOWN, level_named
from explorer.model.bundle import Bundle
from explorer.model.tvm_program import ELEMENT_TYPES, TvmFunction, short_ops
from explorer.targets import get_target

if TYPE_CHECKING:
    from explorer.model.records import LevelStatus
    from explorer.views.programs.program import TargetProgram

from explorer.views.format import text_table
from explorer.views.items import COLUMNS, LevelItem, RowGroup, kernel_rows, make_item
from explorer.views.programs.target_layer import InstructionComparison, LibraryCall, TargetLayer, kernel_brief
from explorer.views.tables import kernel as kernel_record
from explorer.views.tables import per_bundle

# `lv1: R.Tensor((1, 8, 26, 26), dtype="float32") = R.nn.conv2d(lv, ...)` in Relax as imported.
_BINDING = re.compile(
    r"^\s+(?P<var>[\w.]+): R\.Tensor\(\((?P<shape>[^)]*)\), dtype=\"(?P<dtype>\w+)\"\) = R\.(?P<op>[\w.]+)\(", re.M)
_DEF = re.compile(r"^\s+def (?P<name>[\w.]+)\(", re.M)
# Relax ops that do a layer's work, and the XLA opcodes doing the same work (for `t` between compilers).
_WORK = (("conv", "convolution"), ("matmul", "dot"), ("dense", "dot"), ("pool", "reduce-window"),
         ("softmax", "reduce"), ("sum", "reduce"), ("mean", "reduce"))


@dataclass(frozen=True)
class RelaxItem:
    """One row of a TVM target's `hlo` or `optimized-hlo` level.

    name: the Relax var (`lv1`) or TIR function (`fused_conv2d_relu`).
    kind: the Relax op without `R.` (`nn.conv2d`), or for a function `fusion` / its one op.
    ops: the Relax ops it computes (one for a binding). shape: `f32[1,8,26,26]`.
    function: the TIR function computing it after fusion. layers: the Keras layers, in order.
    line: 1-based line in the level's text.
    """

    name: str
    kind: str
    ops: tuple[str, ...]
    shape: str
    function: str
    layers: tuple[str, ...]
    line: int


# A few bundles' rows (the open one and a staging one); a bundle's files never change.
@lru_cache(maxsize=8)
def relax_items(bundle: Bundle, target: str, optimized: bool) -> tuple[RelaxItem, ...]:
    """The rows of a TVM target's HLO level (empty when it was not captured)."""
    program = bundle.tvm_program(target)
    text = bundle.hlo_text(target, optimized)
    if program is None or not text:
        return ()
    if optimized:
        return _functions(program.functions, text)
    return _bindings(program.functions, text)


def _functions(functions: tuple[TvmFunction, ...], text: str) -> tuple[RelaxItem, ...]:
    lines = {m["name"]: text.count("\n", 0, m.start()) + 1 for m in _DEF.finditer(text)}
    shapes = {function.name: _output_shape(function.tir) for function in functions}
    return tuple(RelaxItem(f.name, "fusion" if f.fused else short_ops(f), f.ops, shapes[f.name], f.name,
                           f.layers, lines.get(f.name, 0)) for f in functions)


def _bindings(functions: tuple[TvmFunction, ...], text: str) -> tuple[RelaxItem, ...]:
    owner = {var: function for function in functions for var in function.bindings}
    found = []
    for match in _BINDING.finditer(text):
        function = owner.get(match["var"])
        found.append(RelaxItem(
            match["var"], match["op"], (f"relax.{match['op']}",), _shape(match["dtype"], match["shape"]),
            function.name if function else "", function.layers if function else (),
            text.count("\n", 0, match.start()) + 1))
    return tuple(found)


# The last `T.Buffer((...), "dtype")` of a PrimFunc's signature is its output (TIR's destination-passing style).
_BUFFER = re.compile(r"T\.Buffer\(\((?P<shape>[^()]*(?:\([^()]*\)[^()]*)*)\), \"(?P<dtype>\w+)\"\)")


def _output_shape(tir: str) -> str:
    header = next((line for line in tir.splitlines() if line.startswith("def ")), "")
    buffers = list(_BUFFER.finditer(header))
    if not buffers:
        return ""
    last = buffers[-1]
    dims = re.sub(r"T\.int64\((\d+)\)", r"\1", last["shape"])
    return _shape(last["dtype"], dims)


def _shape(dtype: str, dims: str) -> str:
    return f"{ELEMENT_TYPES.get(dtype, dtype)}[{','.join(d.strip() for d in dims.split(',') if d.strip())}]"


def work(kind_or_ops: str) -> frozenset[str]:
    """The XLA opcodes doing the same work as a Relax op (`nn.conv2d` -> convolution), so `t`
    between XLA and TVM lands on the convolution's counterpart, not its reshape."""
    lowered = kind_or_ops.lower()
    return frozenset(opcode for needle, opcode in _WORK if needle in lowered)


def item_work(item: RelaxItem) -> frozenset[str]:
    return frozenset().union(*(work(op) for op in item.ops))


# --- the trace on a TVM target: what `explorer.views` answers for it ------------------------------

def items(bundle: Bundle, level: str, target: str) -> tuple[RelaxItem, ...]:
    """A TVM target's rows at `hlo`, `optimized-hlo` or `kernels` (kernels: the functions again)."""
    this = level_named(level)
    if this.is_hlo:
        return relax_items(bundle, target, this.optimized)
    if this.lists_kernels:
        compiled = {kernel.name for kernel in bundle.kernels(target)}
        return tuple(item for item in relax_items(bundle, target, True) if item.name in compiled)
    return ()


def find(bundle: Bundle, level: str, target: str, name: str) -> RelaxItem | None:
    return next((item for item in items(bundle, level, target) if item.name == name), None)


def layer_of(bundle: Bundle, level: str, name: str, target: str) -> str:
    found = find(bundle, level, target, name)
    return found.layers[0] if found is not None and found.layers else ""


def items_for_layer(bundle: Bundle, layer: str, level: str, target: str) -> tuple[str, ...]:
    return tuple(item.name for item in items(bundle, level, target) if layer in item.layers)


def down(bundle: Bundle, level: str, name: str, target: str) -> tuple[str, ...]:
    """A binding -> the function computing it; a function -> its compiled kernel."""
    found = find(bundle, level, target, name)
    if found is None or not found.function:
        return ()
    below = NEXT_DOWN[level] if level_named(level).is_hlo else ""
    return (found.function,) if below and find(bundle, below, target, found.function) else ()


def up(bundle: Bundle, level: str, name: str, target: str) -> tuple[str, ...]:
    """A kernel -> its function; a function -> the bindings of Relax as imported that it computes."""
    if level_named(level).lists_kernels:
        return (name,) if find(bundle, "optimized-hlo", target, name) else ()
    if level_named(level).optimized:
        return tuple(item.name for item in items(bundle, "hlo", target) if item.function == name)
    return ()


def counterpart(bundle: Bundle, level: str, target: str, layer: str, work_done: frozenset[str],
                fusion: bool = False) -> str:
    """On a TVM target, `layer`'s item at `level` doing `work_done` (the XLA opcodes of the item
    left behind), else for a fusion the layer's fused function, else its first item; "" when none."""
    candidates = [item for item in items(bundle, level, target) if layer in item.layers]
    owned = [item for item in candidates if item.layers[0] == layer] or candidates
    best = next((item for item in owned if item_work(item) & work_done), None)
    best = best or next((item for item in owned if fusion and len(item.ops) > 1), None)
    best = best or (owned[0] if owned else None)
    return best.name if best is not None else ""


def explanation_keys(bundle: Bundle, level: str, target: str, name: str) -> list[tuple[str, ...]]:
    """The course keys of a TVM item, one group per text (`explorer.views.explain.explanation_keys`):
    a Relax binding, a fused or single-op TIR function, its compiled code, a storage of the plan."""
    if level_named(level).maps_buffers:
        memory = bundle.memory(target)
        allocation = next((a for a in memory.allocations if str(a.index) == name), None) if memory else None
        if allocation is None:
            return []
        own = ("compiler:tvm-storage",) if "storage" in allocation.flags else ("allocation:output",)
        return [own, ("compiler:tvm-memory-plan",)]
    found = find(bundle, level, target, name)
    if found is None:
        return []
    if level_named(level).lowered:
        return [("compiler:tvm-relax",), ("compiler:tvm-fusion",)]
    function = ("compiler:tvm-fused-function",) if found.kind == "fusion" else ("compiler:tvm-tir",)
    if level_named(level).optimized:
        return [function, ("compiler:tvm-tir",), ("compiler:tvm-pipeline",)]
    from explorer.texts import keys  # noqa: PLC0415 (the course's keys load with the first explanation)

    record = kernel_record(bundle, target, name)  # `tvm:arm`: the AArch64 listing's texts too
    isa = [(key,) for key in keys.listing_keys(record, get_target(target).isa, False)] if record else []
    return [("compiler:tvm-codegen",), ("compiler:tvm-metaschedule",), *isa]


# --- the program: what the views ask of a TVM target -------------------------------------------

# TVM's output has no HLO, so no layouts, FLOPs or roofline estimate: those fields stay empty.
NO_ESTIMATE = "no estimate: TVM's output has no HLO to count FLOPs from"


class TvmTargetProgram:
    """What TVM compiled for one target of a bundle, as the views ask it (see `TargetProgram`)."""

    no_layer_text = "created by TVM"

    def __init__(self, bundle: Bundle, target: str) -> None:
        self.bundle, self.target = bundle, target

    def rows(self, level: str, lang: str) -> tuple[LevelItem, ...]:
        if level_named(level).lists_kernels:
            return kernel_rows(self.bundle, self.target)
        return _relax_rows(self.bundle, level, self.target)

    def row_groups(self, level: str, lang: str) -> dict[str, RowGroup]:
        return {}  # Relax and TIR functions are listed flat, in program order

    def graph(self, level: str) -> NoReturn:
        """Not drawn: the bundle records which function computes each binding, not which bindings feed
        it, so a picture would be boxes without arrows."""
        raise TensorwegError(f"{self.target}: TVM's {level} is not drawn as a graph (the capture records no "
                             "data flow between its functions); draw an XLA target, or the layers or graph level")

    def selector_items(self, level: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((item.name, (item.kind,)) for item in self.rows(level, "en"))

    def layer_of(self, level: str, name: str) -> str:
        return layer_of(self.bundle, level, name, self.target)

    def items_for_layer(self, layer: str, level: str) -> tuple[str, ...]:
        return items_for_layer(self.bundle, layer, level, self.target)

    def down(self, level: str, name: str) -> tuple[str, ...]:
        return down(self.bundle, level, name, self.target)

    def up(self, level: str, name: str) -> tuple[str, ...]:
        return up(self.bundle, level, name, self.target)

    def same_shape_below(self, level: str, name: str, below: str, found: tuple[str, ...]) -> tuple[str, ...]:
        return ()  # a binding leads to one function, a function to one kernel: nothing to choose among

    def does_no_work(self, level: str, name: str) -> bool:
        return False

    def kind(self, level: str, name: str) -> str:
        found = find(self.bundle, level, self.target, name)
        return found.kind if found is not None else ""

    def work(self, level: str, name: str) -> frozenset[str]:
        found = find(self.bundle, level, self.target, name)
        return item_work(found) if found is not None else frozenset()

    def counterpart(self, level: str, name: str, source: TargetProgram, layer: str) -> str:
        """`t` from another target: the layer's function doing the work of `name` there (its XLA opcodes,
        or the Relax op its kind names), else for a fusion the layer's fused function, else its first."""
        layer = layer or source.layer_of(level, name)
        kind = source.kind(level, name)
        work_done = source.work(level, name) | work(kind)
        if not layer:
            return ""
        return counterpart(self.bundle, level, self.target, layer, work_done, kind == "fusion")

    def explanation_keys(self, level: str, name: str) -> list[tuple[str, ...]]:
        return explanation_keys(self.bundle, level, self.target, name)

    def optimized_captured(self, status: LevelStatus) -> bool:
        return status.status == "ok"

    def target_layer(self, layer: str) -> TargetLayer:
        """`layer` on a TVM target: its TIR functions (fused or single ops) and their x86 code."""
        bundle, target = self.bundle, self.target
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
                briefs.append(kernel_brief(kernel, self.target))
                calls += [LibraryCall(symbol, "runtime library", function.name, "kernel record")
                          for symbol in kernel.library_calls]
        return TargetLayer(target, spec.display_name, True, "ok", "", tuple(rows), tuple(briefs), tuple(calls),
                           NO_ESTIMATE)

    def summary_figures(self, from_shapes: bool) -> dict[str, Any]:
        """The fused functions stand for XLA's fusions; no FLOPs or estimate without HLO."""
        program = self.bundle.tvm_program(self.target)
        return {"fusion_count": None if program is None else sum(f.fused for f in program.functions)}

    def level_data(self, level: str) -> dict[str, Any]:
        """`hlo`: Relax `main`'s bindings as imported; `optimized-hlo`: the TIR functions after fusion."""
        found = relax_items(self.bundle, self.target, level_named(level).optimized)
        if not found:
            raise TensorwegError(f"{level} for {self.target}: the Relax text was captured but lists no bindings")
        return {"compiler": "tvm", "relax": [
            {"name": item.name, "kind": item.kind, "ops": list(item.ops), "shape": item.shape,
             "function": item.function, "layers": list(item.layers),
             "layer": self.layer_of(level, item.name), "line": item.line}
            for item in found]}

    def level_text(self, level: str) -> str:
        """The rows as a table: TVMScript's TIR bodies would bury the program's outline."""
        return text_table(COLUMNS[level], [item.cells for item in self.rows(level, "en")])


@per_bundle
def _relax_rows(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    """Relax as imported (`hlo`) or after fusion (`optimized-hlo`): one row per binding or TIR
    function, in the columns of the HLO levels (the layer where XLA shows an op_name)."""
    return tuple(make_item(level, item.name, (item.name, item.kind, item.shape, ", ".join(item.layers)),
                           item.kind, item.line)
                 for item in relax_items(bundle, target, level_named(level).optimized))
