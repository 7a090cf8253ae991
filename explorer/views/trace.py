"""The vertical trace: which layer an item belongs to, its items one level down or up, and the
same layer's nearest item on another target (the `t` key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.levels import LIST_LEVELS, NEXT_DOWN, is_hlo, target_key

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.model.index import CrossIndex

from explorer.views.tables import (
    TVM_LEVELS,
    computation_table,
    cross_index,
    instruction,
    instruction_table,
    is_tvm_target,
    kernel,
    parameter_entries,
    per_bundle,
)


def layer_of(bundle: Bundle | None, level: str, name: str, target: str) -> str:
    """The layer owning an item ("" when the compiler created it)."""
    if level == "layers":
        return name
    if level == "memory":
        return ""
    if is_tvm_target(target) and level in TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.layer_of(bundle, level, name, target)
    return cross_index(bundle).layer_of(level, name, "cpu" if level == "graph" else target)


def items_for_layer(bundle: Bundle | None, layer: str, level: str, target: str) -> tuple[str, ...]:
    if level == "layers":
        return (layer,)
    if is_tvm_target(target) and level in TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.items_for_layer(bundle, layer, level, target)
    return cross_index(bundle).items_for_layer(layer, level, "cpu" if level == "graph" else target)


def down(bundle: Bundle | None, level: str, name: str, target: str) -> tuple[str, ...]:
    """The items one level lower that implement `name` (layers go to graph ops, else to HLO)."""
    if level == "layers":
        below = "graph" if bundle is not None and bundle.graph is not None else "hlo"
        return items_for_layer(bundle, name, below, target)
    if is_tvm_target(target) and level in TVM_LEVELS and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.down(bundle, level, name, target)
    found = cross_index(bundle).down(level, name, target)
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
    if is_tvm_target(target) and level in ("optimized-hlo", "kernels") and bundle is not None:
        from explorer.views import tvm as tvm_levels  # noqa: PLC0415

        return tvm_levels.up(bundle, level, name, target)
    found = cross_index(bundle).up(level, name, target)
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
    if (is_tvm_target(target) or is_tvm_target(other)) and level in TVM_LEVELS:
        return _tvm_counterpart(bundle, level, name, target, other, layer)
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


@per_bundle
def _work(bundle: Bundle, level: str, target: str, name: str) -> frozenset[str]:
    found = instruction_table(bundle, target, level == "optimized-hlo")[name]
    work = {found.opcode} & _HEAVY
    call = found.custom_call_target.lower()
    work |= {opcode for needle, opcode in _CALLS if needle in call}
    computations = computation_table(bundle, target, level == "optimized-hlo")
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


def _plumbing_opcodes() -> frozenset[str]:
    from explorer.views.comparison import PLUMBING  # noqa: PLC0415

    return PLUMBING


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


@dataclass(frozen=True)
class Trace:
    """The bundle on screen with its index built (the app holds it; the functions above answer)."""

    bundle: Bundle | None = None

    @property
    def index(self) -> CrossIndex:
        return cross_index(self.bundle)

    def layer_of(self, level: str, name: str, target: str) -> str:
        return layer_of(self.bundle, level, name, target)


def build_trace(bundle: Bundle | None) -> Trace:
    """Index the bundle now (every target's modules are parsed once; call it off the UI thread)."""
    cross_index(bundle)
    return Trace(bundle)


def _tvm_counterpart(bundle: Bundle, level: str, name: str, target: str, other: str, layer: str) -> str:
    """`t` between XLA and TVM: the layer's item on `other` doing the same work (a convolution's
    `fused_conv2d_relu`), else the layer's first item there; "" when the layer has none."""
    from explorer.views import tvm as tvm_levels  # noqa: PLC0415

    layer = layer or layer_of(bundle, level, name, target)
    if is_tvm_target(target):
        found = tvm_levels.find(bundle, level, target, name)
        work = tvm_levels.item_work(found) if found is not None else frozenset()
    else:
        work = _work_of(bundle, level, target, name) | tvm_levels.work(_kind_of(bundle, level, target, name)[0])
    if not layer:
        return ""
    if is_tvm_target(other):
        fusion = _kind_of(bundle, level, target, name)[0] == "fusion"
        return tvm_levels.counterpart(bundle, level, other, layer, work, fusion)
    candidates = items_for_layer(bundle, layer, level, other)
    working = [c for c in candidates if _kind_of(bundle, level, other, c)[0] not in (*_plumbing_opcodes(), "parameter",
                                                                                      "constant")] or candidates
    return next((c for c in working if _work_of(bundle, level, other, c) & work), working[0] if working else "")


def neighbour_layer(bundle: Bundle | None, name: str, step: int) -> str | None:
    """The layer `step` places after `name` in the model's order, wrapping round (`[`/`]` on the
    compare and mesh screens); the first or last layer when `name` is none of them; None without layers."""
    names = [layer.name for layer in bundle.layers] if bundle is not None else []
    if not names:
        return None
    at = names.index(name) if name in names else -step
    return names[(at + step) % len(names)]
