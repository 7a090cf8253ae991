"""Building the cross-level index (`explorer.model.index`) from a bundle's levels.

The thread between levels is real compiler data:
* an op or instruction belongs to the layer whose name scope (scopes.json) is
  the longest prefix of its name / HLO `op_name`, ending at a `/`; a scope of a
  layer that is not in the layer list (a sub-layer such as MultiHeadAttention's
  `query`) is passed over, so its ops belong to the listed layer holding it;
* a top-level instruction belongs to the layers of what it computes: its own
  op_name and, for a fusion, its fused instructions' op_names. Constants (and
  anything computed from constants only), reducers and fusion bodies called
  from several places never count: XLA keeps one copy of identical ones, named
  after the first layer that used it (`_module_entries`);
* a layer nested in another listed layer (a Sequential inside the model) also
  counts for its container (`CrossIndex.parents`, from `LayerRecord.path`);
* a graph op is implemented by the HLO instructions whose `op_name` is its name;
* an HLO instruction is implemented by the TOP-LEVEL optimized instructions
  carrying its `op_name`, where a fusion carries the op_names of everything
  fused inside it; the instructions sharing an op_name and its carriers are
  one `SharedLink` (an optimizer's `adam/sub`, once per variable, would
  otherwise be their product);
* an optimized instruction is implemented by the kernels naming it in
  `KernelRecord.hlo`; a loop (`while`, and the other control flow) also by the
  kernels of the computations it runs, which no kernel names it for.
Anything with no layer was made by the compiler (copies, bitcasts, layout
changes) and is listed by `created_by_compiler`, never dropped.

The entry computation's parameters are the model's inputs and weights. XLA
gives them no layer scope (TF names them `XLA_Args`, Keras-on-JAX
`trainable[i]`), so `_parameter_roles` links them in one pass: a Keras-on-JAX
`trainable[i]` is the i-th of the model's trainable variables, which Keras
orders layer by layer; TF passes the inputs first, then the variables layer by
layer, and the layers' parameter counts say which arguments are whose.

A bundle's index is a `LazyIndex`: one `CrossIndex` per target, built when a query first names it.
"""

from __future__ import annotations

import gc
import re
import threading
from collections import defaultdict
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING

from explorer.key_turns import step_aside
from explorer.levels import NEXT_DOWN, NEXT_UP, level_named, target_key
from explorer.model.built import about_to_read
from explorer.model.index import CrossIndex, IndexEntry, IndexLink, SharedLink, layer_parents
from explorer.model.records import GraphLevel, GraphOp, KernelRecord, LayerRecord

if TYPE_CHECKING:  # start-up: the HLO model loads with the first module parsed, training's with a step
    from explorer.hlo.model import HloInstruction, HloModule
    from explorer.model.training import VariablePaths

__all__ = ["LazyIndex", "build_index"]


# A Keras-on-JAX entry parameter's op_name: `trainable[3]`, `non_trainable[0]`.
_JAX_VARIABLE = re.compile(r"^(trainable|non_trainable)\[(\d+)\]$")
# Opcodes whose called computations run as their own top-level steps; any other
# call (fusion, to_apply of reduce/sort/scatter...) nests the callee inside the caller.
_CONTROL_FLOW = frozenset({"while", "conditional", "call", "async-start"})
# Levels whose entries a target's optimized module and kernels alone decide.
_OPTIMIZED_LEVELS = ("optimized-hlo", "kernels")



class LazyIndex:
    """The queries of `CrossIndex`, each target's part built the first time a query names it.

    Opening a bundle at its layer list, or on one target, reads and links only
    what that needs: NASNetMobile's four HLO modules take seconds to read, and a
    screen shows one target at a time. `module(target, optimized)` and
    `kernels(target)` load a target's data (`Bundle.hlo_module`, `Bundle.kernels`),
    `graph()` the TF graph.
    Safe to query from several threads (the UI reads a bundle on a worker).
    """

    def __init__(self, layers: list[LayerRecord], graph, scopes: dict[str, dict[str, str]],
                 targets: tuple[str, ...], module, kernels, variable_paths=None) -> None:
        """graph: a callable returning the GraphLevel (or None): read when first needed.
        variable_paths: target -> `VariablePaths` of its step (train mode or a mesh), or None."""
        self._layers, self._graph_loader, self._scopes = layers, graph, scopes
        self._variable_paths = variable_paths or (lambda _target: None)
        self.targets = tuple(targets)
        self._module, self._kernels = module, kernels
        self._parts: dict[str, CrossIndex] = {}
        self._light: dict[str, CrossIndex] = {}
        # One lock per target: a query on a target already linked never waits for another being linked.
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def _lock(self, target: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(target, threading.Lock())

    @cached_property
    def base(self) -> CrossIndex:
        """Layers and graph ops: the levels no target owns."""
        about_to_read("index")
        return build_index(self._layers, self._graph, self._scopes, {}, {})

    @cached_property
    def _graph(self) -> GraphLevel | None:
        return self._graph_loader()

    def part(self, target: str) -> CrossIndex:
        found = self._parts.get(target)
        if found is not None:  # built: no lock to wait on
            return found
        about_to_read(f"index {target}")
        with self._lock(target):
            found = self._parts.get(target)
            if found is None:
                modules = {}
                if target in self.targets:
                    for level, optimized in (("hlo", False), ("optimized-hlo", True)):
                        module = self._module(target, optimized)
                        if module is not None:
                            modules[(target, level)] = module
                kernels = {target: list(self._kernels(target))} if target in self.targets else {}
                found = self._parts[target] = build_index(self._layers, self._graph, self._scopes, modules, kernels,
                                                          self._paths(target))
            return found

    def _optimized(self, target: str) -> CrossIndex:
        """A target's optimized instructions and kernels alone: what a layer's device pane asks.

        Their entries do not depend on the HLO before optimisation or the TF graph,
        so this reads neither; once the whole part is built it answers instead.
        """
        found = self._parts.get(target) or self._light.get(target)
        if found is not None:  # built: never wait while another thread links the whole part
            return found
        about_to_read(f"index of {target}'s optimized HLO")
        with self._lock(target):
            found = self._parts.get(target) or self._light.get(target)
            if found is None:
                module = self._module(target, True) if target in self.targets else None
                modules = {(target, "optimized-hlo"): module} if module is not None else {}
                kernels = {target: list(self._kernels(target))} if target in self.targets else {}
                found = self._light[target] = build_index(self._layers, None, self._scopes, modules, kernels,
                                                          self._paths(target))
            return found

    def _paths(self, target: str) -> dict[str, VariablePaths]:
        paths = self._variable_paths(target) if target in self.targets else None
        return {target: paths} if paths is not None else {}

    def _for(self, level: str, target: str) -> CrossIndex:
        if not target_key(level, target):
            return self.base
        return self._optimized(target) if level in _OPTIMIZED_LEVELS else self.part(target)

    @property
    def entries(self) -> tuple[IndexEntry, ...]:
        """Every entry of every target (builds every part)."""
        return self.base.entries + tuple(e for t in self.targets for e in self.part(t).entries if e.target)

    @property
    def parents(self) -> tuple[tuple[str, str], ...]:
        return self.base.parents

    def entry(self, level: str, name: str, target: str = "cpu") -> IndexEntry | None:
        return self._for(level, target).entry(level, name, target)

    def layer_of(self, level: str, name: str, target: str = "cpu") -> str:
        return self._for(level, target).layer_of(level, name, target)

    def items_for_layer(self, layer: str, level: str, target: str = "cpu") -> tuple[str, ...]:
        return self._for(level, target).items_for_layer(layer, level, target)

    def inner_layers(self, layer: str) -> tuple[str, ...]:
        return self.base.inner_layers(layer)

    def down(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        return self._linking(level, NEXT_DOWN.get(level), target).down(level, name, target)

    def up(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        return self._linking(level, NEXT_UP.get(level), target).up(level, name, target)

    def _linking(self, level: str, other: str | None, target: str) -> CrossIndex:
        """The index that holds the links between `level` and `other`: a link between an optimized
        instruction and its kernel needs neither the HLO before optimisation nor the TF graph."""
        if level in _OPTIMIZED_LEVELS and other in _OPTIMIZED_LEVELS:
            return self._optimized(target)
        return self.part(target)

    def lower_level(self, level: str, target: str = "cpu") -> str:
        return self.base.lower_level(level, target)

    def upper_level(self, level: str, target: str = "cpu") -> str:
        return self.base.upper_level(level, target)

    def created_by_compiler(self, level: str, target: str = "cpu") -> tuple[str, ...]:
        return self._for(level, target).created_by_compiler(level, target)

    def top_level(self, level: str, target: str = "cpu") -> tuple[IndexEntry, ...]:
        return self._for(level, target).top_level(level, target)


# --- building ------------------------------------------------------------------


class _ScopeMatcher:
    """Longest name-scope prefix (ending at a `/`) -> layer, memoised per op_name.

    A scope recorded for a layer that is not in the layer list (an inner
    sub-layer: Bidirectional's `forward_lstm`, MultiHeadAttention's `query`, in
    bundles captured before the workers stopped recording them) is passed over,
    so its ops fall to the shorter scope of the listed layer that contains it.
    """

    def __init__(self, scopes: dict[str, str], layers: list[str]) -> None:
        listed = set(layers)
        self.scopes = {scope: layer for scope, layer in scopes.items() if not listed or layer in listed}
        # Without recorded scopes, fall back to a path segment equal to a layer
        # name (`jit(fwd)/conv2d/...`): still the compiler's own op_name text.
        self.layer_names = listed if not scopes else set()
        self._seen: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        found = self._seen.get(name)
        if found is None:
            found = self._seen[name] = self._match(name)
        return found

    def _match(self, name: str) -> str:
        if not name:
            return ""
        parts = name.split("/")
        for k in range(len(parts), 0, -1):
            layer = self.scopes.get("/".join(parts[:k]))
            if layer is not None:
                return layer
        for part in reversed(parts):
            if part in self.layer_names:
                return part
        return ""


def _module_structure(module: HloModule) -> tuple[dict[str, str], set[str]]:
    """(computation -> top-level instruction enclosing it, names of top-level computations).

    Only fusion bodies are enclosed, and only those with one caller: a reducer
    (`to_apply`) is a clone of the first one XLA saw, named after the first layer
    that used it, and a fusion body GPU XLA deduplicated is shared by several
    fusions; like a merged constant, neither says which layer a caller is in
    (the caller's own op_name does).
    """
    by_name = {c.name: c for c in module.computations}
    callers: dict[str, int] = defaultdict(int)
    for computation in module.computations:
        for inst in computation.instructions:
            for callee in inst.called_computations:
                callers[callee] += 1
    shared = {name for name, count in callers.items() if count > 1}
    top: set[str] = set()
    enclosing: dict[str, str] = {}
    entry = module.entry
    pending = [entry.name] if entry else [c.name for c in module.computations if not c.is_fusion]
    while pending:
        name = pending.pop()
        if name in top or name not in by_name:
            continue
        top.add(name)
        for inst in by_name[name].instructions:
            for callee in inst.called_computations:
                if inst.opcode in _CONTROL_FLOW:
                    pending.append(callee)
                elif inst.opcode == "fusion":
                    _claim(callee, inst.name, by_name, enclosing, shared)
    return enclosing, top


def _claim(computation: str, owner: str, by_name, enclosing: dict[str, str], shared: set[str]) -> None:
    """Mark a nested computation, and everything it alone calls, as inside `owner`."""
    stack = [computation]
    while stack:
        name = stack.pop()
        if name in enclosing or name not in by_name or name in shared:
            continue
        enclosing[name] = owner
        for inst in by_name[name].instructions:
            if inst.opcode == "fusion":
                stack.extend(inst.called_computations)


# --- what an instruction computes: constants never decide ------------------------------

# Values that depend on nothing: XLA merges identical ones across the whole module
# (CSE), and the survivor keeps the op_name of the first layer that used it.
_CONSTANT_SOURCES = frozenset({"constant", "iota"})
# Opcodes whose result is not a function of their operands alone.
_NOT_FOLDABLE = frozenset({
    "parameter", "rng", "rng-bit-generator", "rng-get-and-update-state", "custom-call", "infeed", "recv",
    "recv-done", "send", "send-done", "after-all", "partition-id", "replica-id", "while", "conditional", "call",
})


def _constant_like(module: HloModule, top: set[str]) -> set[str]:
    """Names of instructions whose value is a constant: a constant or iota, or computed only from them.

    A broadcast of a constant, or a fusion's fused copy of one, is constant-like
    too; so is a fused parameter bound to a constant-like operand of its fusion.
    One pass over the instructions (operands come before their users in HLO text).
    """
    by_name = {c.name: c for c in module.computations}
    found: set[str] = set()
    done: set[str] = set()

    def visit(computation_name: str, constant_parameters: frozenset[int]) -> None:
        computation = by_name.get(computation_name)
        if computation is None or computation_name in done:
            return
        done.add(computation_name)
        for inst in computation.instructions:
            if inst.opcode == "parameter":
                if _parameter_number(inst) in constant_parameters:
                    found.add(inst.name)
            elif inst.opcode in _CONSTANT_SOURCES or (
                    inst.operands and inst.opcode not in _NOT_FOLDABLE and all(o in found for o in inst.operands)):
                found.add(inst.name)
            if inst.opcode == "fusion":  # a fused parameter i is the fusion's operand i
                bound = frozenset(i for i, operand in enumerate(inst.operands) if operand in found)
                for callee in inst.called_computations:
                    visit(callee, bound)
            elif inst.opcode not in _CONTROL_FLOW:
                for callee in inst.called_computations:  # reducers, comparators: their parameters vary
                    visit(callee, frozenset())

    for name in top:
        visit(name, frozenset())
    return found


def _module_entries(module: HloModule, target: str, level: str, owner_of: _ScopeMatcher):
    """Entries for every instruction, plus each top-level instruction's op_name set.

    A top-level instruction belongs to the layer of what it computes: its own
    op_name, and for a fusion (or anything holding nested computations) the
    layers of the instructions fused inside it that are not constant-like. A
    constant never pulls an instruction into a layer: XLA keeps one copy of
    identical constants, named after the first layer that used it. A top-level
    constant keeps its own layer only if every instruction reading it computes
    for that layer; one shared with other layers is the compiler's.
    """
    enclosing, top = _module_structure(module)
    constants = _constant_like(module, top)
    op_names: dict[str, dict[str, None]] = {}
    inner_layers: dict[str, dict[str, None]] = defaultdict(dict)
    raw = []
    for computation, inst in module.all_instructions():
        step_aside()  # the warm-up links a deep model's 35,000 instructions: a key's frame goes first
        nested = computation.name not in top
        layer = owner_of(inst.metadata.op_name)
        raw.append((inst, layer, nested))
        if not nested or inst.name in constants:
            continue
        holder = enclosing.get(computation.name)
        if holder is None:
            continue
        if inst.metadata.op_name:
            op_names.setdefault(holder, {})[inst.metadata.op_name] = None
        if layer:
            inner_layers[holder][layer] = None
    entries = []
    decided: dict[str, tuple[str, ...]] = {}
    for inst, layer, nested in raw:
        also: tuple[str, ...] = ()
        if not nested and inst.name not in constants:
            found = list(inner_layers.get(inst.name, {}))
            own = layer
            if found and layer not in found:  # its own op_name names no layer, or a constant's
                layer = found[0]
            also = tuple(name for name in found if name != layer)
            names = op_names.setdefault(inst.name, {})
            if inst.metadata.op_name and (own == layer or not own):
                names[inst.metadata.op_name] = None
            decided[inst.name] = (layer, *also)
        entries.append([inst, layer, also, nested])
    _settle_constants(module, top, constants, entries, decided, op_names)
    return [IndexEntry(target, level, inst.name, layer, also, nested, inst.opcode)
            for inst, layer, also, nested in entries], op_names


def _settle_constants(module: HloModule, top: set[str], constants: set[str], entries: list,
                      decided: dict[str, tuple[str, ...]], op_names: dict[str, dict[str, None]]) -> None:
    """A top-level constant-like instruction keeps its op_name's layer only if every reader computes for that layer."""
    readers: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for computation in module.computations:
        if computation.name in top:
            for inst in computation.instructions:
                for operand in inst.operands if inst.name in decided else ():
                    if operand in constants:
                        readers[operand].append(decided[inst.name])
    for entry in entries:
        inst, layer, _, nested = entry
        if nested or inst.name not in constants:
            continue
        if not all(layer in reader for reader in readers.get(inst.name, ())):
            entry[1] = ""  # merged by XLA, read by other layers too: the compiler's
        names = op_names.setdefault(inst.name, {})
        if inst.metadata.op_name and entry[1]:
            names[inst.metadata.op_name] = None


# --- entry parameters: the model's inputs and weights -----------------------------


def _parameter_number(instruction: HloInstruction) -> int:
    number = dict(instruction.attributes).get("parameter_number", "")
    return int(number) if number.isdigit() else 0


def _elements(instruction: HloInstruction) -> int:
    shape = instruction.shape
    return sum(part.element_count for part in shape.tuple_shapes) if shape.is_tuple else shape.element_count


def _owners(sizes: list[int], counts: list[tuple[str, int]]) -> list[tuple[str, int, int]]:
    """(layer, position, count) per variable, in order; ("", 0, 0) where no layer fits.

    `counts` are the layers' parameter counts in the model's order. A layer whose
    variables the compiled function never received (e.g. a dropout's seed at
    inference) does not add up and is skipped. One pass: linear in the variables.
    """
    owners = [("", 0, 0)] * len(sizes)
    at = 0
    for layer, expected in counts:
        end, total = at, 0
        while end < len(sizes) and total < expected:
            total += sizes[end]
            end += 1
        if expected and total == expected:
            for position in range(at, end):
                owners[position] = (layer, position - at + 1, end - at)
            at = end
    return owners


def _owners_by_path(paths: tuple[str, ...], layer_names: list[str]) -> list[tuple[str, int, int]]:
    """(layer, position, count) per variable from its path (`dense/kernel`: dense's); ("", 0, 0)
    where the path names no layer."""
    known = set(layer_names)
    layer_of = [layer if (layer := path.rsplit("/", 2)[-2] if "/" in path else "") in known else ""
                for path in paths]
    counts: dict[str, int] = defaultdict(int)
    for layer in layer_of:
        counts[layer] += 1
    seen: dict[str, int] = defaultdict(int)
    owners = []
    for layer in layer_of:
        seen[layer] += 1
        owners.append((layer, seen[layer], counts[layer]) if layer else ("", 0, 0))
    return owners


def _parameter_roles(module: HloModule, layers: list[LayerRecord],
                     paths: VariablePaths | None = None) -> dict[str, tuple[str, str, tuple[int, ...]]]:
    """Entry parameter name -> (layer, "input" | "weight", (position, count)).

    `paths` (a step's variables) say whose a Keras-on-JAX variable is; without them the layers'
    parameter counts do, which fails once SPMD partitioning gave a split weight its per-device
    shape in the optimized module (it was credited to the next layer).

    A container's parameter counts are its inner layers' (a Sequential block's are its Conv2D's):
    only the layers that hold their own variables take arguments, so a weight is its Conv2D's.
    """
    containers = {container for _, container in layer_parents(layers)}
    layers = [layer for layer in layers if layer.name not in containers]
    entry = module.entry
    params = sorted((i for i in entry.instructions if i.opcode == "parameter"), key=_parameter_number) if entry else []
    if not params:
        return {}
    roles: dict[str, tuple[str, str, tuple[int, ...]]] = {}
    variables = {i.name: _JAX_VARIABLE.match(i.metadata.op_name) for i in params}
    if any(variables.values()):  # Keras-on-JAX: trainable[i] / non_trainable[i], inputs named apart
        inputs = [i for i in params if variables[i.name] is None]
        for kind, count_of in (("trainable", lambda layer: layer.trainable_params),
                               ("non_trainable", lambda layer: layer.non_trainable_params)):
            mine = sorted((int(match.group(2)), i) for i in params
                          if (match := variables[i.name]) is not None and match.group(1) == kind)
            weights = [i for _, i in mine]
            own_paths = getattr(paths, kind) if paths is not None else ()
            if own_paths and all(number < len(own_paths) for number, _ in mine):
                by_path = _owners_by_path(own_paths, [layer.name for layer in layers])
                owners = [by_path[number] for number, _ in mine]
            else:
                owners = _owners([_elements(i) for i in weights],
                                 [(layer.name, count_of(layer)) for layer in layers])
            # _owners gives one owner per variable: the two lists pair up one to one.
            roles.update({i.name: (layer, "weight", (p, n) if layer else ()) for i, (layer, p, n)
                          in zip(weights, owners, strict=True)})
    else:  # TensorFlow: the inputs first, then the captured variables in the order the layers read them
        sizes = [_elements(i) for i in params]
        total = sum(layer.params for layer in layers)
        suffix, first_weight = 0, None
        for at in range(len(sizes) - 1, -1, -1):
            suffix += sizes[at]
            if suffix == total:
                first_weight = at
        if first_weight is None:  # some variable not passed: fall back on the model's input layers
            first_weight = min(len(params), max(1, sum(layer.class_name == "InputLayer" for layer in layers)))
        inputs, weights = params[:first_weight], params[first_weight:]
        owners = _owners(sizes[first_weight:], [(layer.name, layer.params) for layer in layers])
        roles.update({i.name: (layer, "weight", (p, n) if layer else ())
                      for i, (layer, p, n) in zip(weights, owners, strict=True)})
    input_layers = [layer.name for layer in layers if layer.class_name == "InputLayer"]
    for position, instruction in enumerate(inputs, 1):
        layer = input_layers[position - 1] if len(input_layers) == len(inputs) else ""
        roles[instruction.name] = (layer, "input", (position, len(inputs)))
    return roles


def _with_roles(entries: list[IndexEntry], roles: dict) -> list[IndexEntry]:
    if not roles:
        return entries
    out = []
    for e in entries:
        found = roles.get(e.name) if not e.nested and e.opcode == "parameter" else None
        if found is not None:
            layer, role, slot = found
            e = IndexEntry(e.target, e.level, e.name, layer or e.layer, e.also_layers, e.nested, e.opcode, role, slot)
        out.append(e)
    return out


def _parameter_links(hlo: HloModule, optimized: HloModule, target: str) -> list[IndexLink]:
    """Entry parameter n before optimisation is entry parameter n after it."""
    after = {_parameter_number(i): i.name for i in (optimized.entry.instructions if optimized.entry else ())
             if i.opcode == "parameter"}
    return [IndexLink(target, "hlo", i.name, "optimized-hlo", after[_parameter_number(i)])
            for i in (hlo.entry.instructions if hlo.entry else ())
            if i.opcode == "parameter" and _parameter_number(i) in after]


@contextmanager
def _collector_paused():
    """No cyclic garbage collection while building: the index makes a few objects per
    instruction and none in cycles, but with a large bundle's modules in memory every
    full collection walks millions of objects (45% of BERT-base's build time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def build_index(
    layers: list[LayerRecord],
    graph: GraphLevel | None,
    scopes: dict[str, dict[str, str]],
    modules: dict[tuple[str, str], HloModule],
    kernels: dict[str, list[KernelRecord]],
    variable_paths: dict[str, VariablePaths] | None = None,
) -> CrossIndex:
    """Link every level of every captured target.

    modules: keyed by (target, "hlo" | "optimized-hlo").
    scopes: scopes.json, {"graph": {scope: layer}, "<target>": {scope: layer}}.
    kernels: per target, the kernel records of its optimized module.
    variable_paths: per target with a step layout (train mode or a mesh), its variables' paths.
    """
    with _collector_paused():
        return _link(layers, graph, scopes, modules, kernels, variable_paths or {})


def _link(layers: list[LayerRecord], graph: GraphLevel | None, scopes: dict[str, dict[str, str]],
          modules: dict[tuple[str, str], HloModule], kernels: dict[str, list[KernelRecord]],
          variable_paths: dict[str, VariablePaths]) -> CrossIndex:
    layer_names = [layer.name for layer in layers]
    entries: list[IndexEntry] = [IndexEntry("", "layers", name, name) for name in layer_names]
    links: list[IndexLink] = []
    shared: list[SharedLink] = []

    graph_owner = _ScopeMatcher(scopes.get("graph", {}), layer_names)
    graph_ops = list(graph.ops) if graph else []
    for op in graph_ops:
        entries.append(IndexEntry("", "graph", op.name, graph_owner(op.name) or op.layer, opcode=op.op))

    targets = list(dict.fromkeys([t for t, _ in modules] + list(kernels)))
    for target in targets:
        target_scopes = scopes.get(target) or (scopes.get("graph", {}) if target == "cpu" else {})
        owner_of = _ScopeMatcher(target_scopes, layer_names)
        hlo, optimized = modules.get((target, "hlo")), modules.get((target, "optimized-hlo"))
        hlo_entries, _ = _module_entries(hlo, target, "hlo", owner_of) if hlo else ([], {})
        opt_entries, opt_names = (
            _module_entries(optimized, target, "optimized-hlo", owner_of) if optimized else ([], {}))
        paths = variable_paths.get(target)
        hlo_entries = _with_roles(hlo_entries, _parameter_roles(hlo, layers, paths) if hlo else {})
        opt_entries = _with_roles(opt_entries, _parameter_roles(optimized, layers, paths) if optimized else {})
        entries += hlo_entries + opt_entries
        layer_of_opt = {e.name: e.layer for e in opt_entries}

        # layers -> graph ops (CPU with a graph) or -> top-level HLO instructions
        via_graph = target == "cpu" and graph is not None
        lower_level = "graph" if via_graph else "hlo"
        lower = [e for e in entries if level_named(e.level).lists_ops] if via_graph else hlo_entries
        for e in lower:
            if e.layer and not e.nested:
                links.append(IndexLink(target, "layers", e.layer, lower_level, e.name))

        if via_graph and hlo is not None:
            links += _graph_op_links(target, hlo, hlo_entries, graph_ops)
        if hlo is not None and optimized is not None:
            hlo_links, hlo_shared = _hlo_to_optimized_links(target, hlo, optimized, opt_names)
            links += hlo_links
            shared += hlo_shared
        kernel_entries, kernel_links = _kernel_entries_and_links(
            target, kernels.get(target, []), layer_of_opt, optimized is not None, owner_of,
            _runners(optimized) if optimized is not None else {})
        entries += kernel_entries
        links += kernel_links

    return CrossIndex(tuple(entries), tuple(dict.fromkeys(links)), layer_parents(layers), tuple(shared))


def _graph_op_links(target: str, hlo: HloModule, hlo_entries: list[IndexEntry],
                    graph_ops: list[GraphOp]) -> list[IndexLink]:
    """Graph op -> the (not nested) HLO instructions carrying its name as their op_name."""
    by_op_name: dict[str, list[str]] = defaultdict(list)
    nested = {e.name for e in hlo_entries if e.nested}
    for _, inst in hlo.all_instructions():
        if inst.metadata.op_name and inst.name not in nested:
            by_op_name[inst.metadata.op_name].append(inst.name)
    return [IndexLink(target, "graph", op.name, "hlo", n) for op in graph_ops for n in by_op_name.get(op.name, ())]


def _hlo_to_optimized_links(target: str, hlo: HloModule, optimized: HloModule,
                            opt_names: dict[str, dict[str, None]]) -> tuple[list[IndexLink], list[SharedLink]]:
    """HLO instruction -> the top-level optimized instructions sharing its op_name (parameters by number)."""
    carriers: dict[str, list[str]] = defaultdict(list)
    for holder, names in opt_names.items():
        for name in names:
            carriers[name].append(holder)
    # Entry parameters link by number. Their op_names say nothing (TF names every one
    # `XLA_Args`: linking by it made parameters x instructions links, 1.68 M on NASNetMobile).
    arguments = {i.metadata.op_name for i in (hlo.entry.instructions if hlo.entry else ())
                 if i.opcode == "parameter"}
    links = _parameter_links(hlo, optimized, target)
    sharing: dict[str, list[str]] = defaultdict(list)  # op_name -> the HLO instructions carrying it
    for _, inst in hlo.all_instructions():
        op_name = inst.metadata.op_name
        if op_name and op_name not in arguments and op_name in carriers:
            sharing[op_name].append(inst.name)
    shared = [SharedLink(target, "hlo", tuple(names), "optimized-hlo", tuple(carriers[op_name]))
              for op_name, names in sharing.items()]
    return links, shared


def _kernel_entries_and_links(target: str, kernels: list[KernelRecord], layer_of_opt: dict[str, str],
                              has_optimized: bool, owner_of: _ScopeMatcher, runners: dict[str, tuple[str, ...]],
                              ) -> tuple[list[IndexEntry], list[IndexLink]]:
    """Each kernel's entry (owned by the layer of the first instruction it names) and its links to them,
    then to the loops running them (`_runners`: a recurrent layer's `while` is implemented by its
    body's kernels, though no kernel names the `while` itself)."""
    entries: list[IndexEntry] = []
    links: list[IndexLink] = []
    for kernel in kernels:
        # Without HLO (TVM's kernels name ONNX nodes, whose names carry the TF scopes) the
        # target's own scope map says whose they are.
        owners = [layer_of_opt.get(name, "") or ("" if has_optimized else owner_of(name)) for name in kernel.hlo]
        layer = next((o for o in owners if o), "")
        entries.append(IndexEntry(target, "kernels", kernel.name, layer, opcode=kernel.kind))
        links += [IndexLink(target, "optimized-hlo", name, "kernels", kernel.name) for name in kernel.hlo]
        links += [IndexLink(target, "optimized-hlo", runner, "kernels", kernel.name)
                  for name in kernel.hlo for runner in runners.get(name, ())]
    return entries, links


def _runners(module: HloModule) -> dict[str, tuple[str, ...]]:
    """Instruction -> the control-flow instructions running the computation it is in (a `while`
    running its body and condition, a `conditional` its branches, `call`, `async-start`), outermost
    first; instructions of the entry (and of fusion bodies, which their fusion's kernel names) have none."""
    by_name = {c.name: c for c in module.computations}
    running: dict[str, tuple[str, ...]] = {}  # computation -> its runners
    pending = [(module.entry.name, ())] if module.entry is not None else []
    while pending:
        name, runners = pending.pop()
        if name in running or name not in by_name:
            continue
        running[name] = runners
        for inst in by_name[name].instructions:
            if inst.opcode in _CONTROL_FLOW:
                pending += [(callee, (*runners, inst.name)) for callee in inst.called_computations]
    return {inst.name: running[c.name] for c in module.computations if running.get(c.name)
            for inst in c.instructions}
