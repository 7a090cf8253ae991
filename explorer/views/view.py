"""What any screen shows for any selection: read this module to know.

Given a bundle, a level, a target and a selection (an item's name), these
functions return what the screens draw, the CLI prints and the tests check:

* `rows`: the level's list (`LevelItem`s) and `created_by_compiler`;
* the trace: `layer_of`, `items_for_layer`, `down`, `up`, `descend`;
* `counterpart`: the same layer's nearest item on another target (the `t` key);
* `memory_facts`: shape, bytes, layout, strides, tiles, the buffer and live range;
* `device_lines`: what one target made of the selection's layer (fusions, kernels, calls);
* `explanation_keys` / `explanations`: the course texts, most specific first;
* `tour_candidates` / `resolve_tour_step`: what a tour's `select=` can pick.

Pure and Textual-free. Results are small frozen dataclasses or tuples of
strings; the per-bundle tables behind them are built once and kept for the
last few bundles (`_tables`, a bounded cache: a bundle's data never changes),
so a key press costs dictionary lookups, not a walk over the module. The
heavier core modules are imported where first needed, so the UI's first
frame does not wait for them.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import HLO_LEVELS, LIST_LEVELS, NEXT_DOWN, is_hlo, target_key

if TYPE_CHECKING:
    from explorer.course.lookup import Explanation
    from explorer.course.tours import Candidate, Tour, TourStep
    from explorer.hlo.model import HloInstruction, Shape
    from explorer.model.bundle import Bundle
    from explorer.model.index import CrossIndex, IndexEntry
    from explorer.model.records import Allocation, GraphOp, KernelRecord, LayerRecord

# Bundles whose tables are kept: the open one, a staging one during a capture, and a few more.
# Each holds its parsed modules, so the bound is on bundles, not on entries.
_BUNDLES = 4
CREATED_BY_XLA = label("state.created_by_xla", "en")  # the CLI's word; screens use the label


@lru_cache(maxsize=_BUNDLES)
def _tables(bundle: Bundle | None) -> dict:
    """One bundle's cached tables (rows, name lookups, buffer maps); a bundle's data never changes."""
    return {}


def _per_bundle(build):
    """Cache `build(bundle, *key)` in the bundle's own table, so at most `_BUNDLES` bundles stay alive."""
    @wraps(build)
    def cached(bundle, *key):
        table = _tables(bundle)
        slot = (build.__name__, *key)
        if slot not in table:
            table[slot] = build(bundle, *key)
        return table[slot]

    return cached


# --- rows -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelItem:
    """One selectable thing of a level: a layer, op, instruction or kernel.

    name: the key the cross-level index knows it by.
    cells: the table row as display strings (columns: `COLUMNS[level]`).
    kind: what the item is (layer class, op type, opcode, kernel kind).
    line: 1-based line in the level's code text (HLO levels), else 0.
    search_text: what the list's `/` filter matches (a plain lowercase substring).
    group: the key of the foldable `RowGroup` the item is listed under ("" for none).
    depth: how many containers hold it (a layer inside a nested model or Sequential block: 1, ...).
    """

    level: str
    name: str
    cells: tuple[str, ...]
    kind: str
    line: int = 0
    search_text: str = ""
    group: str = ""
    depth: int = 0


@dataclass(frozen=True)
class RowGroup:
    """A foldable run of rows: the entry's parameters, its constants, or a called computation.

    key: what `LevelItem.group` names it by. cells: its header row (columns: `COLUMNS[level]`).
    folded: folded when the list opens (parameters and constants, so the list opens on the
    program's work; fused computations, whose work is their fusion's row). line: 1-based line
    of its text (a computation's header), else 0. size: its rows.
    head: the item that is the group's header row itself ("" for a header of its own): a container
    layer (a nested model, a Sequential block) heads its inner layers, and stays selectable.
    within: the key of the group this one is inside ("" at the top): folding it hides this one too.
    """

    key: str
    cells: tuple[str, ...]
    folded: bool
    size: int
    line: int = 0
    head: str = ""
    within: str = ""


COLUMNS: dict[str, tuple[str, ...]] = {
    "layers": ("layer", "class", "output shape", "params"),
    "graph": ("op", "type", "output", "layer"),
    "hlo": ("instruction", "opcode", "shape", "op_name"),
    "optimized-hlo": ("instruction", "opcode", "shape", "op_name"),
    "kernels": ("kernel", "kind", "vector", "implements"),
}


def column_titles(level: str, lang: str) -> tuple[str, ...]:
    """`COLUMNS[level]` in `lang` (labels `column.<title>`, spaces as underscores): the lists' and the handout's."""
    return tuple(label("column." + title.replace(" ", "_"), lang) for title in COLUMNS[level])


@lru_cache(maxsize=4096)
def shape_text(shape: Shape) -> str:
    """`f32[2,26,26,8]`; tuples as `(f32[2], s32[])`: the core's printer, without the layout.

    Cached: a module repeats a few hundred shapes over thousands of instructions, and hashing
    a shape costs a fraction of printing it."""
    from explorer.hlo.text import format_shape  # noqa: PLC0415 (kept off the first frame's imports)

    return format_shape(shape, with_layout=False)


def _dims_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def _item(level: str, name: str, cells: tuple[str, ...], kind: str, line: int = 0, group: str = "",
          depth: int = 0) -> LevelItem:
    return LevelItem(level, name, cells, kind, line, " ".join((name, *cells)).lower(), group, depth)


def rows(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> tuple[LevelItem, ...]:
    """The rows of `level` (every instruction of an HLO module, fused ones included, ENTRY first).

    `lang` words the cells the explorer writes itself (a parameter's role); names stay as written."""
    if bundle is None or level not in LIST_LEVELS:
        return ()
    if is_hlo(level) and _tvm(target):
        return _relax_rows(bundle, level, target)
    if is_hlo(level):
        return _hlo_outline(bundle, level, target_key(level, target), lang)[0]
    return _rows(bundle, level, target_key(level, target))


@_per_bundle
def _rows(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    if level == "layers":
        container = _containers(bundle)
        return tuple(
            _item("layers", layer.name, (layer.name, layer.class_name,
                                         ", ".join(_dims_text(s) for s in layer.output_shapes), f"{layer.params:,}"),
                  layer.class_name, group=container.get(layer.name, ""), depth=layer.path.count("/"))
            for layer in bundle.layers)
    if level == "graph":
        ops = bundle.graph.ops if bundle.graph is not None else ()
        return tuple(
            _item("graph", op.name, (op.name, op.op, ", ".join(
                f"{o.dtype}{list(o.shape) if o.shape is not None else '[?]'}" for o in op.outputs), op.layer), op.op)
            for op in ops)
    return tuple(
        _item("kernels", k.name, (k.name, k.kind, f"{k.vector_width_bits}-bit" if k.vector_width_bits else "",
                                  ", ".join(k.hlo)), k.kind)
        for k in bundle.kernels(target))


# Runs shorter than this stay plain rows: a fold would hide as much as it saves.
_GROUP_AT_LEAST = 2


def row_groups(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> dict[str, RowGroup]:
    """The foldable groups of `level`'s rows by key, in list order (HLO levels; containers of layers).

    Keys are identities and never change with `lang`; only the header cells are worded in it."""
    if bundle is not None and level == "layers":
        return _layer_groups(bundle)
    if bundle is None or not is_hlo(level):
        return {}
    return _hlo_outline(bundle, level, target_key(level, target), lang)[1]


@_per_bundle
def _containers(bundle: Bundle) -> dict[str, str]:
    """layer -> the container layer directly holding it (a nested model, a Sequential block)."""
    from explorer.model.index import layer_parents  # noqa: PLC0415 (the data model loads with the data)

    return dict(layer_parents(bundle.layers))


@_per_bundle
def _layer_groups(bundle: Bundle) -> dict[str, RowGroup]:
    """One group per container layer, headed by its own row: folded when the list opens, so a model
    built from blocks (or around a keras.applications backbone) shows its outline first."""
    container = _containers(bundle)
    inner: dict[str, int] = {}
    for layer in container:
        holder = container[layer]
        while holder:  # a layer counts for every container above it
            inner[holder] = inner.get(holder, 0) + 1
            holder = container.get(holder, "")
    return {layer.name: RowGroup(layer.name, (), True, inner[layer.name], head=layer.name,
                                 within=container.get(layer.name, ""))
            for layer in bundle.layers if layer.name in inner}


@_per_bundle
def _hlo_outline(bundle: Bundle, level: str, target: str,
                 lang: str) -> tuple[tuple[LevelItem, ...], dict[str, RowGroup]]:
    """The rows of an HLO level with their groups: the entry computation first (its parameters,
    then its constants, then its work in program order), then every computation it calls, each
    a group of its own."""
    module = bundle.hlo_module(target, level == "optimized-hlo")
    if module is None:
        return (), {}
    index = _index(bundle)
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
        return _item(level, instruction.name, (instruction.name + where, opcode, shape_text(instruction.shape),
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
                count = label(f"group.{kind}s", lang).format(count=f"{len(run):,}")
                groups[key] = RowGroup(key, (count, kind, "", label(f"group.{kind}_note", lang)), True, len(run))
                found.extend(item(computation, i, key) for i in run)
            found.extend(item(computation, i, "") for i in computation.instructions if i.opcode not in grouped)
            continue
        key = computation.name
        size = len(computation.instructions)
        what = label("group.fused_instructions" if computation.is_fusion else "group.instructions", lang)
        groups[key] = RowGroup(key, (key, label("group.computation", lang), "", what.format(count=f"{size:,}")),
                               computation.is_fusion, size, computation.line)
        found.extend(item(computation, i, key) for i in computation.instructions)
    return tuple(found), groups


def created_by_compiler(bundle: Bundle | None, level: str, target: str) -> frozenset[str]:
    """Top-level items no layer owns (listed as "created by XLA")."""
    if bundle is None or not is_hlo(level):
        return frozenset()
    return _created(bundle, level, target)


@_per_bundle
def _created(bundle: Bundle, level: str, target: str) -> frozenset[str]:
    return frozenset(_index(bundle).created_by_compiler(level, target))


def role_text(entry: IndexEntry | None, lang: str = "en") -> str:
    """`weight 1 of 2 of conv2d`, `input image`: what an entry parameter is to the model, in `lang`
    (English is what `inspect --json` reports as `role`)."""
    if entry is None or not entry.role:
        return ""
    if entry.role == "input":
        position, count = entry.slot or (1, 1)
        key = "role.input" if entry.layer else "role.model_input"
        return label(key + ("_of" if count > 1 else ""), lang).format(position=position, count=count,
                                                                     layer=entry.layer)
    if entry.layer and entry.slot:
        position, count = entry.slot
        return label("role.weight", lang).format(position=position, count=count, layer=entry.layer)
    return label("role.unmatched_weight", lang)


def parameter_role(bundle: Bundle | None, level: str, target: str, name: str, lang: str = "en") -> str:
    """`role_text` of an item ("" for anything but an entry parameter the index linked)."""
    return role_text(_index(bundle).entry(level, name, target), lang) if is_hlo(level) else ""


# --- lookups by name, built once per bundle -----------------------------------------------------


@_per_bundle
def _index(bundle: Bundle | None) -> CrossIndex:
    """The bundle's cross-level index; an empty one while nothing is captured."""
    from explorer.model.index import CrossIndex  # noqa: PLC0415 (the data model loads with the data)

    if bundle is None:
        return CrossIndex()
    try:
        return bundle.index or CrossIndex()
    except TensorwegError:  # a staging directory without a manifest yet: nothing to link
        return CrossIndex()


@_per_bundle
def _instructions(bundle: Bundle, target: str, optimized: bool) -> dict[str, HloInstruction]:
    module = bundle.hlo_module(target, optimized)
    return {i.name: i for _, i in module.all_instructions()} if module is not None else {}


@_per_bundle
def _layers(bundle: Bundle) -> dict[str, LayerRecord]:
    return {layer.name: layer for layer in bundle.layers}


@_per_bundle
def _ops(bundle: Bundle) -> dict[str, GraphOp]:
    return {op.name: op for op in bundle.graph.ops} if bundle.graph is not None else {}


@_per_bundle
def _kernels(bundle: Bundle, target: str) -> dict[str, KernelRecord]:
    return {kernel.name: kernel for kernel in bundle.kernels(target)}


def instruction(bundle: Bundle | None, level: str, target: str, name: str) -> HloInstruction | None:
    if bundle is None or not is_hlo(level):
        return None
    return _instructions(bundle, target, level == "optimized-hlo").get(name)


def kernel(bundle: Bundle | None, target: str, name: str) -> KernelRecord | None:
    return _kernels(bundle, target).get(name) if bundle is not None else None


def layer_record(bundle: Bundle | None, name: str) -> LayerRecord | None:
    return _layers(bundle).get(name) if bundle is not None else None


# --- the trace up and down ---------------------------------------------------------------------


def layer_of(bundle: Bundle | None, level: str, name: str, target: str) -> str:
    """The layer owning an item ("" when the compiler created it)."""
    if level == "layers":
        return name
    if level == "memory":
        return ""
    if _tvm(target) and level in _TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.layer_of(bundle, level, name, target)
    return _index(bundle).layer_of(level, name, "cpu" if level == "graph" else target)


def items_for_layer(bundle: Bundle | None, layer: str, level: str, target: str) -> tuple[str, ...]:
    if level == "layers":
        return (layer,)
    if _tvm(target) and level in _TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.items_for_layer(bundle, layer, level, target)
    return _index(bundle).items_for_layer(layer, level, "cpu" if level == "graph" else target)


def down(bundle: Bundle | None, level: str, name: str, target: str) -> tuple[str, ...]:
    """The items one level lower that implement `name` (layers go to graph ops, else to HLO)."""
    if level == "layers":
        below = "graph" if bundle is not None and bundle.graph is not None else "hlo"
        return items_for_layer(bundle, name, below, target)
    if _tvm(target) and level in _TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.down(bundle, level, name, target)
    found = _index(bundle).down(level, name, target)
    if level == "graph" and not found and target != "cpu":
        # Keras-on-JAX targets never saw the TF graph: their HLO links to layers only.
        layer = layer_of(bundle, "graph", name, target)
        return items_for_layer(bundle, layer, "hlo", target) if layer else ()
    return found


def up(bundle: Bundle | None, level: str, name: str, target: str) -> tuple[str, ...]:
    """The items one level higher that `name` implements."""
    if level == "graph":
        layer = layer_of(bundle, "graph", name, target)
        return (layer,) if layer else ()
    if _tvm(target) and level in ("optimized-hlo", "kernels") and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.up(bundle, level, name, target)
    found = _index(bundle).up(level, name, target)
    if level == "hlo" and target != "cpu" and bundle is not None and bundle.graph is not None:
        layer = layer_of(bundle, "hlo", name, target)
        ops = items_for_layer(bundle, layer, "graph", target) if layer else ()
        return ops or found
    return found


@dataclass(frozen=True)
class Descent:
    """Where Enter on an item leads: `level` below, the item to select, and all candidates."""

    level: str
    select: str
    found: tuple[str, ...]


def descend(bundle: Bundle | None, level: str, name: str, target: str) -> Descent | None:
    """One level down from `name`; None at the bottom. `select` is "" when nothing implements it.

    Lands on the first item that itself leads further down and does work (the
    Conv2D op, not the ReadVariableOp feeding it; the convolution, not the
    layer's weight parameter), so repeated Enter follows the computation.
    """
    below = NEXT_DOWN.get(level)
    if below is None:
        return None
    found = down(bundle, level, name, target)
    if not found:
        return Descent(below, "", ())
    candidates = _same_shape(bundle, level, name, below, target, found) or found
    first = candidates[0]
    if below in NEXT_DOWN:
        leading = [n for n in candidates[:50] if down(bundle, below, n, target)]
        fallback = leading[0] if leading else first
        first = next((n for n in leading if not _is_plumbing(bundle, below, n, target)), fallback)
    return Descent(below, first, found)


def _same_shape(bundle: Bundle | None, level: str, name: str, below: str, target: str,
                found: tuple[str, ...]) -> tuple[str, ...]:
    """Of several optimized instructions carrying an HLO instruction's op_name, those whose result has
    its shape (a tuple's parts count). An optimizer names its update alike for every variable
    (`adam/sub`: 977 fusions in a ResNet50 step): Enter on the update of the [7,7,3,64] kernel then
    lands on the fusion updating a [7,7,3,64] array, not on the first of them all. () when none does."""
    if len(found) < 2 or not (is_hlo(level) and is_hlo(below)):
        return ()
    this = instruction(bundle, level, target, name)
    if this is None or this.shape.is_tuple:
        return ()
    wanted = (this.shape.element_type, this.shape.dims)

    def holds_it(candidate: str) -> bool:
        other = instruction(bundle, below, target, candidate)
        parts = () if other is None else other.shape.tuple_shapes if other.shape.is_tuple else (other.shape,)
        return any((part.element_type, part.dims) == wanted for part in parts)

    return tuple(candidate for candidate in found if holds_it(candidate))


def _is_plumbing(bundle: Bundle | None, level: str, name: str, target: str) -> bool:
    from explorer.views.comparison import PLUMBING  # noqa: PLC0415

    found = instruction(bundle, level, target, name)
    return found is not None and found.opcode in PLUMBING


# --- the same item on another target -------------------------------------------------------------


def counterpart(bundle: Bundle | None, level: str, name: str, target: str, other: str, layer: str = "") -> str:
    """The item on `other` nearest to `name` on `target`: same layer, nearest kind.

    Target-free levels keep the item. On the per-target levels an entry
    parameter maps to the parameter with the same role (the same weight of the
    same layer, or the input). Otherwise the candidates are the layer's items
    on `other`, ranked: same opcode and kind doing the same work (a kOutput
    fusion for a kOutput fusion), then the same work (the convolution: a
    cuDNN call on GPU, a fusion around it on TPU), the same opcode and kind,
    the same opcode (a fusion for a fusion, a kernel for a kernel), anything that does work,
    the layer's first item; at each rank an item the layer owns before one it
    shares with another layer (a fusion across the boundary). An item no layer
    owns keeps its name when `other` has it. "" when nothing fits.

    `layer`, when given, is the layer to follow instead of the item's own: `t`
    from max_pooling2d on CPU lands on the GPU fusion that also holds the
    dense layer's ops (or, with no such item, on the list's first row), and
    the next `t` goes on with max_pooling2d, not dense.
    """
    if bundle is None or level not in LIST_LEVELS or not target_key(level, target) or target == other:
        return name
    if (_tvm(target) or _tvm(other)) and level in _TVM_LEVELS:
        return _tvm_counterpart(bundle, level, name, target, other, layer)
    index = _index(bundle)
    entry = index.entry(level, name, target)
    if entry is not None and entry.role:
        same = [e.name for e in _parameters(bundle, level, other)
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
        their_kind, their_work = _kind_of(bundle, level, other, candidate), _work_of(bundle, level, other, candidate)
        if their_kind == kind and (their_work & work or not (work or their_work)):
            return owned, 5
        if work & their_work:
            return owned, 4
        if their_kind == kind:
            return owned, 3
        if their_kind[0] == kind[0]:
            return owned, 2
        return owned, 1 if their_kind[0] not in _plumbing_opcodes() else 0

    return max(candidates, key=rank)  # the first of the best: candidates are in program order


def _kind_of(bundle: Bundle, level: str, target: str, name: str) -> tuple[str, str]:
    if level == "kernels":
        found = kernel(bundle, target, name)
        return (found.kind, "") if found is not None else ("", "")
    found = instruction(bundle, level, target, name)
    return (found.opcode, found.fusion_kind or found.custom_call_target) if found is not None else ("", "")


# Opcodes that are the work of a layer (what a fusion is built around); elementwise ops are not.
_HEAVY = frozenset({"convolution", "dot", "reduce", "reduce-window", "select-and-scatter", "scatter", "gather",
                    "sort", "while", "conditional", "fft", "triangular-solve", "cholesky"})
# Library calls named after the work they do (`__cudnn$convForward`, `__cublas$gemm`).
_CALLS = (("conv", "convolution"), ("gemm", "dot"), ("matmul", "dot"))


def _work_of(bundle: Bundle, level: str, target: str, name: str) -> frozenset[str]:
    """The heavy opcodes an item does: its own, those fused inside it, a library call's."""
    if level == "kernels":
        found = kernel(bundle, target, name)
        names = found.hlo if found is not None else ()
        return frozenset().union(*(_work_of(bundle, "optimized-hlo", target, n) for n in names))
    found = instruction(bundle, level, target, name)
    if found is None:
        return frozenset()
    return _work(bundle, level, target, found.name)


@_per_bundle
def _work(bundle: Bundle, level: str, target: str, name: str) -> frozenset[str]:
    found = _instructions(bundle, target, level == "optimized-hlo")[name]
    work = {found.opcode} & _HEAVY
    call = found.custom_call_target.lower()
    work |= {opcode for needle, opcode in _CALLS if needle in call}
    computations = _computations(bundle, target, level == "optimized-hlo")
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


@_per_bundle
def _computations(bundle: Bundle, target: str, optimized: bool) -> dict:
    module = bundle.hlo_module(target, optimized)
    return {c.name: c for c in module.computations} if module is not None else {}


def _plumbing_opcodes() -> frozenset[str]:
    from explorer.views.comparison import PLUMBING  # noqa: PLC0415

    return PLUMBING


@_per_bundle
def _parameters(bundle: Bundle, level: str, target: str) -> tuple[IndexEntry, ...]:
    index = _index(bundle)
    module = bundle.hlo_module(target, level == "optimized-hlo") if is_hlo(level) else None
    if module is None or module.entry is None:
        return ()
    return tuple(e for i in module.entry.instructions if i.opcode == "parameter"
                 and (e := index.entry(level, i.name, target)) is not None and e.role)


def compare_layer(bundle: Bundle | None, level: str, name: str, target: str) -> str:
    """The layer the compare view opens on: the selection's, else the first any target compiled."""
    if bundle is None:
        return ""
    layer = layer_of(bundle, level, name, target) if name else ""
    if layer:
        return layer
    try:
        targets = bundle.targets
    except TensorwegError:
        return ""
    for record in bundle.layers:
        if any(items_for_layer(bundle, record.name, "optimized-hlo", t) for t in targets):
            return record.name
    return bundle.layers[0].name if bundle.layers else ""


# --- memory facts ------------------------------------------------------------------------------


def _bytes(n: int) -> str:
    return f"{n:,} B" if n < 10_000 else f"{n:,} B ({n / 1024:,.1f} KiB)"


def shape_lines(shape: Shape, lang: str = "en") -> tuple[str, ...]:
    """Shape, dtype, bytes, minor-to-major with strides, tiles and padding (explorer's layout math).

    The field names are in `lang` (`explorer.labels`); the compiler's own notation stays."""
    from explorer.hlo import layout_math  # noqa: PLC0415

    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    if shape.is_tuple:
        lines = [word("tuple_of").format(count=len(shape.tuple_shapes), bytes=_bytes(shape.byte_size))]
        for position, part in enumerate(shape.tuple_shapes[:6]):
            lines.append(f"  {{{position}}} {shape_text(part)}  {_bytes(part.byte_size)}")
        return tuple(lines)
    lines = [
        f"{word('shape')}  {shape_text(shape)}",
        f"{word('dtype')}  {shape.element_type} ({layout_math.element_bits(shape)} {word('bits_stored')})"
        f"   {word('elements')} {shape.element_count:,}",
    ]
    try:
        unpadded, padded = layout_math.unpadded_byte_size(shape), layout_math.padded_byte_size(shape)
        byte_strides = layout_math.byte_strides(shape)
    except ValueError as exc:  # dynamic dims: no static layout
        return (*lines, f"{word('layout')}: {exc}")
    layout = shape.layout
    if layout is None:
        return (*lines, f"{word('bytes')}  {_bytes(unpadded)}", word("layout_not_written"))
    lines.append(f"{word('minor_to_major')} {{{','.join(map(str, layout.minor_to_major))}}} "
                 f"({word('fastest_first')})")
    lines.append(f"{word('strides')} " + ", ".join(f"d{d}:{b}" for d, b in enumerate(byte_strides)))
    if layout.tiles:
        tiles = "".join("(" + ",".join(map(str, t.dims)) + ")" for t in layout.tiles)
        padded_dims = "x".join(map(str, layout_math.padded_dims(shape)))
        lines.append(f"{word('tiles')}  T{tiles}: {word('padded_to')} {padded_dims}")
        overhead = f" (+{(padded - unpadded) / unpadded:.0%})" if unpadded else ""
        lines.append(f"{word('bytes')}  {_bytes(unpadded)} {word('without_padding')}, "
                     f"{_bytes(padded)} {word('with')}{overhead}")
    else:
        lines.append(f"{word('bytes')}  {_bytes(unpadded)} ({word('untiled')})")
    if layout.memory_space:
        lines.append(f"{word('memory_space')} S({layout.memory_space})"
                     + (f" {word('on_chip_vmem')}" if layout.memory_space == 1 else ""))
    return tuple(lines)


@dataclass(frozen=True)
class _Buffers:
    """One memory level by value name: the allocations holding it and its live range."""

    lines: dict[str, tuple[str, ...]]
    allocations: dict[str, Allocation]


def _buffers(bundle: Bundle, target: str, lang: str = "en") -> _Buffers | None:
    memory = bundle.memory(target)
    return _buffer_table(bundle, target, lang) if memory is not None else None


@_per_bundle
def _buffer_table(bundle: Bundle, target: str, lang: str) -> _Buffers:
    # Keyed by bundle and target: hashing the (frozen) MemoryLevel itself would walk all of it.
    memory = bundle.memory(target)

    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    lines: dict[str, list[str]] = {}
    first: dict[str, Allocation] = {}
    for allocation in memory.allocations:
        for value in allocation.values:
            first.setdefault(value.instruction, allocation)
            lines.setdefault(value.instruction, []).append(
                f"{word('buffer')} {word('allocation')} {allocation.index} ({allocation.kind}, "
                f"{_bytes(allocation.size)}) {word('offset')} {value.offset:,} {word('size')} "
                f"{_bytes(value.size)} {value.shape_index}")
    seen: set[str] = set()
    for live in memory.live_ranges:
        name = live.value.split("{", 1)[0]
        if name not in seen:  # the first range of a value (its first tuple part)
            seen.add(name)
            lines.setdefault(name, []).append(
                f"{word('live')}   " + word("live_positions").format(start=live.start, end=live.end))
    return _Buffers({name: tuple(found) for name, found in lines.items()}, first)


def buffer_lines(bundle: Bundle, target: str, name: str, lang: str = "en") -> tuple[str, ...]:
    """Where XLA's buffer assignment put `name`: allocation, offset, size, live range."""
    table = _buffers(bundle, target, lang)
    if table is None:
        return (label("text.memory_not_captured", lang),)
    return table.lines.get(name) or (label("text.no_allocation", lang),)


def allocation_of(bundle: Bundle | None, target: str, name: str) -> Allocation | None:
    table = _buffers(bundle, target) if bundle is not None else None
    return table.allocations.get(name) if table is not None else None


def memory_facts(bundle: Bundle | None, level: str, target: str, name: str, lang: str = "en") -> tuple[str, ...]:
    """The memory pane: what the selection occupies and how it is laid out (field names in `lang`)."""

    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    lines: tuple[str, ...] = ()
    if bundle is None:
        return (label("text.nothing_for_item", lang),)
    if level == "layers" and (layer := layer_record(bundle, name)) is not None:
        lines = (f"{word('dtype_policy')} {layer.dtype_policy}",
                 f"{word('inputs')}  " + "; ".join(str(s) for s in layer.input_shapes),
                 f"{word('outputs')} " + "; ".join(str(s) for s in layer.output_shapes),
                 f"{word('weights')} {_bytes(layer.weight_bytes)}  "
                 f"{word('activations')} {_bytes(layer.activation_bytes)}")
    elif level == "graph" and (op := _ops(bundle).get(name)) is not None:
        unknown = " " + word("rank_unknown")
        lines = tuple(f"{word('output')} {out.dtype}{list(out.shape) if out.shape is not None else unknown}"
                      for out in op.outputs) + tuple(f"{k} = {v}" for k, v in op.attributes)
    elif is_hlo(level) and (found := instruction(bundle, level, target, name)) is not None:
        role = role_text(_index(bundle).entry(level, name, target), lang) if found.opcode == "parameter" else ""
        lines = ((f"{word('holds')}  {role}",) if role else ()) + _pass_lines(bundle, target, found) \
            + shape_lines(found.shape, lang)
        if level == "optimized-hlo":
            lines += _class_lines(bundle, target, found.name) + buffer_lines(bundle, target, found.name, lang)
            lines += ("",) + step_lines(bundle, target) if step_lines(bundle, target) else ()
    elif level == "kernels" and (found := kernel(bundle, target, name)) is not None:
        if found.vector_width_bits:
            lines += (word("vector_width").format(bits=found.vector_width_bits),)
        if found.vector_registers:
            lines += (f"{word('registers')} " + ", ".join(found.vector_registers[:12]),)
        if found.launch is not None:
            launch = found.launch
            lines += (f"{word('grid')} {launch.grid}  {word('block')} {launch.block}  "
                      f"{word('shared')} {_bytes(launch.shared_memory_bytes)}",)
        lines += register_lines(found, target)
        if found.hlo:
            lines += buffer_lines(bundle, target, found.hlo[0], lang)
    return lines or (label("text.nothing_for_item", lang),)


def register_lines(found: KernelRecord, target: str) -> tuple[str, ...]:
    """A GPU kernel's registers per thread and spills (`ptxas -v`), and the occupancy ESTIMATE
    with the figures it used; or why there are none (`sass_note`)."""
    from explorer.model import occupancy  # noqa: PLC0415
    from explorer.targets import TARGETS  # noqa: PLC0415

    report = found.ptxas
    if report is None:
        return (found.sass_note,) if found.sass_note else ()
    lines = (f"registers {report.registers} per thread (ptxas -v, {report.arch})",
             f"spills {_bytes(report.spill_store_bytes)} stored, {_bytes(report.spill_load_bytes)} loaded, "
             f"stack {_bytes(report.stack_frame_bytes)}, shared {_bytes(report.shared_memory_bytes)} static, "
             f"barriers {report.barriers}")
    spec = TARGETS.get(target)
    estimate = occupancy.estimate(found, spec.sm_limits if spec is not None else None)
    if estimate is None:
        return lines + ("occupancy: no launch shape or SM limits for this target",)
    result, figures = occupancy.summary(estimate)
    return lines + (f"occupancy (estimate) {result}", f"  {figures}")

# --- training steps and meshes (explorer.model.training, explorer.model.sharding) ----------------------------


@_per_bundle
def step_layout(bundle: Bundle, target: str):
    """The target's `StepLayout` (train mode or a mesh), else None: an inference call on one chip."""
    from explorer.model.serial import load_json
    from explorer.model.training import STEP_FILE, StepLayout

    path = bundle.target_dir(target) / STEP_FILE
    return load_json(StepLayout, path, f"targets/{target}/{STEP_FILE}") if path.is_file() else None


def mode_text(bundle: Bundle | None) -> str:
    """What the bundle compiled, for the title line: "" for one inference call on one chip."""
    if bundle is None:
        return ""
    options = bundle.manifest.options
    if options.mode == "inference" and not options.mesh:
        return ""
    text = f"train ({options.optimizer})" if options.mode == "train" else options.mode
    text += ", rematerialised" if options.remat else ""
    return text + (f" on {options.mesh}, {options.shard} parallel" if options.mesh else "")


@_per_bundle
def step_lines(bundle: Bundle, target: str) -> tuple[str, ...]:
    """The memory pane's and `inspect --level memory`'s summary: buffers by role (weights, gradients,
    optimizer state, saved activations), peak against inference, donation, collectives per device."""
    from explorer.model.training import step_lines as summary

    layout = step_layout(bundle, target)
    memory = bundle.memory(target)
    if layout is None:
        return ()
    return summary(layout, bundle.hlo_text(target, optimized=True), memory.analysis if memory else (), target,
                   _step_memory(bundle, target))


@_per_bundle
def _step_memory(bundle: Bundle, target: str):
    """The step's buffers by class (`explorer.model.training.step_memory`), None without a step layout."""
    from explorer.model.training import step_memory

    layout = step_layout(bundle, target)
    if layout is None:
        return None
    memory = bundle.memory(target)
    return step_memory(layout, bundle.hlo_text(target, optimized=True), memory.analysis if memory else ())


@_per_bundle
def _step_members(bundle: Bundle, target: str) -> dict[str, str]:
    found = _step_memory(bundle, target)
    return dict(found.members) if found is not None else {}


def _step_keys(bundle: Bundle, target: str, found: HloInstruction) -> tuple[str, ...]:
    """Course keys of a training step's or a mesh's buffer: its class, donation, the division of work."""
    from explorer.model.sharding import COLLECTIVES
    from explorer.model.training import ROLE_KEYS

    layout = step_layout(bundle, target)
    if layout is None:
        return ()
    found_keys = []
    role = _step_members(bundle, target).get(found.name)
    if role in ROLE_KEYS:
        found_keys.append(ROLE_KEYS[role])
    if found.opcode == "parameter" and layout.donated:
        number = dict(found.attributes).get("parameter_number", "")
        if number.isdigit() and int(number) in layout.donated:
            found_keys.append("training:donation")
    if layout.mesh and found.opcode.removesuffix("-start") in COLLECTIVES:
        found_keys += ["sharding:collectives", f"sharding:{layout.shard}-parallel", "sharding:spmd"]
    return tuple(found_keys)


def _class_lines(bundle: Bundle, target: str, name: str) -> tuple[str, ...]:
    """`class  gradients`: what the selected buffer is to a training step."""
    role = _step_members(bundle, target).get(name)
    return (f"class  {role}",) if role else ()


def _pass_lines(bundle: Bundle, target: str, found: HloInstruction) -> tuple[str, ...]:
    """`pass   dense, backward` for an instruction of a training step."""
    layout = step_layout(bundle, target)
    if layout is None or layout.mode != "train" or not found.metadata.op_name:
        return ()
    from explorer.model.training import gradient_of, op_phase

    phase = op_phase(found.metadata.op_name, layout.optimizer)
    label = phase.label()
    shape = "" if found.shape.is_tuple else f"{found.shape.element_type}{list(found.shape.dims)}"
    variable = gradient_of(phase, shape, _weight_shapes(bundle, target))
    label += f": gradient w.r.t. the {variable}" if variable else ""
    return (f"pass   {label}",) if label else ()


@_per_bundle
def _weight_shapes(bundle: Bundle, target: str) -> dict[str, str]:
    """A training step's weights by variable path, with their shapes (`dense/kernel` -> `f32[64, 128]`)."""
    from explorer.hlo.parser import entry_parameter_shapes
    from explorer.model.training import WEIGHTS

    layout = step_layout(bundle, target)
    if layout is None:
        return {}
    # The header lists the parameters' shapes: the module itself is parsed later, off the first screen's path.
    shapes = entry_parameter_shapes(bundle.hlo_text(target, optimized=False))
    if shapes is not None:
        by_number = {number: f"{shape.element_type}{list(shape.dims)}" for number, shape in enumerate(shapes)}
    else:
        module = bundle.hlo_module(target, optimized=False)
        if module is None or module.entry is None:
            return {}
        by_number = {}
        for parameter in module.entry.instructions:
            number = dict(parameter.attributes).get("parameter_number", "") if parameter.opcode == "parameter" else ""
            if number.isdigit():
                by_number[int(number)] = f"{parameter.shape.element_type}{list(parameter.shape.dims)}"
    return {name: by_number[group.first + offset] for group in layout.arguments if group.role == WEIGHTS
            for offset, name in enumerate(group.names) if group.first + offset in by_number}


# --- device mapping per target -------------------------------------------------------------------


def device_lines(bundle: Bundle | None, level: str, name: str, shown_target: str, target: str,
                 lang: str = "en") -> tuple[str, ...]:
    """What `target` made of the layer of `name` (selected on `shown_target`), from
    `explorer.views.comparison.target_layer`: the fusions and ops, kernels and library calls (words in `lang`)."""
    from explorer.model.records import LevelStatus  # noqa: PLC0415

    if bundle is None:
        return (f"{target}: {label('text.nothing_captured', lang)}",)
    try:
        status = bundle.status("optimized-hlo", target)
    except TensorwegError:  # still capturing: the staging directory has no manifest yet
        status = LevelStatus("pending")
    if status.status == "failed":
        return (f"{target}: " + label("text.capture_failed", lang).format(error=status.error),)
    from explorer.views.tvm_view import is_tvm  # noqa: PLC0415

    if status.status != "ok" if is_tvm(target) else bundle.hlo_module(target, optimized=True) is None:
        return (f"{target}: {label('text.optimized_not_captured', lang)}",)
    layer = layer_of(bundle, level, name, shown_target)
    if not layer:
        entry = _index(bundle).entry(level, name, shown_target)
        if entry is not None and entry.role:
            return (f"{target}: {role_text(entry, lang)}: {label('text.program_argument', lang)}",)
        return (f"{target}: {label('text.no_layer', lang)}",)
    return _layer_lines(bundle, layer, target, lang)


@_per_bundle
def _layer_lines(bundle: Bundle, layer: str, target: str, lang: str) -> tuple[str, ...]:
    from explorer.views.comparison import target_layer  # noqa: PLC0415

    column = target_layer(bundle, layer, target)
    lines = [f"{target}  (" + label("text.layer_of", lang).format(layer=layer) + ")"]
    working = column.working
    for item in working[:8]:
        lines.append(f"  {item.name}: {item.fusion_kind or item.custom_call_target or item.opcode}")
    if len(working) > 8:
        lines.append("  " + label("field.more", lang).format(count=len(working) - 8))
    plumbing = len(column.instructions) - len(working)
    if plumbing:
        kinds = "/".join(sorted({i.opcode for i in column.instructions if i.plumbing}))
        lines.append(f"  +{plumbing} {kinds}")
    for brief in column.kernels:
        extra = f" {label('field.calls', lang)} {', '.join(brief.library_calls[:3])}" if brief.library_calls else ""
        extra += _registers_brief(kernel(bundle, target, brief.name), target)
        lines.append(f"  {label('column.kernel', lang)} {brief.name} [{brief.kind}]{extra}")
    if len(lines) == 1:
        lines.append("  " + label("text.nothing_for_layer", lang))
    return tuple(lines)


def _registers_brief(found: KernelRecord | None, target: str) -> str:
    """` 25 regs, 63/64 warps` for a GPU kernel with a ptxas report ("" otherwise)."""
    from explorer.model import occupancy  # noqa: PLC0415
    from explorer.targets import TARGETS  # noqa: PLC0415

    if found is None or found.ptxas is None:
        return ""
    spec = TARGETS.get(target)
    estimate = occupancy.estimate(found, spec.sm_limits if spec is not None else None)
    warps = f", {estimate.warps}/{estimate.max_warps} warps/SM" if estimate is not None else ""
    return f" {found.ptxas.registers} regs{warps}"


# --- explanations --------------------------------------------------------------------------------


def explanation_keys(bundle: Bundle | None, level: str, target: str, name: str) -> tuple[tuple[str, ...], ...]:
    """The course keys for the selection: one group per text, the item's own kind first.

    Each group is most specific first (a TPU kOutput fusion: `fusion:kOutput`,
    then `hlo:fusion`). After the item's group come what its data shows: a
    tiled layout, a memory space other than device memory, the allocation
    holding it. The explanation pane, the CLI and the course coverage test all
    use this function.
    """
    from explorer.course import keys  # noqa: PLC0415

    if bundle is None:
        return ()
    groups: list[tuple[str, ...]] = []
    if level == "layers" and (layer := layer_record(bundle, name)) is not None:
        groups.append(tuple(keys.layer_keys(layer)))
    elif level == "graph" and (op := _ops(bundle).get(name)) is not None:
        groups.append(tuple(keys.graph_op_keys(op)))
    elif _tvm(target) and level in (*_TVM_LEVELS, "memory"):
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        groups += tvm_levels.explanation_keys(bundle, level, target, name)
    elif is_hlo(level) and (found := instruction(bundle, level, target, name)) is not None:
        groups.append(tuple(keys.instruction_keys(found)))
        layout = keys.layout_keys(found.shape)
        if "layout:tiles" in layout:
            groups.append(tuple(layout))
        groups += [(key,) for key in keys.memory_space_keys(found.shape, target) if key != "memory:device"]
        if level == "optimized-hlo" and (allocation := allocation_of(bundle, target, name)) is not None:
            groups.append(tuple(keys.allocation_keys(allocation, target)))
        if level == "optimized-hlo":
            groups += [(key,) for key in _step_keys(bundle, target, found)]
    elif level == "kernels" and (found := kernel(bundle, target, name)) is not None:
        groups.append(tuple(keys.kernel_keys(found)))
        groups += [(key,) for key in sass_keys(found)]
    elif level == "memory" and (allocation := _allocation(bundle, target, name)) is not None:
        groups.append(tuple(keys.allocation_keys(allocation, target)))
    return tuple(dict.fromkeys(groups))


def sass_keys(found: KernelRecord) -> tuple[str, ...]:
    """A GPU kernel compiled to SASS: its registers and occupancy, its spills where it has any."""
    if found.ptxas is None:
        return ()
    spills = found.ptxas.spill_store_bytes or found.ptxas.spill_load_bytes or found.ptxas.stack_frame_bytes
    return ("sass:registers", "sass:occupancy") + (("sass:spills",) if spills else ())


def _allocation(bundle: Bundle, target: str, index: str) -> Allocation | None:
    """A memory-level item: the allocation numbered `index`."""
    memory = bundle.memory(target)
    return next((a for a in memory.allocations if str(a.index) == index), None) if memory is not None else None


def explanations(bundle: Bundle | None, level: str, target: str, name: str, lang: str) -> tuple[Explanation, ...]:
    """The texts for `explanation_keys`, one per group (duplicates dropped), never empty:
    an item with no key gets its level's text. The item's own figures fill the texts'
    placeholders (`{bytes}`, `{padding_bytes}`, `{vector_width_bits}`, `{grid}`, `{block}`)."""
    groups = explanation_keys(bundle, level, target, name) or ((),)
    return _explain_groups(level, groups, target, lang, figures(bundle, level, target, name))


def figures(bundle: Bundle | None, level: str, target: str, name: str) -> tuple[tuple[str, object], ...]:
    """The item's real figures for the course texts' placeholders (absent ones drop their sentence)."""
    from explorer.hlo import layout_math  # noqa: PLC0415

    found: dict[str, object] = {}
    if is_hlo(level) and (inst := instruction(bundle, level, target, name)) is not None:
        shape = inst.shape
        found["bytes"] = shape.byte_size
        if not shape.is_tuple and shape.layout is not None and shape.layout.tiles:
            with contextlib.suppress(ValueError):  # dynamic dims: no static padding
                found["padding_bytes"] = layout_math.padded_byte_size(shape) - layout_math.unpadded_byte_size(shape)
    elif level == "kernels" and (record := kernel(bundle, target, name)) is not None:
        if record.vector_width_bits:
            found["vector_width_bits"] = record.vector_width_bits
        if record.launch is not None:
            found.update(grid=tuple(record.launch.grid), block=tuple(record.launch.block))
        if record.ptxas is not None:
            found["registers"] = record.ptxas.registers
            from explorer.model import occupancy  # noqa: PLC0415
            from explorer.targets import TARGETS  # noqa: PLC0415

            spec = TARGETS.get(target)
            if (estimate := occupancy.estimate(record, spec.sm_limits if spec else None)) is not None:
                found.update(warps=estimate.warps, max_warps=estimate.max_warps)
    elif level == "memory" and bundle is not None and (allocation := _allocation(bundle, target, name)) is not None:
        found["bytes"] = allocation.size
    return tuple(sorted(found.items()))


@lru_cache(maxsize=1024)
def _explain_groups(level: str, groups: tuple[tuple[str, ...], ...], target: str, lang: str,
                    figures: tuple[tuple[str, object], ...]) -> tuple[Explanation, ...]:
    from explorer.course.lookup import explain  # noqa: PLC0415

    found: dict[str, Explanation] = {}
    for group in groups:
        text = explain(level if level in LIST_LEVELS else "memory", list(group), target, lang, dict(figures))
        found.setdefault(text.key, text)
    return tuple(found.values())


# --- tours ---------------------------------------------------------------------------------------


def tour_candidates(bundle: Bundle | None, level: str, target: str) -> tuple[Candidate, ...]:
    """The items of `level` as tour selectors see them (docs/tours.md), in display order.

    HLO kinds are opcode, fusion kind and custom-call target; instructions inside
    fusion computations are left out, so `kind:convolution` finds the top-level
    convolution rather than one buried in a fusion. Memory: allocations by index.
    """
    if bundle is None:
        return ()
    return _tour_candidates(bundle, level, target_key(level, target) or target)


@_per_bundle
def _tour_candidates(bundle: Bundle, level: str, target: str) -> tuple[Candidate, ...]:
    from explorer.course.tours import Candidate  # noqa: PLC0415

    if level in HLO_LEVELS and _tvm(target):
        return tuple(Candidate(item.name, (item.kind,), layer_of(bundle, level, item.name, target))
                     for item in _relax_rows(bundle, level, target))
    if level in HLO_LEVELS:
        module = bundle.hlo_module(target, optimized=level == "optimized-hlo")
        if module is None:
            return ()
        return tuple(Candidate(i.name, tuple(k for k in (i.opcode, i.fusion_kind, i.custom_call_target) if k),
                               layer_of(bundle, level, i.name, target))
                     for computation, i in module.all_instructions() if not computation.is_fusion)
    if level == "memory":
        memory = bundle.memory(target)
        return tuple(Candidate(str(a.index), (a.kind, *a.flags)) for a in (memory.allocations if memory else ()))
    return tuple(Candidate(item.name, (item.kind,), layer_of(bundle, level, item.name, target))
                 for item in rows(bundle, level, target))


def resolve_tour_step(bundle: Bundle | None, step: TourStep) -> str | None:
    """The name of the item a tour step selects in this bundle, or None."""
    from explorer.course.tours import resolve_selection  # noqa: PLC0415

    if step.selection is None:
        return None
    return resolve_selection(step.selection, tour_candidates(bundle, step.level, step.target))


@dataclass(frozen=True)
class LessonChoice:
    """One line of the lesson list (`T`): `needs` is "" when the open bundle has the capture the
    lesson's steps select in, else what it lacks and the command that captures it."""

    name: str
    tour: Tour
    needs: str = ""


def lesson_choices(bundle: Bundle | None, lang: str) -> list[LessonChoice]:
    """The built-in lessons in `lang` (each has a twin in the other; all when none is), those the
    bundle has the capture for first: a training lesson on an inference bundle selects nothing."""
    from explorer.course.tours import builtin_tours, missing_capture, tour_command  # noqa: PLC0415
    from explorer.model.bundle import is_bundle  # noqa: PLC0415

    tours = [(name, tour) for name, tour in builtin_tours() if tour.lang == lang] or builtin_tours()
    manifest = bundle.manifest if bundle is not None and is_bundle(bundle.path) else None  # None: capturing
    choices = []
    for name, tour in tours:
        missing = missing_capture(tour, manifest.model.spec, manifest.options) if manifest is not None else ""
        needs = label("tours.needs", lang).format(options=missing, command=tour_command(name, tour)) if missing else ""
        choices.append(LessonChoice(name, tour, needs))
    return sorted(choices, key=lambda choice: bool(choice.needs))


# --- what the app holds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """The bundle on screen with its index built (the app holds it; the functions above answer)."""

    bundle: Bundle | None = None

    @property
    def index(self) -> CrossIndex:
        return _index(self.bundle)

    def layer_of(self, level: str, name: str, target: str) -> str:
        return layer_of(self.bundle, level, name, target)


def warm_layer_facts(bundle: Bundle | None, lang: str = "en", cancelled=lambda: False) -> None:
    """Build what the device pane shows for every layer on every target now (call it off the UI
    thread once the first screen is up): on a large module the first press on a layer would
    otherwise walk the module for each target. Built in `lang`, the language the pane shows;
    stops when `cancelled()` says so."""
    if bundle is None:
        return
    for layer in bundle.layers:
        for target in bundle.targets:
            if cancelled():
                return
            try:
                if bundle.hlo_module(target, optimized=True) is not None:
                    _layer_lines(bundle, layer.name, target, lang)
            except TensorwegError:  # a damaged level: the pane says so when it is shown
                continue


def build_trace(bundle: Bundle | None) -> Trace:
    """Index the bundle now (every target's modules are parsed once; call it off the UI thread)."""
    _index(bundle)
    return Trace(bundle)


@dataclass(frozen=True)
class Selection:
    """What the side panes are asked to show: one item of one level on one target."""

    bundle: Bundle
    level: str
    target: str
    name: str
    lang: str = "en"


# --- TVM targets (`tvm:cpu`): Relax at the HLO levels, TIR functions below (explorer/views/tvm.py) ---

# The levels whose items, on a TVM target, are Relax bindings and TIR functions rather than HLO.
_TVM_LEVELS = ("hlo", "optimized-hlo", "kernels")


def _tvm(target: str) -> bool:
    from explorer.views.tvm_view import is_tvm  # noqa: PLC0415

    return bool(target) and is_tvm(target)


@_per_bundle
def _relax_rows(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    """Relax as imported (`hlo`) or after fusion (`optimized-hlo`): one row per binding or TIR
    function, in the columns of the HLO levels (the layer where XLA shows an op_name)."""
    from explorer.views import tvm as tvm_levels  # noqa: PLC0415

    return tuple(_item(level, item.name, (item.name, item.kind, item.shape, ", ".join(item.layers)),
                       item.kind, item.line)
                 for item in tvm_levels.relax_items(bundle, target, level == "optimized-hlo"))


def _tvm_counterpart(bundle: Bundle, level: str, name: str, target: str, other: str, layer: str) -> str:
    """`t` between XLA and TVM: the layer's item on `other` doing the same work (a convolution's
    `fused_conv2d_relu`), else the layer's first item there; "" when the layer has none."""
    from explorer.views import tvm as tvm_levels  # noqa: PLC0415

    layer = layer or layer_of(bundle, level, name, target)
    if _tvm(target):
        found = tvm_levels.find(bundle, level, target, name)
        work = tvm_levels.item_work(found) if found is not None else frozenset()
    else:
        work = _work_of(bundle, level, target, name) | tvm_levels.work(_kind_of(bundle, level, target, name)[0])
    if not layer:
        return ""
    if _tvm(other):
        fusion = _kind_of(bundle, level, target, name)[0] == "fusion"
        return tvm_levels.counterpart(bundle, level, other, layer, work, fusion)
    candidates = items_for_layer(bundle, layer, level, other)
    working = [c for c in candidates if _kind_of(bundle, level, other, c)[0] not in (*_plumbing_opcodes(), "parameter",
                                                                                      "constant")] or candidates
    return next((c for c in working if _work_of(bundle, level, other, c) & work), working[0] if working else "")


# --- the mesh view (`D`): which device holds which slice of the layer ---------------------


@_per_bundle
def layer_mesh(bundle: Bundle | None, target: str, layer: str):
    """The selected layer's weights and output over the target's mesh (explorer.views.mesh.MeshLayer);
    None when the target was not compiled for a mesh or the bundle predates the sharded snapshot."""
    from explorer.model.training import INPUTS, WEIGHTS
    from explorer.views.mesh import SHARDED_HLO, mesh_layer, read_devices

    if bundle is None or target not in bundle.targets:
        return None
    layout = step_layout(bundle, target)
    path = bundle.target_dir(target) / SHARDED_HLO
    if layout is None or not layout.mesh or not path.is_file():
        return None
    record = layer_record(bundle, layer)
    weights = {group.first + offset: name for group in layout.arguments if group.role == WEIGHTS
               for offset, name in enumerate(group.names)}
    inputs = {group.first + offset: name for group in layout.arguments if group.role == INPUTS
              for offset, name in enumerate(group.names)}
    output = tuple(record.output_shapes[0]) if record and record.output_shapes else ()
    return mesh_layer(_sharded_module(bundle, target), record.path if record else layer, weights, output,
                      target, layout.mesh, layout.shard, inputs, read_devices(bundle.target_dir(target)))


@_per_bundle
def _sharded_module(bundle: Bundle, target: str):
    """The sharded module's values, read once per bundle and target: each layer of the mesh view
    (`n`) picks its own from them instead of reading the whole module again."""
    from explorer.views.mesh import SHARDED_HLO, sharded_values

    return sharded_values((bundle.target_dir(target) / SHARDED_HLO).read_text(encoding="utf-8"))


def neighbour_layer(bundle: Bundle | None, name: str, step: int) -> str | None:
    """The layer `step` places after `name` in the model's order, wrapping round (`[`/`]` on the
    compare and mesh screens); the first or last layer when `name` is none of them; None without layers."""
    names = [layer.name for layer in bundle.layers] if bundle is not None else []
    if not names:
        return None
    at = names.index(name) if name in names else -step
    return names[(at + step) % len(names)]
