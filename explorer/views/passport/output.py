"""Which optimized instruction holds a layer's output tensor: the hop from a layer to its tensor.

A layer's output is the tensor that crosses from the layer to the layers it feeds, so the optimized
module's data flow says which instruction holds it, in this order of evidence:

1. `consumer`: one of the layer's instructions, holding no op of a layer it feeds, whose result is
   read by an instruction of a layer it feeds (`LayerRecord.inbound`) that holds none of this layer's
   own ops (bitcasts, tuple elements, copies and the compiler's own instructions in between are
   followed through).
   Also `consumer`: where the reading instruction touches this layer's ops again (the v5e re-applies a
   ReLU on the padded edges of the next 3x3 convolution inside its fusion), one of the layer's
   instructions that carries the op_name of the layer's last operation before optimisation and has
   as many elements as its output, read by an instruction computing a layer it feeds.
2. `result`: for a layer nothing feeds on, its instruction that is (or reaches) the module's ROOT.
3. `fused`: no instruction of the layer's is read across, because its output is computed inside an
   instruction that also computes a layer it feeds (a convolution's bias add fused with the next
   BatchNormalization and ReLU): that instruction, the first in program order that no other of the
   layer's instructions reads. The tensor is never written to memory on its own.
4. `heuristic`: without that evidence (a training step whose output feeds the loss, a program with no
   HLO module, layers.json without edges), the layer's last instruction in program order that does
   work, one it owns alone first and one with as many elements as the layer's output first.

Keras's output shape is the check: `elements_match` says whether the chosen instruction's result has
as many elements as the layer's output (XLA:TPU pads and reshapes dimensions, `f32[26,8,4,8]` for
(1, 26, 26, 8), and may choose bf16, so it is a check, not a filter, except in the heuristic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.model.memo import derived
from explorer.views import trace
from explorer.views.tables import computation_table, cross_index, instruction, layer_record, per_bundle

if TYPE_CHECKING:
    from explorer.hlo.model import HloInstruction, HloModule
    from explorer.model.bundle import Bundle

# Instructions that move or name bytes without computing them.
NO_WORK = frozenset({"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy-start", "copy-done",
                     "iota"})
# Readers followed through to who reads their result: they pass the bytes on (a copy changes only the layout).
_PASS_ON = NO_WORK | {"copy", "transpose"}
_MOST_READERS = 200  # instructions visited per candidate when following pass-on readers


@dataclass(frozen=True)
class OutputTensor:
    """`name`: the optimized instruction ("" when none); `how`: consumer, result, fused, heuristic ("" for none;
    "item" when the passport was opened on an instruction or kernel);
    `layer`: the layer it feeds (consumer, fused); `reader`: that layer's instruction reading it (consumer);
    `elements_match`: its result has as many elements as Keras's output (None: no shape to check)."""

    name: str
    how: str = ""
    layer: str = ""
    reader: str = ""
    elements_match: bool | None = None


def does_work(bundle: Bundle, level: str, target: str, name: str) -> bool:
    found = instruction(bundle, level, target, name)
    return found is None or found.opcode not in NO_WORK


def output_tensor(bundle: Bundle, target: str, layer: str) -> OutputTensor:
    """The optimized instruction holding `layer`'s output on `target`, with how it was found."""
    work = [n for n in trace.items_for_layer(bundle, layer, "optimized-hlo", target)
            if does_work(bundle, "optimized-hlo", target, n)]
    if not work:
        return OutputTensor("")
    module = bundle.hlo_module(target, optimized=True)
    found = _by_data_flow(bundle, target, layer, work, module) if module is not None and module.entry else None
    if found is None:
        found = OutputTensor(_last_work(bundle, target, layer, work), "heuristic")
    return OutputTensor(found.name, found.how, found.layer, found.reader,
                        _elements_match(bundle, target, layer, found.name))


class _Flow:
    """One target's optimized entry computation as data flow: who reads a result, which layers an
    instruction computes (the cross-level index: a fusion's op_names)."""

    def __init__(self, bundle: Bundle, target: str, module: HloModule) -> None:
        self.bundle, self.target = bundle, target
        self.readers, self.roots = _readers(module), _roots(module)
        self.index = cross_index(bundle)

    def layers_of(self, name: str) -> tuple[str, ...]:
        """The layers `name` computes, its owner first."""
        entry = self.index.entry("optimized-hlo", name, self.target)
        return tuple(x for x in ((entry.layer, *entry.also_layers) if entry is not None else ()) if x)

    def passes_on(self, name: str) -> bool:
        found = instruction(self.bundle, "optimized-hlo", self.target, name)
        return found is not None and found.opcode in _PASS_ON

    def doers(self, name: str) -> list[str]:
        """The instructions that read `name`'s result and compute with it, past those passing it on
        (and past the compiler's own instructions, which no layer owns)."""
        found, seen, queue = [], {name}, list(self.readers.get(name, ()))
        while queue and len(seen) < _MOST_READERS:
            reader = queue.pop(0)
            if reader in seen:
                continue
            seen.add(reader)
            if self.passes_on(reader) or not self.layers_of(reader):
                queue += self.readers.get(reader, ())
            else:
                found.append(reader)
        return found

    def reaches_root(self, name: str) -> bool:
        """Whether `name` is the ROOT or reaches it through instructions that only pass bytes on."""
        seen, queue = set(), [name]
        while queue and len(seen) < _MOST_READERS:
            at = queue.pop(0)
            if at in self.roots:
                return True
            if at not in seen:
                seen.add(at)
                queue += [r for r in self.readers.get(at, ()) if self.passes_on(r)]
        return False


def _by_data_flow(bundle: Bundle, target: str, layer: str, work: list[str], module: HloModule) -> OutputTensor | None:
    positions = _positions(bundle, target)
    entry_work = [n for n in work if n in positions]
    if not entry_work:
        return None
    flow = _Flow(bundle, target, module)
    own, feeds = _family(bundle, layer), _fed_layers(bundle, target, layer)
    crossing: list[tuple[str, str, str]] = []
    finished: list[str] = []  # the layer's instructions no other of its instructions reads
    for name in entry_work:
        doers = flow.doers(name)
        if not any(own.intersection(flow.layers_of(r)) for r in doers):
            finished.append(name)
        if _first(feeds, flow.layers_of(name)):
            continue  # it also computes a layer this one feeds: the output is fused there (below)
        crossing += [(name, _first(feeds, flow.layers_of(r)), r) for r in doers
                     if _first(feeds, flow.layers_of(r)) and not own.intersection(flow.layers_of(r))][:1]
    if crossing:
        return _pick_crossing(bundle, target, layer, crossing, positions)
    written = _written_whole(bundle, target, layer, entry_work, flow, feeds)
    if written is not None:
        return written
    if not feeds:
        at_root = [n for n in finished if flow.reaches_root(n)]
        return OutputTensor(max(at_root, key=positions.__getitem__), "result") if at_root else None
    fused = [(n, _first(feeds, flow.layers_of(n))) for n in finished if _first(feeds, flow.layers_of(n))]
    if fused:
        name, fed = min(fused, key=lambda pair: positions[pair[0]])
        return OutputTensor(name, "fused", fed)
    return None


def _written_whole(bundle: Bundle, target: str, layer: str, work: list[str], flow: _Flow,
                   feeds: frozenset[str]) -> OutputTensor | None:
    """One of the layer's instructions that computes its last operation (the op_name of what ends the
    layer before optimisation), holds as many elements as its output and no op of a layer it feeds, read
    by an instruction computing a layer it feeds that also touches this layer's ops again (the v5e
    re-applies a ReLU on a 3x3 convolution's padded edges inside the next block's fusion)."""
    ends = _end_op_names(bundle, target, layer)
    for name in reversed(work):
        if not ends or _first(feeds, flow.layers_of(name)) or not _elements_match(bundle, target, layer, name):
            continue
        if not ends & _op_names_in(bundle, target, name):
            continue
        reader = next((r for r in flow.doers(name) if _first(feeds, flow.layers_of(r))), "")
        if reader:
            return OutputTensor(name, "consumer", _first(feeds, flow.layers_of(reader)), reader)
    return None


def _end_op_names(bundle: Bundle, target: str, layer: str) -> frozenset[str]:
    """The op_names of the layer's last operations before optimisation: its HLO instructions that do work
    and that none of its others reads (for a `call`, the called computation's root)."""
    module = bundle.hlo_module(target, optimized=False)
    if module is None or module.entry is None:
        return frozenset()
    mine = [n for n in trace.items_for_layer(bundle, layer, "hlo", target) if does_work(bundle, "hlo", target, n)]
    readers, kept = _readers(module), set(mine)
    computations = computation_table(bundle, target, False)
    found: set[str] = set()
    for name in mine:
        if kept.intersection(readers.get(name, ())):
            continue
        at, prefix = _through_calls(computations, instruction(bundle, "hlo", target, name))
        if at is not None and at.metadata.op_name:
            found.add(_joined(prefix, at.metadata.op_name))
    return frozenset(found)


def _through_calls(computations: dict, at: HloInstruction | None) -> tuple[HloInstruction | None, str]:
    """`at`, or for a JAX `call` its called computation's root (and that root's call's, a few levels
    down), with the calls' op_names as the prefix their inlined ops get: JAX names a called
    computation's ops from the call (`max` in `.../jit(relu)`), as the optimized module shows
    (`.../jit(relu)/max`)."""
    prefix = ""
    for _ in range(8):
        if at is None or at.opcode != "call" or not at.called_computations:
            break
        prefix = _joined(prefix, at.metadata.op_name)
        called = computations.get(at.called_computations[0])
        at = called.root if called is not None else None
    return at, prefix


def _joined(prefix: str, op_name: str) -> str:
    return f"{prefix}/{op_name}" if prefix and op_name and not op_name.startswith(prefix) else op_name or prefix


def _op_names_in(bundle: Bundle, target: str, name: str) -> frozenset[str]:
    """The op_names an optimized instruction carries, its own and those inside the computations it calls."""
    computations = computation_table(bundle, target, True)
    top = instruction(bundle, "optimized-hlo", target, name)
    found: set[str] = set()
    todo, seen = [top] if top is not None else [], set()
    while todo:
        at = todo.pop()
        if at.metadata.op_name:
            found.add(at.metadata.op_name)
        for called in at.called_computations:
            if called not in seen and called in computations:
                seen.add(called)
                todo += computations[called].instructions
    return frozenset(found)


def moves_bytes_only(bundle: Bundle, target: str, layer: str) -> bool:
    """Whether the layer's HLO instructions (a JAX `call`: its called root) only reshape or name bytes
    (a Flatten), so that an optimized bitcast of the tensor before it is all that is left of it."""
    computations = computation_table(bundle, target, False)
    for name in trace.items_for_layer(bundle, layer, "hlo", target):
        at, _ = _through_calls(computations, instruction(bundle, "hlo", target, name))
        if at is not None and at.opcode not in _PASS_ON | {"reshape"}:
            return False
    return True


def folded_into(bundle: Bundle, target: str, layer: str, tensor: str) -> tuple[str, str]:
    """(instruction, layer): where a layer without instructions of its own went, read off the data flow:
    the first instruction of a layer it feeds that reads `tensor` (the tensor before it); ("", "") when none."""
    module = bundle.hlo_module(target, optimized=True)
    if module is None or module.entry is None:
        return "", ""
    flow, feeds = _Flow(bundle, target, module), _fed_layers(bundle, target, layer)
    for reader in flow.doers(tensor):
        fed = _first(feeds, flow.layers_of(reader))
        if fed:
            return reader, fed
    return "", ""


def _first(wanted: frozenset[str], layers: tuple[str, ...]) -> str:
    """The first of `layers` that is `wanted` ("" when none)."""
    return next((x for x in layers if x in wanted), "")


def _family(bundle: Bundle, layer: str) -> frozenset[str]:
    """`layer` and the layers inside it (a nested model's items are its inner layers')."""
    parents = cross_index(bundle).parents
    found, grew = {layer}, True
    while grew:
        inner = {child for child, parent in parents if parent in found} - found
        found |= inner
        grew = bool(inner)
    return frozenset(found)


def _fed_layers(bundle: Bundle, target: str, layer: str) -> frozenset[str]:
    """The layers that read `layer`'s output (layers.json's edges), with the layers inside them.

    Past a layer that computes nothing on `target` (a Flatten that became a bitcast) to the layers it
    feeds; from the last layer inside a nested model to the layers the model feeds."""
    parent = dict(cross_index(bundle).parents)
    found: set[str] = set()
    seen: set[str] = set()
    todo = [layer]
    while todo:
        at = todo.pop()
        if at in seen:
            continue
        seen.add(at)
        direct = [record.name for record in bundle.layers if at in record.inbound and record.name != at]
        if not direct and parent.get(at):
            todo.append(parent[at])  # the nested model's output is this layer's
        for name in direct:
            found |= _family(bundle, name)
            if not _computes(bundle, target, name):
                todo.append(name)
    return frozenset(found - _family(bundle, layer))


def _computes(bundle: Bundle, target: str, layer: str) -> bool:
    return any(does_work(bundle, "optimized-hlo", target, n)
               for n in trace.items_for_layer(bundle, layer, "optimized-hlo", target))


def _pick_crossing(bundle: Bundle, target: str, layer: str, crossing: list[tuple[str, str, str]],
                   positions: dict[str, int]) -> OutputTensor:
    """Of the layer's instructions read across, one with the output's element count first, then the last."""
    matching = [c for c in crossing if _elements_match(bundle, target, layer, c[0])] or crossing
    name, fed, reader = max(matching, key=lambda c: positions[c[0]])
    return OutputTensor(name, "consumer", fed, reader)


def _readers(module: HloModule) -> dict[str, tuple[str, ...]]:
    """Entry instruction -> the entry instructions reading its result, in program order."""
    entry = module.entry
    assert entry is not None  # each caller reads a module with an entry computation
    return derived(module, "entry_readers", entry.readers)


def _roots(module: HloModule) -> frozenset[str]:
    entry = module.entry
    assert entry is not None  # each caller reads a module with an entry computation
    return frozenset(i.name for i in entry.instructions if i.is_root)


@per_bundle
def _positions(bundle: Bundle, target: str) -> dict[str, int]:
    """Each optimized entry instruction's place in program order (the schedule XLA printed)."""
    module = bundle.hlo_module(target, optimized=True)
    entry = module.entry if module is not None else None
    return {i.name: n for n, i in enumerate(entry.instructions)} if entry is not None else {}


def _last_work(bundle: Bundle, target: str, layer: str, work: list[str]) -> str:
    """HEURISTIC: the layer's last instruction in program order that does work, one the layer owns alone
    before one it shares with another layer (a fusion across them), one holding the output's count first."""
    owned = [n for n in work if trace.layer_of(bundle, "optimized-hlo", n, target) == layer]
    positions = _positions(bundle, target)
    candidates = owned or work
    candidates = [n for n in candidates if _elements_match(bundle, target, layer, n)] or candidates
    # Without an HLO schedule (TVM's functions) the program's own order of the layer's items counts.
    order = {n: positions.get(n, number) for number, n in enumerate(candidates)}
    return max(candidates, key=order.__getitem__) if candidates else ""


def _elements_match(bundle: Bundle, target: str, layer: str, name: str) -> bool | None:
    """Whether `name`'s result (or a part of its tuple) has as many elements as the layer's output."""
    wanted, found = _output_elements(bundle, layer), instruction(bundle, "optimized-hlo", target, name)
    if wanted is None or found is None:
        return None
    parts = found.shape.tuple_shapes if found.shape.tuple_shapes else (found.shape,)
    return any(part.element_count == wanted for part in parts)


def _output_elements(bundle: Bundle, layer: str) -> int | None:
    """Elements in the layer's (first) output as Keras records it, the batch filled in."""
    record = layer_record(bundle, layer)
    if record is None or not record.output_shapes:
        return None
    batch = bundle.manifest.options.batch if bundle.has_manifest else 1
    return math.prod(batch if d is None else d for d in record.output_shapes[0])


def held_element(bundle: Bundle, target: str, layer: str, name: str) -> str:
    """The part of `name`'s result that holds the tensor, as a ShapeIndex: `{}` for an array; for a
    tuple the first element with as many elements as the layer's output, else the first holding any
    bytes. cuDNN's convolution returns (its output, a `u8[0]` scratch workspace): the workspace,
    tuple index 1, has an allocation of its own, which is not where the output lives."""
    found = instruction(bundle, "optimized-hlo", target, name)
    if found is None or not found.shape.is_tuple:
        return "{}"
    parts = list(enumerate(found.shape.tuple_shapes))
    wanted = _output_elements(bundle, layer) if layer else None
    matching = [i for i, part in parts if not part.is_tuple and part.element_count == wanted]
    holding = [i for i, part in parts if part.byte_size]
    return f"{{{(matching or holding or [0])[0]}}}"
