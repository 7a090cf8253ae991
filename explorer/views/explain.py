"""Which course texts explain a selection, most specific first, and the figures they quote."""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import TYPE_CHECKING

from explorer.levels import LIST_LEVELS, TARGET_LEVELS, level_named

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.texts.lookup import Explanation

from explorer.hlo import layout_math
from explorer.model import occupancy
from explorer.targets import TARGETS
from explorer.texts import keys
from explorer.texts.lookup import explain
from explorer.views.buffers import allocation_by_index
from explorer.views.programs import program_for
from explorer.views.tables import instruction, kernel, layer_record, op_table


def explanation_keys(bundle: Bundle | None, level: str, target: str, name: str) -> tuple[tuple[str, ...], ...]:
    """The course keys for the selection: one group per text, the item's own kind first.

    Each group is most specific first (a TPU kOutput fusion: `fusion:kOutput`,
    then `hlo:fusion`). After the item's group come what its data shows: a
    tiled layout, a memory space other than device memory, the allocation
    holding it. The explanation pane, the CLI and the course coverage test all
    use this function.
    """
    if bundle is None:
        return ()
    groups: list[tuple[str, ...]] = []
    this = level_named(level)
    if this.lists_layers and (layer := layer_record(bundle, name)) is not None:
        groups.append(tuple(keys.layer_keys(layer)))
    elif this.lists_ops and (op := op_table(bundle).get(name)) is not None:
        groups.append(tuple(keys.graph_op_keys(op)))
    elif level in TARGET_LEVELS:  # an instruction, a Relax binding, a kernel, an allocation: the program's keys
        groups += program_for(bundle, target).explanation_keys(level, name)
    return tuple(dict.fromkeys(groups))


def explanations(bundle: Bundle | None, level: str, target: str, name: str, lang: str) -> tuple[Explanation, ...]:
    """The texts for `explanation_keys`, one per group (duplicates dropped), never empty:
    an item with no key gets its level's text. The item's own figures fill the texts'
    placeholders (`{bytes}`, `{padding_bytes}`, `{vector_width_bits}`, `{grid}`, `{block}`)."""
    groups = explanation_keys(bundle, level, target, name) or ((),)
    return _explain_groups(level, groups, target, lang, figures(bundle, level, target, name))


def figures(bundle: Bundle | None, level: str, target: str, name: str) -> tuple[tuple[str, object], ...]:
    """The item's real figures for the course texts' placeholders (absent ones drop their sentence)."""
    found: dict[str, object] = {}
    this = level_named(level)
    if this.is_hlo and (inst := instruction(bundle, level, target, name)) is not None:
        shape = inst.shape
        found["bytes"] = shape.byte_size
        if not shape.is_tuple and shape.layout is not None and shape.layout.tiles:
            with contextlib.suppress(ValueError):  # dynamic dims: no static padding
                found["padding_bytes"] = layout_math.padded_byte_size(shape) - layout_math.unpadded_byte_size(shape)
    elif this.lists_kernels and (record := kernel(bundle, target, name)) is not None:
        if record.vector_width_bits:
            found["vector_width_bits"] = record.vector_width_bits
        if record.launch is not None:
            found.update(grid=tuple(record.launch.grid), block=tuple(record.launch.block))
        if record.ptxas is not None:
            found["registers"] = record.ptxas.registers

            spec = TARGETS.get(target)
            if (estimate := occupancy.estimate(record, spec.sm_limits if spec else None)) is not None:
                found.update(warps=estimate.warps, max_warps=estimate.max_warps)
    elif this.maps_buffers and (allocation := allocation_by_index(bundle, target, name) if bundle else None):
        found["bytes"] = allocation.size
    return tuple(sorted(found.items()))


@lru_cache(maxsize=1024)
def _explain_groups(level: str, groups: tuple[tuple[str, ...], ...], target: str, lang: str,
                    figures: tuple[tuple[str, object], ...]) -> tuple[Explanation, ...]:
    found: dict[str, Explanation] = {}
    for group in groups:
        text = explain(level if level in LIST_LEVELS else "memory", list(group), target, lang, dict(figures))
        found.setdefault(text.key, text)
    return tuple(found.values())
