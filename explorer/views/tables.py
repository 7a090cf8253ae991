"""The per-bundle tables every view reads: name lookups and the cross-level index, built once.

A bundle's data never changes, so what is derived from it is kept per bundle (`per_bundle`) for the
last few bundles (the open one, a staging one during a capture, a few more): a key press costs
dictionary lookups, not a walk over the module. The heavier core modules are imported where first
needed, so the UI's first frame does not wait for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.levels import is_hlo, level_named
from explorer.model.built import about_to_build

if TYPE_CHECKING:
    from explorer.hlo.model import HloInstruction
    from explorer.model.bundle import Bundle
    from explorer.model.index import IndexEntry, IndexQueries
    from explorer.model.records import GraphOp, KernelRecord, LayerRecord



# Bundles whose tables are kept: the open one, a staging one during a capture, and a few more.
# Each holds its parsed modules, so the bound is on bundles, not on entries.
_BUNDLES = 4


@lru_cache(maxsize=_BUNDLES)
def _tables(bundle: Bundle | None) -> dict:
    """One bundle's cached tables (rows, name lookups, buffer maps); a bundle's data never changes."""
    return {}


def per_bundle(build):
    """Cache `build(bundle, *key)` in the bundle's own table, so at most `_BUNDLES` bundles stay alive."""
    @wraps(build)
    def cached(bundle, *key):
        table = _tables(bundle)
        slot = (build.__name__, *key)
        if slot not in table:
            about_to_build(build.__name__)
            table[slot] = build(bundle, *key)
        return table[slot]

    return cached


@per_bundle
def cross_index(bundle: Bundle | None) -> IndexQueries:
    """The bundle's cross-level index; an empty one while nothing is captured."""
    from explorer.model.index import CrossIndex  # noqa: PLC0415 (the data model loads with the data)

    if bundle is None:
        return CrossIndex()
    try:
        return bundle.index or CrossIndex()
    except TensorwegError:  # a staging directory without a manifest yet: nothing to link
        return CrossIndex()


@per_bundle
def instruction_table(bundle: Bundle, target: str, optimized: bool) -> dict[str, HloInstruction]:
    module = bundle.hlo_module(target, optimized)
    return {i.name: i for _, i in module.all_instructions()} if module is not None else {}


@per_bundle
def _layers(bundle: Bundle) -> dict[str, LayerRecord]:
    return {layer.name: layer for layer in bundle.layers}


@per_bundle
def op_table(bundle: Bundle) -> dict[str, GraphOp]:
    return {op.name: op for op in bundle.graph.ops} if bundle.graph is not None else {}


@per_bundle
def _kernels(bundle: Bundle, target: str) -> dict[str, KernelRecord]:
    return {kernel.name: kernel for kernel in bundle.kernels(target)}


def instruction(bundle: Bundle | None, level: str, target: str, name: str) -> HloInstruction | None:
    if bundle is None or not is_hlo(level):
        return None
    return instruction_table(bundle, target, level_named(level).optimized).get(name)


def kernel(bundle: Bundle | None, target: str, name: str) -> KernelRecord | None:
    return _kernels(bundle, target).get(name) if bundle is not None else None


def layer_record(bundle: Bundle | None, name: str) -> LayerRecord | None:
    return _layers(bundle).get(name) if bundle is not None else None


@per_bundle
def computation_table(bundle: Bundle, target: str, optimized: bool) -> dict:
    module = bundle.hlo_module(target, optimized)
    return {c.name: c for c in module.computations} if module is not None else {}


@per_bundle
def parameter_entries(bundle: Bundle, level: str, target: str) -> tuple[IndexEntry, ...]:
    index = cross_index(bundle)
    module = bundle.hlo_module(target, level_named(level).optimized) if is_hlo(level) else None
    if module is None or module.entry is None:
        return ()
    return tuple(e for i in module.entry.instructions if i.opcode == "parameter"
                 and (e := index.entry(level, i.name, target)) is not None and e.role)


@dataclass(frozen=True)
class Selection:
    """What the side panes are asked to show: one item of one level on one target."""

    bundle: Bundle
    level: str
    target: str
    name: str
    lang: str = "en"
