"""Which course texts explain a selection, most specific first, and the figures they quote."""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import TYPE_CHECKING

from explorer.levels import LIST_LEVELS, is_hlo

if TYPE_CHECKING:
    from explorer.hlo.model import HloInstruction
    from explorer.model.bundle import Bundle
    from explorer.model.records import KernelRecord
    from explorer.texts.lookup import Explanation

from explorer.views.panes import allocation_by_index, allocation_of, step_layout, step_members
from explorer.views.tables import TVM_LEVELS, instruction, is_tvm_target, kernel, layer_record, op_table


def _step_keys(bundle: Bundle, target: str, found: HloInstruction) -> tuple[str, ...]:
    """Course keys of a training step's or a mesh's buffer: its class, donation, the division of work."""
    from explorer.model.sharding import COLLECTIVES
    from explorer.model.training import ROLE_KEYS

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


def explanation_keys(bundle: Bundle | None, level: str, target: str, name: str) -> tuple[tuple[str, ...], ...]:
    """The course keys for the selection: one group per text, the item's own kind first.

    Each group is most specific first (a TPU kOutput fusion: `fusion:kOutput`,
    then `hlo:fusion`). After the item's group come what its data shows: a
    tiled layout, a memory space other than device memory, the allocation
    holding it. The explanation pane, the CLI and the course coverage test all
    use this function.
    """
    from explorer.texts import keys  # noqa: PLC0415

    if bundle is None:
        return ()
    groups: list[tuple[str, ...]] = []
    if level == "layers" and (layer := layer_record(bundle, name)) is not None:
        groups.append(tuple(keys.layer_keys(layer)))
    elif level == "graph" and (op := op_table(bundle).get(name)) is not None:
        groups.append(tuple(keys.graph_op_keys(op)))
    elif is_tvm_target(target) and level in (*TVM_LEVELS, "memory"):
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
    elif level == "memory" and (allocation := allocation_by_index(bundle, target, name)) is not None:
        groups.append(tuple(keys.allocation_keys(allocation, target)))
    return tuple(dict.fromkeys(groups))


def sass_keys(found: KernelRecord) -> tuple[str, ...]:
    """A GPU kernel compiled to SASS: its registers and occupancy, its spills where it has any."""
    if found.ptxas is None:
        return ()
    spills = found.ptxas.spill_store_bytes or found.ptxas.spill_load_bytes or found.ptxas.stack_frame_bytes
    return ("sass:registers", "sass:occupancy") + (("sass:spills",) if spills else ())


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
    elif level == "memory" and (allocation := allocation_by_index(bundle, target, name) if bundle else None):
        found["bytes"] = allocation.size
    return tuple(sorted(found.items()))


@lru_cache(maxsize=1024)
def _explain_groups(level: str, groups: tuple[tuple[str, ...], ...], target: str, lang: str,
                    figures: tuple[tuple[str, object], ...]) -> tuple[Explanation, ...]:
    from explorer.texts.lookup import explain  # noqa: PLC0415

    found: dict[str, Explanation] = {}
    for group in groups:
        text = explain(level if level in LIST_LEVELS else "memory", list(group), target, lang, dict(figures))
        found.setdefault(text.key, text)
    return tuple(found.values())
