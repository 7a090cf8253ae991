"""The cross-level index: which layer owns an op, instruction or kernel, and what implements what.

Levels, top to bottom: `layers` -> `graph` (TF, CPU only) -> `hlo` -> `optimized-hlo`
-> `kernels`. For GPU and TPU targets there is no graph level: layers link
straight to HLO.

The thread between levels is real compiler data:
* an op or instruction belongs to the layer whose name scope (scopes.json) is
  the longest prefix of its name / HLO `op_name`, ending at a `/`;
* a graph op is implemented by the HLO instructions whose `op_name` is its name;
* an HLO instruction is implemented by the TOP-LEVEL optimized instructions
  carrying its `op_name`, where a fusion carries the op_names of everything
  fused inside it;
* an optimized instruction is implemented by the kernels naming it in
  `KernelRecord.hlo`.
Anything with no layer was made by the compiler (copies, bitcasts, layout
changes) and is listed by `created_by_compiler`, never dropped.

`CrossIndex` is two flat tuples (entries and links), so it round-trips through
`explorer.serial`; the lookup tables are derived lazily on first use.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

from explorer.hlo.model import HloModule
from explorer.records import GraphLevel, KernelRecord, LayerRecord

__all__ = ["IndexEntry", "IndexLink", "CrossIndex", "build_index", "LEVELS"]

LEVELS = ("layers", "graph", "hlo", "optimized-hlo", "kernels")
_TARGET_FREE = ("layers", "graph")  # one per model, not per target
# Opcodes whose called computations run as their own top-level steps; any other
# call (fusion, to_apply of reduce/sort/scatter...) nests the callee inside the caller.
_CONTROL_FLOW = frozenset({"while", "conditional", "call", "async-start"})


@dataclass(frozen=True)
class IndexEntry:
    """One item of one level.

    target: "" for `layers` and `graph`, else the target name (`cpu`, `tpu:v5e`...).
    layer: the owning layer; "" when the compiler created it.
    also_layers: further layers whose ops a fusion contains.
    nested: inside a fusion or reducer computation (not a top-level instruction).
    """

    target: str
    level: str
    name: str
    layer: str = ""
    also_layers: tuple[str, ...] = ()
    nested: bool = False
    opcode: str = ""


@dataclass(frozen=True)
class IndexLink:
    """`upper` (at upper_level) is implemented by `lower` (at lower_level)."""

    target: str
    upper_level: str
    upper: str
    lower_level: str
    lower: str


@dataclass(frozen=True)
class CrossIndex:
    entries: tuple[IndexEntry, ...] = ()
    links: tuple[IndexLink, ...] = ()

    # --- lookups, built once per instance ------------------------------------

    @cached_property
    def _entry(self) -> dict[tuple[str, str, str], IndexEntry]:
        return {(e.target, e.level, e.name): e for e in self.entries}

    @cached_property
    def _by_layer(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        table: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for e in self.entries:
            if e.nested:
                continue
            for layer in dict.fromkeys((e.layer, *e.also_layers)):
                if layer:
                    table[(e.target, e.level, layer)].append(e.name)
        return {k: tuple(v) for k, v in table.items()}

    @cached_property
    def _down(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        table: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for link in self.links:
            table[(link.target, link.upper_level, link.upper)].append(link.lower)
        return {k: tuple(v) for k, v in table.items()}

    @cached_property
    def _up(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        table: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for link in self.links:
            table[(link.target, link.lower_level, link.lower)].append(link.upper)
        return {k: tuple(v) for k, v in table.items()}

    # --- queries ----------------------------------------------------------------

    def entry(self, level: str, name: str, target: str = "cpu") -> IndexEntry | None:
        return self._entry.get((_target_key(level, target), level, name))

    def layer_of(self, level: str, name: str, target: str = "cpu") -> str:
        """The layer owning an item; "" = created by the compiler (or unknown)."""
        found = self.entry(level, name, target)
        return found.layer if found else ""

    def items_for_layer(self, layer: str, level: str, target: str = "cpu") -> tuple[str, ...]:
        """Top-level items of a level that belong (wholly or partly) to a layer, in order."""
        return self._by_layer.get((_target_key(level, target), level, layer), ())

    def down(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        """Items one level lower that implement `name`."""
        return self._down.get((target, level, name), ())

    def up(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        """Items one level higher that `name` implements."""
        return self._up.get((target, level, name), ())

    def lower_level(self, level: str, target: str = "cpu") -> str:
        """The level `down` leads to from `level` for this target ("" at the bottom)."""
        if level == "layers":
            return "graph" if target == "cpu" and self._has_graph else "hlo"
        at = LEVELS.index(level)
        return LEVELS[at + 1] if at + 1 < len(LEVELS) else ""

    def upper_level(self, level: str, target: str = "cpu") -> str:
        if level == "hlo":
            return "graph" if target == "cpu" and self._has_graph else "layers"
        at = LEVELS.index(level)
        return LEVELS[at - 1] if at > 0 else ""

    def created_by_compiler(self, level: str, target: str = "cpu") -> tuple[str, ...]:
        """Top-level items with no layer (parameters excluded: they are inputs and weights)."""
        key = _target_key(level, target)
        return tuple(
            e.name for e in self.entries
            if e.target == key and e.level == level and not e.layer and not e.nested
            and e.opcode != "parameter"
        )

    @cached_property
    def _has_graph(self) -> bool:
        return any(e.level == "graph" for e in self.entries)


def _target_key(level: str, target: str) -> str:
    return "" if level in _TARGET_FREE else target


# --- building ------------------------------------------------------------------


class _ScopeMatcher:
    """Longest name-scope prefix (ending at a `/`) -> layer."""

    def __init__(self, scopes: dict[str, str], layers: list[str]) -> None:
        self.scopes = scopes
        # Without recorded scopes, fall back to a path segment equal to a layer
        # name (`jit(fwd)/conv2d/...`): still the compiler's own op_name text.
        self.layer_names = set(layers) if not scopes else set()

    def __call__(self, name: str) -> str:
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
    """(computation -> top-level instruction enclosing it, names of top-level computations)."""
    by_name = {c.name: c for c in module.computations}
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
                else:
                    _claim(callee, inst.name, by_name, enclosing)
    return enclosing, top


def _claim(computation: str, owner: str, by_name, enclosing: dict[str, str]) -> None:
    """Mark a nested computation, and everything it calls, as inside `owner`."""
    stack = [computation]
    while stack:
        name = stack.pop()
        if name in enclosing or name not in by_name:
            continue
        enclosing[name] = owner
        for inst in by_name[name].instructions:
            stack.extend(inst.called_computations)


def _module_entries(module: HloModule, target: str, level: str, owner_of: _ScopeMatcher):
    """Entries for every instruction, plus each top-level instruction's op_name set."""
    enclosing, top = _module_structure(module)
    op_names: dict[str, dict[str, None]] = {}
    inner_layers: dict[str, dict[str, None]] = defaultdict(dict)
    raw = []
    for computation, inst in module.all_instructions():
        nested = computation.name not in top
        layer = owner_of(inst.metadata.op_name)
        raw.append((inst, layer, nested))
        holder = enclosing.get(computation.name) if nested else inst.name
        if holder is None:
            continue
        names = op_names.setdefault(holder, {})
        if inst.metadata.op_name:
            names[inst.metadata.op_name] = None
        if layer:
            inner_layers[holder][layer] = None
    entries = []
    for inst, layer, nested in raw:
        also: tuple[str, ...] = ()
        if not nested:
            found = [name for name in inner_layers.get(inst.name, {}) if name != layer]
            if not layer and found:  # e.g. a fusion whose own op_name names no layer
                layer, found = found[0], found[1:]
            also = tuple(found)
        entries.append(IndexEntry(target, level, inst.name, layer, also, nested, inst.opcode))
    return entries, op_names


def build_index(
    layers: list[LayerRecord],
    graph: GraphLevel | None,
    scopes: dict[str, dict[str, str]],
    modules: dict[tuple[str, str], HloModule],
    kernels: dict[str, list[KernelRecord]],
) -> CrossIndex:
    """Link every level of every captured target.

    modules: keyed by (target, "hlo" | "optimized-hlo").
    scopes: scopes.json, {"graph": {scope: layer}, "<target>": {scope: layer}}.
    kernels: per target, the kernel records of its optimized module.
    """
    layer_names = [layer.name for layer in layers]
    entries: list[IndexEntry] = [IndexEntry("", "layers", name, name) for name in layer_names]
    links: list[IndexLink] = []

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
        entries += hlo_entries + opt_entries
        layer_of_opt = {e.name: e.layer for e in opt_entries}

        # layers -> graph ops (CPU with a graph) or -> top-level HLO instructions
        via_graph = target == "cpu" and graph is not None
        lower_level = "graph" if via_graph else "hlo"
        lower = [e for e in entries if e.level == "graph"] if via_graph else hlo_entries
        for e in lower:
            if e.layer and not e.nested:
                links.append(IndexLink(target, "layers", e.layer, lower_level, e.name))

        # graph op -> HLO instructions with that op_name
        if via_graph and hlo is not None:
            by_op_name: dict[str, list[str]] = defaultdict(list)
            nested = {e.name for e in hlo_entries if e.nested}
            for _, inst in hlo.all_instructions():
                if inst.metadata.op_name and inst.name not in nested:
                    by_op_name[inst.metadata.op_name].append(inst.name)
            for op in graph_ops:
                links += [IndexLink(target, "graph", op.name, "hlo", n) for n in by_op_name.get(op.name, ())]

        # HLO instruction -> top-level optimized instructions sharing its op_name
        if hlo is not None and optimized is not None:
            carriers: dict[str, list[str]] = defaultdict(list)
            for holder, names in opt_names.items():
                for name in names:
                    carriers[name].append(holder)
            for _, inst in hlo.all_instructions():
                for holder in carriers.get(inst.metadata.op_name, ()) if inst.metadata.op_name else ():
                    links.append(IndexLink(target, "hlo", inst.name, "optimized-hlo", holder))

        # optimized instruction -> kernels naming it
        for kernel in kernels.get(target, []):
            owners = [layer_of_opt.get(name, "") for name in kernel.hlo]
            layer = next((o for o in owners if o), "")
            entries.append(IndexEntry(target, "kernels", kernel.name, layer, opcode=kernel.kind))
            links += [IndexLink(target, "optimized-hlo", name, "kernels", kernel.name) for name in kernel.hlo]

    return CrossIndex(tuple(entries), tuple(dict.fromkeys(links)))
