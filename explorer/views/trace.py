"""The vertical trace: which layer an item belongs to, its items one level down or up, and the
same layer's nearest item on another target (the `t` key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeGuard

from explorer.errors import TensorwegError
from explorer.levels import LIST_LEVELS, NEXT_DOWN, NEXT_UP, level_named, target_key
from explorer.model.built import about_to_walk

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.model.index import IndexQueries

from explorer.views.op_roles import LOOP_WORK, op_rank
from explorer.views.programs import program_for
from explorer.views.rows import rows
from explorer.views.tables import cross_index, per_bundle


def _per_target(bundle: Bundle | None, level: str) -> TypeGuard[Bundle]:
    """Whether the target's program answers for `level`'s items (else the cross-level index does)."""
    return bundle is not None and level_named(level).from_program


def layer_of(bundle: Bundle | None, level: str, name: str, target: str) -> str:
    """The layer owning an item ("" when the compiler created it)."""
    this = level_named(level)
    if this.lists_layers:
        return name
    if this.maps_buffers:  # a buffer holds values of any layer
        return ""
    if _per_target(bundle, level):
        return program_for(bundle, target).layer_of(level, name)
    return cross_index(bundle).layer_of(level, name, "cpu" if this.cpu_only else target)


def items_for_layer(bundle: Bundle | None, layer: str, level: str, target: str) -> tuple[str, ...]:
    this = level_named(level)
    if this.lists_layers:
        return (layer,)
    if _per_target(bundle, level):
        return program_for(bundle, target).items_for_layer(layer, level)
    return cross_index(bundle).items_for_layer(layer, level, "cpu" if this.cpu_only else target)


def down(bundle: Bundle | None, level: str, name: str, target: str) -> tuple[str, ...]:
    """The items one level lower that implement `name` (layers go to graph ops, else to HLO)."""
    this = level_named(level)
    if this.lists_layers:
        return items_for_layer(bundle, name, _level_below(bundle, level), target)
    if _per_target(bundle, level):
        return program_for(bundle, target).down(level, name)
    found = cross_index(bundle).down(level, name, target)
    if this.cpu_only and not found and target != "cpu":
        # Keras-on-JAX targets never saw the TF graph: their HLO links to layers only.
        layer = layer_of(bundle, "graph", name, target)
        return items_for_layer(bundle, layer, "hlo", target) if layer else ()
    return found


def _level_below(bundle: Bundle | None, level: str) -> str:
    """The level `down` answers with: the next one, except that a layer leads to its HLO directly in
    a bundle without a TensorFlow graph (Keras on JAX)."""
    if level_named(level).lists_layers and (bundle is None or bundle.graph is None):
        return "hlo"
    return NEXT_DOWN[level]


def up(bundle: Bundle | None, level: str, name: str, target: str) -> tuple[str, ...]:
    """The items one level higher that `name` implements."""
    above = level_named(level).up
    if above is not None and above.lists_layers:  # an op's layer
        layer = layer_of(bundle, "graph", name, target)
        return (layer,) if layer else ()
    found = program_for(bundle, target).up(level, name) if _per_target(bundle, level) \
        else cross_index(bundle).up(level, name, target)
    if above is not None and above.cpu_only and target != "cpu" and bundle is not None and bundle.graph is not None:
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

    Lands on the item doing most of the work that itself leads further down (`_work_rank`): a
    recurrent layer's loop, not one of its 84 constants; the Conv2D op, not the ReadVariableOp
    feeding it; a transposed convolution's convolution, not the flip of its weights (nor, on a GPU,
    the bias add after the cuDNN call, though only the add has the layer's output shape); the
    convolution, not the layer's weight parameter. Among equals the one holding `name`'s result
    (`_same_shape`), then the first in program order, so repeated Enter follows the computation.
    """
    below = NEXT_DOWN.get(level)
    if below is None:
        return None
    found = down(bundle, level, name, target)
    if not found:
        return Descent(below, "", ())
    same = _same_shape(bundle, level, name, below, target, found)
    # The most work first, then the item holding `name`'s result, then program order.
    ranked = sorted(found[:_RANKED], key=lambda n: (-_work_rank(bundle, below, n, target), n not in same))
    first = ranked[0]
    if below in NEXT_DOWN:  # and one that leads further down, where one does
        first = next((n for n in ranked[:_LEADING] if down(bundle, below, n, target)), first)
    return Descent(below, first, found)


# Enter ranks at most this many of an item's candidates below (a layer of a large training step
# has thousands), and looks for a way further down among the best this many.
_RANKED, _LEADING = 2000, 50


def _work_rank(bundle: Bundle | None, level: str, name: str, target: str) -> int:
    """How much of its layer's work an item does: 2 a loop holding its steps, 1 heavy work (the
    target's program: `work`; a TensorFlow op: its type), 0 other work, -1 plumbing."""
    if _per_target(bundle, level):
        program = program_for(bundle, target)
        if program.does_no_work(level, name):
            return -1
        work = program.work(level, name)
        return 2 if work & LOOP_WORK else 1 if work else 0
    return op_rank(_kinds(bundle, level).get(name, ""))


@per_bundle
def _kinds(bundle: Bundle | None, level: str) -> dict[str, str]:
    """A target-free level's items and their kinds (a TensorFlow op's type); {} without a bundle."""
    return {item.name: item.kind for item in rows(bundle, level, "")}


def _same_shape(bundle: Bundle | None, level: str, name: str, below: str, target: str,
                found: tuple[str, ...]) -> tuple[str, ...]:
    """Of several items `name` leads to, those holding its result's shape (the program decides: an
    optimizer's update lands on the fusion updating an array of its shape); () to keep them all."""
    if not (_per_target(bundle, level) and _per_target(bundle, below)):
        return ()
    return program_for(bundle, target).same_shape_below(level, name, below, found)


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

    Between compilers (XLA and TVM) the candidates are the layer's items doing the
    same work (`TargetProgram.work`): a convolution's `fused_conv2d_relu` and back.
    `other`'s program decides (`explorer.views.programs`).
    """
    if bundle is None or level not in LIST_LEVELS or not target_key(level, target) or target == other:
        return name
    return program_for(bundle, other).counterpart(level, name, program_for(bundle, target), layer)


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
    def index(self) -> IndexQueries:
        return cross_index(self.bundle)

    def layer_of(self, level: str, name: str, target: str) -> str:
        return layer_of(self.bundle, level, name, target)


def build_trace(bundle: Bundle | None) -> Trace:
    """Index the bundle now (every target's modules are parsed once; call it off the UI thread)."""
    cross_index(bundle)
    return Trace(bundle)


def neighbour_layer(bundle: Bundle | None, name: str, step: int) -> str | None:
    """The layer `step` places after `name` in the model's order, wrapping round (`[`/`]` on the
    compare and mesh screens); the first or last layer when `name` is none of them; None without layers."""
    names = [layer.name for layer in bundle.layers] if bundle is not None else []
    if not names:
        return None
    at = names.index(name) if name in names else -step
    return names[(at + step) % len(names)]


@dataclass(frozen=True)
class JumpQuestion:
    """A number key's question to `jump`, kept as asked: asked on the UI thread before the tables that
    answer it were built, it is answered on a worker (`answer`) and the answer applied only while the
    learner is still where the key took them (`explorer.session.service.SessionService.jump`)."""

    bundle: Bundle | None
    level: str
    name: str
    other: str
    target: str
    kept: str = ""

    def answer(self) -> str:
        return jump(self.bundle, self.level, self.name, self.other, self.target, self.kept)


def jump(bundle: Bundle | None, level: str, name: str, other: str, target: str, kept: str = "") -> str:
    """Where a number key from `name` at `level` lands on the list level `other`: the same item's
    trace, as Enter (down) and the operand's layer (up) would follow it, "" when there is none.

    Down, step by step as Enter descends (`dense` -> its MatMul -> its dot -> the fusion holding
    it); up, through the items it implements to its layer. `kept`, the selection `other` had, stays
    when it still belongs to `name` (an item it implements, or one of the same layer below), so
    going down and back up (`4`, then `3`) returns to where the learner was. Where a step finds
    nothing (the compiler created the item), the layer's first item at `other`.
    """
    if bundle is None or not name or level == other or level not in LIST_LEVELS or other not in LIST_LEVELS:
        return ""
    going_down = LIST_LEVELS.index(other) > LIST_LEVELS.index(level)
    layer = layer_of(bundle, level, name, target)
    if kept and _still_belongs(bundle, level, name, other, target, kept, layer, going_down):
        return kept
    walk = _walk_down if going_down else _walk_up
    found = walk(bundle, level, name, other, target)
    if found:
        return found
    below = items_for_layer(bundle, layer, other, target) if layer else ()
    return below[0] if below else ""


def _still_belongs(bundle: Bundle, level: str, name: str, other: str, target: str, kept: str, layer: str,
                   going_down: bool) -> bool:
    if going_down:
        return bool(layer) and layer_of(bundle, other, kept, target) == layer
    if level_named(other).lists_layers:
        return _belongs_to_layer(bundle, kept, level, name, target)
    return _implemented_by(bundle, other, kept, level, name, target)


def _belongs_to_layer(bundle: Bundle, layer: str, level: str, name: str, target: str) -> bool:
    """Whether `name` at `level` belongs to `layer`: listed under it at its level, or implementing an
    item listed under it one level up. The layer tables answer it in a lookup or two, where tracing
    up from a kernel holding 5,000 layers' fusions walked them all (and every item they implement),
    and tracing down from the layer read the HLO before optimisation and the TF graph on the way. The
    second test is needed as XLA:CPU lists one kernel holding many layers' fusions under one of them."""
    if name in items_for_layer(bundle, layer, level, target):
        return True
    above = level_named(level).up
    if above is None or above.lists_layers:
        return False
    items = items_for_layer(bundle, layer, above.name, target)
    about_to_walk(len(items), f"what {layer} holds")
    return any(name in down(bundle, above.name, item, target) for item in items)


def _implemented_by(bundle: Bundle, level: str, name: str, lower: str, item: str, target: str) -> bool:
    """Whether `item` at the `lower` level implements `name` at `level`: searched down from `name`,
    depth first, each item asked once. Down from one item the trace fans out little (a layer's few
    ops, their instructions, the fusions holding those), where up from a kernel it can fan out to the
    whole model (one kernel holding 5,000 fusions: the upward walk this replaces traced them all on
    the UI thread). A search asking more than the walk limit is still left to a worker."""
    seen: set[tuple[str, str]] = set()
    pending = [(level, name)]
    while pending:
        at, each = pending.pop()
        if (at, each) in seen or LIST_LEVELS.index(at) >= LIST_LEVELS.index(lower):
            continue
        seen.add((at, each))
        about_to_walk(len(seen), f"what implements {name}")
        below, found = _level_below(bundle, at), down(bundle, at, each, target)
        if below == lower and item in found:
            return True
        pending.extend((below, one) for one in reversed(found))
    return False


def _walk_down(bundle: Bundle, level: str, name: str, other: str, target: str) -> str:
    if level_named(level).lists_layers and bundle.graph is None:  # no TF graph: Enter goes from a layer to its HLO
        if level_named(other).cpu_only:
            return ""
        found = items_for_layer(bundle, name, "hlo", target)
        level, name = "hlo", found[0] if found else ""
    while name and level != other:
        descent = descend(bundle, level, name, target)
        level, name = (descent.level, descent.select) if descent is not None else (other, "")
    return name


def _walk_up(bundle: Bundle, level: str, name: str, other: str, target: str) -> str:
    if level_named(other).lists_layers:
        return layer_of(bundle, level, name, target)
    while level != other:
        found = up(bundle, level, name, target)
        if not found:
            return ""
        level, name = NEXT_UP[level], found[0]
    return name
