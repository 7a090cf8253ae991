"""An XLA target's program (`cpu`, `gpu:h100`, `tpu:v5e`, ...): the parsed HLO modules, the cross-level
index and the kernel records, answering what the views ask of a target (`TargetProgram`).

`hlo` and `optimized-hlo` list every instruction of the module, the entry computation first and each
called computation as a foldable group; the trace follows the index's links; `t` from another
target ranks the layer's instructions by kind and by the heavy work fused into them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import is_hlo, level_named
from explorer.views.format import format_int

if TYPE_CHECKING:
    from explorer.hlo.model import HloInstruction
    from explorer.model.bundle import Bundle
    from explorer.model.records import KernelRecord, LevelStatus
    from explorer.views.graphs.parts import LevelGraph
    from explorer.views.programs.program import TargetProgram
    from explorer.views.programs.target_layer import TargetLayer

from explorer.model.sharding import COLLECTIVES
from explorer.targets import get_target
from explorer.views.buffers import allocation_by_index, allocation_of, step_layout, step_members
from explorer.views.items import CREATED_BY_XLA, LevelItem, RowGroup, kernel_rows, make_item, role_text, shape_text
from explorer.views.programs.target_layer import PLUMBING
from explorer.views.tables import (
    computation_table,
    cross_index,
    instruction,
    instruction_table,
    kernel,
    parameter_entries,
    per_bundle,
)

# Runs shorter than this stay plain rows: a fold would hide as much as it saves.
_GROUP_AT_LEAST = 2
# Opcodes that are the work of a layer (what a fusion is built around); elementwise ops are not.
_HEAVY = frozenset({"convolution", "dot", "reduce", "reduce-window", "select-and-scatter", "scatter", "gather",
                    "sort", "while", "conditional", "fft", "triangular-solve", "cholesky"})
# Library calls named after the work they do (`__cudnn$convForward`, `__cublas$gemm`).
_CALLS = (("conv", "convolution"), ("gemm", "dot"), ("matmul", "dot"))


class XlaTargetProgram:
    """What XLA compiled for one target of a bundle, as the views ask it (see `TargetProgram`)."""

    no_layer_text = CREATED_BY_XLA

    def __init__(self, bundle: Bundle, target: str) -> None:
        self.bundle, self.target = bundle, target

    # --- the lists -----------------------------------------------------------------------------

    def rows(self, level: str, lang: str) -> tuple[LevelItem, ...]:
        if level_named(level).lists_kernels:
            return kernel_rows(self.bundle, self.target)
        return _hlo_outline(self.bundle, level, self.target, lang)[0]

    def row_groups(self, level: str, lang: str) -> dict[str, RowGroup]:
        return _hlo_outline(self.bundle, level, self.target, lang)[1] if is_hlo(level) else {}

    def selector_items(self, level: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """HLO kinds are opcode, fusion kind and custom-call target; instructions inside fusion
        computations are left out, so `kind:convolution` finds the top-level convolution rather
        than one buried in a fusion."""
        if level_named(level).lists_kernels:
            return tuple((item.name, (item.kind,)) for item in self.rows(level, "en"))
        module = self.bundle.hlo_module(self.target, optimized=level_named(level).optimized)
        if module is None:
            return ()
        return tuple((i.name, tuple(k for k in (i.opcode, i.fusion_kind, i.custom_call_target) if k))
                     for computation, i in module.all_instructions() if not computation.is_fusion)

    def graph(self, level: str) -> LevelGraph:
        """The entry computation, each fusion a cluster around its fused computation (`xla_graph`)."""
        from explorer.views.programs.xla_graph import hlo_graph  # noqa: PLC0415 (a picture's: off the first screen's device pane)

        return hlo_graph(self.bundle, level, self.target, _HEAVY)

    # --- the trace -----------------------------------------------------------------------------

    def layer_of(self, level: str, name: str) -> str:
        return cross_index(self.bundle).layer_of(level, name, self.target)

    def items_for_layer(self, layer: str, level: str) -> tuple[str, ...]:
        return cross_index(self.bundle).items_for_layer(layer, level, self.target)

    def down(self, level: str, name: str) -> tuple[str, ...]:
        return cross_index(self.bundle).down(level, name, self.target)

    def up(self, level: str, name: str) -> tuple[str, ...]:
        return cross_index(self.bundle).up(level, name, self.target)

    def same_shape_below(self, level: str, name: str, below: str, found: tuple[str, ...]) -> tuple[str, ...]:
        """Of several optimized instructions carrying an HLO instruction's op_name, those whose result has
        its shape (a tuple's parts count). An optimizer names its update alike for every variable
        (`adam/sub`: 977 fusions in a ResNet50 step): Enter on the update of the [7,7,3,64] kernel then
        lands on the fusion updating a [7,7,3,64] array, not on the first of them all. () when none does."""
        if len(found) < 2 or not (is_hlo(level) and is_hlo(below)):
            return ()
        this = instruction(self.bundle, level, self.target, name)
        if this is None or this.shape.is_tuple:
            return ()
        wanted = (this.shape.element_type, this.shape.dims)

        def holds_it(candidate: str) -> bool:
            other = instruction(self.bundle, below, self.target, candidate)
            parts = () if other is None else other.shape.tuple_shapes if other.shape.is_tuple else (other.shape,)
            return any((part.element_type, part.dims) == wanted for part in parts)

        return tuple(candidate for candidate in found if holds_it(candidate))

    def does_no_work(self, level: str, name: str) -> bool:
        found = instruction(self.bundle, level, self.target, name)
        return found is not None and found.opcode in PLUMBING

    # --- what an item is and does (the `t` key) ------------------------------------------------

    def kind(self, level: str, name: str) -> str:
        return _kind_of(self.bundle, level, self.target, name)[0]

    def work(self, level: str, name: str) -> frozenset[str]:
        """The heavy opcodes an item does: its own, those fused inside it, a library call's."""
        return _work_of(self.bundle, level, self.target, name)

    def counterpart(self, level: str, name: str, source: TargetProgram, layer: str) -> str:
        """The item here nearest to `name` on `source`'s target (`explorer.views.trace.counterpart`).

        From another XLA target: an entry parameter maps to the parameter with the same role;
        otherwise the layer's items rank by kind and work (the rules are in `trace.counterpart`).
        From another compiler: the layer's item doing the same work, else its first that works."""
        if not isinstance(source, XlaTargetProgram):
            return self._foreign_counterpart(level, name, source, layer)
        bundle, target, other = self.bundle, source.target, self.target
        index = cross_index(bundle)
        entry = index.entry(level, name, target)
        if entry is not None and entry.role:
            same = [e.name for e in parameter_entries(bundle, level, other)
                    if (e.role, e.layer, e.slot) == (entry.role, entry.layer, entry.slot)]
            if same:
                return same[0]
        layer = layer or (entry.layer if entry is not None else "")
        candidates = index.items_for_layer(layer, level, other) if layer else ()
        if not candidates:
            return name if index.entry(level, name, other) is not None else ""
        kind, work = _kind_of(bundle, level, target, name), _work_of(bundle, level, target, name)

        def rank(candidate: str) -> tuple[bool, int]:
            # A fusion across a layer boundary is listed under both layers: one the layer owns comes first.
            owned = index.layer_of(level, candidate, other) == layer
            their_kind = _kind_of(bundle, level, other, candidate)
            their_work = _work_of(bundle, level, other, candidate)
            if their_kind == kind and (their_work & work or not (work or their_work)):
                return owned, 5
            if work & their_work:
                return owned, 4
            if their_kind == kind:
                return owned, 3
            if their_kind[0] == kind[0]:
                return owned, 2
            return owned, 1 if their_kind[0] not in PLUMBING else 0

        return max(candidates, key=rank)  # the first of the best: candidates are in program order

    def _foreign_counterpart(self, level: str, name: str, source: TargetProgram, layer: str) -> str:
        """`t` from another compiler: the layer's instruction doing the same work (a convolution for
        TVM's `fused_conv2d_relu`), else the layer's first that is not plumbing; "" without a layer."""
        layer = layer or source.layer_of(level, name)
        work = source.work(level, name)
        if not layer:
            return ""
        candidates = self.items_for_layer(layer, level)
        idle = (*PLUMBING, "parameter", "constant")
        working = [c for c in candidates if self.kind(level, c) not in idle] or candidates
        return next((c for c in working if self.work(level, c) & work), working[0] if working else "")

    # --- the side panes, the course texts and the comparison -----------------------------------

    def explanation_keys(self, level: str, name: str) -> list[tuple[str, ...]]:
        """An instruction's kind, its tiled layout, its memory space, its allocation and its class in a
        training step; a kernel's kind and its registers; an allocation's kind."""
        from explorer.texts import keys  # noqa: PLC0415 (the course's keys load with the first explanation)

        bundle, target = self.bundle, self.target
        groups: list[tuple[str, ...]] = []
        if is_hlo(level) and (found := instruction(bundle, level, target, name)) is not None:
            groups.append(tuple(keys.instruction_keys(found)))
            layout = keys.layout_keys(found.shape)
            if "layout:tiles" in layout:
                groups.append(tuple(layout))
            groups += [(key,) for key in keys.memory_space_keys(found.shape, target) if key != "memory:device"]
            if level_named(level).optimized and (allocation := allocation_of(bundle, target, name)) is not None:
                groups.append(tuple(keys.allocation_keys(allocation, target)))
            if level_named(level).optimized:
                groups += [(key,) for key in _step_keys(bundle, target, found)]
        elif level_named(level).lists_kernels and (record := kernel(bundle, target, name)) is not None:
            groups.append(tuple(keys.kernel_keys(record)))
            groups += [(key,) for key in sass_keys(record)]
            spec = get_target(target)
            groups += [(key,) for key in keys.listing_keys(record, spec.isa, spec.worker == "aot")]
        elif level_named(level).maps_buffers and (allocation := allocation_by_index(bundle, target, name)) is not None:
            groups.append(tuple(keys.allocation_keys(allocation, target)))
        return groups

    def optimized_captured(self, status: LevelStatus) -> bool:
        """Whether the optimized module is there to show (its text parsed)."""
        return self.bundle.hlo_module(self.target, optimized=True) is not None

    def target_layer(self, layer: str) -> TargetLayer:
        from explorer.views.programs.xla_layer import hlo_target_layer  # noqa: PLC0415 (layout math and roofline load here)

        return hlo_target_layer(self.bundle, layer, self.target)

    def summary_figures(self, from_shapes: bool) -> dict[str, Any]:
        from explorer.views.programs.xla_layer import module_figures  # noqa: PLC0415 (layout math and roofline load here)

        return module_figures(self.bundle, self.target, from_shapes)

    # --- `tensorweg inspect` -------------------------------------------------------------------

    def level_data(self, level: str) -> dict[str, Any]:
        """Every instruction of the module with the layer and parameter role the screens show."""
        from explorer.hlo.text import shape_text as full_shape_text  # noqa: PLC0415 (the printer stays off the first frame)

        module = self.bundle.hlo_module(self.target, optimized=level_named(level).optimized)
        if module is None:
            raise TensorwegError(f"{level} for {self.target}: the module text was captured but did not parse")
        instructions = []
        for computation, found in module.all_instructions():
            item = {"name": found.name, "opcode": found.opcode,
                    "shape": full_shape_text(found.shape), "computation": computation.name,
                    "layer": self.layer_of(level, found.name),
                    "operands": list(found.operands), "op_name": found.metadata.op_name}
            role = role_text(cross_index(self.bundle).entry(level, found.name, self.target))
            if role:
                item["role"] = role
            if found.fusion_kind:
                item["fusion_kind"] = found.fusion_kind
            if found.custom_call_target:
                item["custom_call_target"] = found.custom_call_target
            instructions.append(item)
        return {"module": module.name, "instructions": instructions}

    def level_text(self, level: str) -> str:
        """The module's own text: HLO reads as it is."""
        return self.bundle.hlo_text(self.target, optimized=level_named(level).optimized)


@per_bundle
def _hlo_outline(bundle: Bundle, level: str, target: str,
                 lang: str) -> tuple[tuple[LevelItem, ...], dict[str, RowGroup]]:
    """The rows of an HLO level with their groups: the entry computation first (its parameters,
    then its constants, then its work in program order), then every computation it calls, each
    a group of its own."""
    module = bundle.hlo_module(target, level_named(level).optimized)
    if module is None:
        return (), {}
    index = cross_index(bundle)
    found: list[LevelItem] = []
    groups: dict[str, RowGroup] = {}

    def item(computation, instruction, group: str) -> LevelItem:
        opcode = instruction.opcode
        if instruction.fusion_kind:
            opcode = f"{opcode} {instruction.fusion_kind}"
        if instruction.custom_call_target:
            opcode = f"{opcode} {instruction.custom_call_target}"
        where = "" if computation.is_entry else f"  ({computation.name})"
        # An entry parameter says whose it is (XLA's op_name there is only `XLA_Args` or `trainable[2]`).
        role = role_text(index.entry(level, instruction.name, target), lang) if instruction.opcode == "parameter" \
            else ""
        return make_item(level, instruction.name, (instruction.name + where, opcode, shape_text(instruction.shape),
                                                   role or instruction.metadata.op_name),
                         instruction.opcode, instruction.line, group)

    # The program itself (ENTRY, printed last by XLA) first; the computations it calls after it.
    ordered = sorted(module.computations, key=lambda computation: not computation.is_entry)
    for computation in ordered:
        if computation.is_entry:
            runs = {kind: [i for i in computation.instructions if i.opcode == kind]
                    for kind in ("parameter", "constant")}
            grouped = {kind: run for kind, run in runs.items() if len(run) >= _GROUP_AT_LEAST}
            for kind, run in grouped.items():
                key = f"{kind}s of {computation.name}"
                count = label(f"group.{kind}s", lang).format(count=format_int(len(run), lang))
                groups[key] = RowGroup(key, (count, kind, "", label(f"group.{kind}_note", lang)), True, len(run))
                found.extend(item(computation, i, key) for i in run)
            found.extend(item(computation, i, "") for i in computation.instructions if i.opcode not in grouped)
            continue
        key = computation.name
        size = len(computation.instructions)
        what = label("group.fused_instructions" if computation.is_fusion else "group.instructions", lang)
        groups[key] = RowGroup(key, (key, label("group.computation", lang), "",
                                     what.format(count=format_int(size, lang))),
                               computation.is_fusion, size, computation.line)
        found.extend(item(computation, i, key) for i in computation.instructions)
    return tuple(found), groups


def _kind_of(bundle: Bundle, level: str, target: str, name: str) -> tuple[str, str]:
    if level_named(level).lists_kernels:
        found = kernel(bundle, target, name)
        return (found.kind, "") if found is not None else ("", "")
    found = instruction(bundle, level, target, name)
    return (found.opcode, found.fusion_kind or found.custom_call_target) if found is not None else ("", "")


def _work_of(bundle: Bundle, level: str, target: str, name: str) -> frozenset[str]:
    if level_named(level).lists_kernels:
        found = kernel(bundle, target, name)
        names = found.hlo if found is not None else ()
        return frozenset().union(*(_work_of(bundle, "optimized-hlo", target, n) for n in names))
    found = instruction(bundle, level, target, name)
    if found is None:
        return frozenset()
    return _work(bundle, level, target, found.name)


@per_bundle
def _work(bundle: Bundle, level: str, target: str, name: str) -> frozenset[str]:
    found = instruction_table(bundle, target, level_named(level).optimized)[name]
    work = {found.opcode} & _HEAVY
    call = found.custom_call_target.lower()
    work |= {opcode for needle, opcode in _CALLS if needle in call}
    computations = computation_table(bundle, target, level_named(level).optimized)
    pending, seen = list(found.called_computations), set()
    while pending:  # the fused computation and what it calls (nested fusions on TPU)
        called = pending.pop()
        if called in seen or called not in computations:
            continue
        seen.add(called)
        for inner in computations[called].instructions:
            work |= {inner.opcode} & _HEAVY
            pending.extend(inner.called_computations)
    return frozenset(work)


def _step_keys(bundle: Bundle, target: str, found: HloInstruction) -> tuple[str, ...]:
    """Course keys of a training step's or a mesh's buffer: its class, donation, the division of work."""
    from explorer.model.training import ROLE_KEYS  # noqa: PLC0415 (kept off the first frame)

    layout = step_layout(bundle, target)
    if layout is None:
        return ()
    found_keys = []
    role = step_members(bundle, target).get(found.name)
    if role in ROLE_KEYS:
        found_keys.append(ROLE_KEYS[role])
    if found.opcode == "parameter" and layout.donated:
        number = dict(found.attributes).get("parameter_number", "")
        if number.isdigit() and int(number) in layout.donated:
            found_keys.append("training:donation")
    if layout.mesh and found.opcode.removesuffix("-start") in COLLECTIVES:
        found_keys += ["sharding:collectives", f"sharding:{layout.shard}-parallel", "sharding:spmd"]
    return tuple(found_keys)


def sass_keys(found: KernelRecord) -> tuple[str, ...]:
    """A GPU kernel compiled to SASS: its registers and occupancy, its spills where it has any."""
    if found.ptxas is None:
        return ()
    spills = found.ptxas.spill_store_bytes or found.ptxas.spill_load_bytes or found.ptxas.stack_frame_bytes
    return ("sass:registers", "sass:occupancy") + (("sass:spills",) if spills else ())
