"""The cross-level index: which layer owns an op, instruction or kernel, and what implements what.

Levels, top to bottom: `layers` -> `graph` (TF, CPU only) -> `hlo` -> `optimized-hlo`
-> `kernels`. For GPU and TPU targets there is no graph level: layers link
straight to HLO.

`CrossIndex` is flat tuples (entries, links, parents, shared), so it round-trips through
`explorer.model.serial`; the lookup tables are derived lazily on first use. Building
(`explorer.model.index_build`) is linear in instructions + links (the op_name matcher is memoised; parameters
link by number). A bundle's index is a `LazyIndex`: one `CrossIndex` per
target, built when a query first names that target.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from explorer.levels import Level, level_named, target_key
from explorer.model.records import LayerRecord

__all__ = ["IndexEntry", "IndexLink", "SharedLink", "CrossIndex", "IndexQueries", "layer_parents"]


@dataclass(frozen=True)
class IndexEntry:
    """One item of one level.

    target: "" for `layers` and `graph`, else the target name (`cpu`, `tpu:v5e`...).
    layer: the owning layer; "" when the compiler created it.
    also_layers: further layers whose ops a fusion contains.
    nested: inside a fusion or reducer computation (not a top-level instruction).
    role: for an entry parameter, "input" (the model's input) or "weight" (a
        variable of `layer`); "" for everything else.
    slot: with a role, (position, count): input 1 of 1, weight 2 of 2 of the layer.
    """

    target: str
    level: str
    name: str
    layer: str = ""
    also_layers: tuple[str, ...] = ()
    nested: bool = False
    opcode: str = ""
    role: str = ""
    slot: tuple[int, ...] = ()


@dataclass(frozen=True)
class IndexLink:
    """`upper` (at upper_level) is implemented by `lower` (at lower_level)."""

    target: str
    upper_level: str
    upper: str
    lower_level: str
    lower: str


class IndexQueries(Protocol):
    """What the views ask of an index: a `CrossIndex`, or a bundle's `LazyIndex` (one per target)."""

    @property
    def entries(self) -> tuple[IndexEntry, ...]: ...
    @property
    def parents(self) -> tuple[tuple[str, str], ...]: ...
    def entry(self, level: str, name: str, target: str = "cpu") -> IndexEntry | None: ...
    def layer_of(self, level: str, name: str, target: str = "cpu") -> str: ...
    def items_for_layer(self, layer: str, level: str, target: str = "cpu") -> tuple[str, ...]: ...
    def inner_layers(self, layer: str) -> tuple[str, ...]: ...
    def down(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]: ...
    def up(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]: ...
    def lower_level(self, level: str, target: str = "cpu") -> str: ...
    def upper_level(self, level: str, target: str = "cpu") -> str: ...
    def created_by_compiler(self, level: str, target: str = "cpu") -> tuple[str, ...]: ...
    def top_level(self, level: str, target: str = "cpu") -> tuple[IndexEntry, ...]: ...


@dataclass(frozen=True)
class SharedLink:
    """Each of `uppers` is implemented by each of `lowers`: one record for what would be their product.

    XLA's metadata names an operation, not which copy of it an instruction is: an optimizer runs the
    same `adam/sub` once per variable (a ResNet50 training step on v5e: 1,070 such instructions before
    optimisation, 977 fusions carrying the name after it). Pair by pair that was a million links and
    2.4 s to build; as one group it is their sum. `uppers` are in module order.
    """

    target: str
    upper_level: str
    uppers: tuple[str, ...]
    lower_level: str
    lowers: tuple[str, ...]


@dataclass(frozen=True)
class CrossIndex:
    """entries, links: every item and every link of every level and target.
    parents: (layer, the layer that contains it) for layers nested in another
        listed layer (a Sequential stem inside a model), from `LayerRecord.path`;
        a container's items are its own and its inner layers'.
    """

    entries: tuple[IndexEntry, ...] = ()
    links: tuple[IndexLink, ...] = ()
    parents: tuple[tuple[str, str], ...] = ()
    shared: tuple[SharedLink, ...] = ()

    # --- lookups, built once per instance ------------------------------------

    @cached_property
    def _entry(self) -> dict[tuple[str, str, str], IndexEntry]:
        return {(e.target, e.level, e.name): e for e in self.entries}

    @cached_property
    def _ancestors(self) -> dict[str, tuple[str, ...]]:
        """layer -> its containers, innermost first."""
        parent = dict(self.parents)
        found: dict[str, tuple[str, ...]] = {}
        for layer in parent:
            chain, at = [], parent.get(layer)
            while at and at not in chain and at != layer:
                chain.append(at)
                at = parent.get(at)
            found[layer] = tuple(chain)
        return found

    @cached_property
    def _by_layer(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        table: dict[tuple[str, str, str], dict[str, None]] = defaultdict(dict)
        ancestors = self._ancestors
        for e in self.entries:
            if e.nested:
                continue
            for layer in (e.layer, *e.also_layers):
                for owner in (layer, *ancestors.get(layer, ())) if layer else ():
                    table[(e.target, e.level, owner)][e.name] = None
        return {k: tuple(v) for k, v in table.items()}

    def inner_layers(self, layer: str) -> tuple[str, ...]:
        """The listed layers directly inside `layer` (a nested model), in model order."""
        return tuple(child for child, parent in self.parents if parent == layer)

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

    @cached_property
    def _group_tables(self) -> tuple[dict[tuple[str, str, str], list[SharedLink]], ...]:
        """(down, up): for each key, the groups it is an upper of, and those it is a lower of."""
        down: dict[tuple[str, str, str], list[SharedLink]] = defaultdict(list)
        up: dict[tuple[str, str, str], list[SharedLink]] = defaultdict(list)
        for group in self.shared:
            for upper in group.uppers:
                down[(group.target, group.upper_level, upper)].append(group)
            for lower in group.lowers:
                up[(group.target, group.lower_level, lower)].append(group)
        return down, up

    @cached_property
    def _position(self) -> dict[tuple[str, str, str], int]:
        """Where each entry stands in its module: several groups' uppers merge in that order."""
        return {(e.target, e.level, e.name): at for at, e in enumerate(self.entries)}

    @cached_property
    def _grouped_answers(self) -> dict[tuple[bool, tuple[str, str, str]], tuple[str, ...]]:
        return {}

    def _linked(self, key: tuple[str, str, str], upwards: bool) -> tuple[str, ...]:
        """What `key` links to, one way: its own links, then the members of its groups, each
        answer computed when first asked (materialised for every key, the products would be back)."""
        own = (self._up if upwards else self._down).get(key, ())
        groups = self._group_tables[upwards].get(key) if self.shared else None  # [True]: up
        if not groups:
            return own
        answers = self._grouped_answers
        found = answers.get((upwards, key))
        if found is None:
            members = [name for group in groups for name in (group.uppers if upwards else group.lowers)]
            if upwards and len(groups) > 1:  # each group is in module order; together they must be too
                level = groups[0].upper_level
                where, position = target_key(level, key[0]), self._position
                members.sort(key=lambda name: position.get((where, level, name), 0))
            found = answers[(upwards, key)] = tuple(dict.fromkeys((*own, *members)))
        return found

    # --- queries ----------------------------------------------------------------

    def entry(self, level: str, name: str, target: str = "cpu") -> IndexEntry | None:
        return self._entry.get((target_key(level, target), level, name))

    def layer_of(self, level: str, name: str, target: str = "cpu") -> str:
        """The layer owning an item; "" = created by the compiler (or unknown)."""
        found = self.entry(level, name, target)
        return found.layer if found else ""

    def items_for_layer(self, layer: str, level: str, target: str = "cpu") -> tuple[str, ...]:
        """Top-level items of a level that belong (wholly or partly) to a layer, in order."""
        return self._by_layer.get((target_key(level, target), level, layer), ())

    def down(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        """Items one level lower that implement `name`."""
        return self._linked((target, level, name), upwards=False)

    def up(self, level: str, name: str, target: str = "cpu") -> tuple[str, ...]:
        """Items one level higher that `name` implements."""
        return self._linked((target, level, name), upwards=True)

    def lower_level(self, level: str, target: str = "cpu") -> str:
        """The level `down` leads to from `level` for this target ("" at the bottom)."""
        return self._past_a_missing_graph(level_named(level).down, target, lambda at: at.down)

    def upper_level(self, level: str, target: str = "cpu") -> str:
        return self._past_a_missing_graph(level_named(level).up, target, lambda at: at.up)

    def _past_a_missing_graph(self, step: Level | None, target: str, further) -> str:
        """`step`'s name, or the one `further` past it where it is the TensorFlow graph and this
        target has none (Keras-on-JAX targets, a model traced without one): a layer links to its HLO."""
        if step is not None and step.cpu_only and not (target == "cpu" and self._has_graph):
            step = further(step)
        return step.name if step is not None else ""

    def created_by_compiler(self, level: str, target: str = "cpu") -> tuple[str, ...]:
        """Top-level items with no layer (parameters excluded: they are inputs and weights)."""
        key = target_key(level, target)
        return tuple(
            e.name for e in self.entries
            if e.target == key and e.level == level and not e.layer and not e.nested
            and e.opcode != "parameter"
        )

    def top_level(self, level: str, target: str = "cpu") -> tuple[IndexEntry, ...]:
        """The entries of a level's top-level items (not inside a fusion or reducer), in order."""
        key = target_key(level, target)
        return tuple(e for e in self.entries if e.target == key and e.level == level and not e.nested)

    @cached_property
    def _has_graph(self) -> bool:
        return any(level_named(e.level).lists_ops for e in self.entries)


def layer_parents(layers: list[LayerRecord] | tuple[LayerRecord, ...]) -> tuple[tuple[str, str], ...]:
    """(layer, container) from the layers' paths: `outer/stem/stem_conv` is inside `stem`."""
    by_path = {layer.path: layer.name for layer in layers}
    found = []
    for layer in layers:
        container = by_path.get(layer.path.rpartition("/")[0]) if "/" in layer.path else None
        if container and container != layer.name:
            found.append((layer.name, container))
    return tuple(found)
