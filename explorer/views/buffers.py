"""A target's buffers as the panes and the explanations read them: the allocation holding each value
and its live range (XLA's buffer assignment, TVM's storage plan), and a training step's or a mesh's
layout with the class of each buffer.

Below the compilers' programs (`explorer.views.programs`), which name an item's allocation in its
explanation keys, and the panes, which show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.labels import label

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.model.records import Allocation, AssignedValue, LiveRange

from explorer.model.serial import load_json
from explorer.views.format import format_exact_bytes, format_int
from explorer.views.tables import per_bundle


@dataclass(frozen=True)
class Buffers:
    """One memory level by value name: the allocations holding it and its live range."""

    lines: dict[str, tuple[str, ...]]
    allocations: dict[str, Allocation]


def buffer_table(bundle: Bundle, target: str, lang: str = "en") -> Buffers | None:
    memory = bundle.memory(target)
    return _buffer_lines(bundle, target, lang) if memory is not None else None


@per_bundle
def _buffer_lines(bundle: Bundle, target: str, lang: str) -> Buffers:
    # Keyed by bundle and target: hashing the (frozen) MemoryLevel itself would walk all of it.
    memory = bundle.memory(target)
    assert memory is not None  # buffer_table asks only for a captured memory level
    lines: dict[str, list[str]] = {}
    first: dict[str, Allocation] = {}
    for allocation in memory.allocations:
        for value in allocation.values:
            first.setdefault(value.instruction, allocation)
            lines.setdefault(value.instruction, []).append(_value_line(allocation, value, lang))
    seen: set[str] = set()
    for live in memory.live_ranges:
        name = live.value.split("{", 1)[0]
        if name not in seen:  # the first range of a value (its first tuple part)
            seen.add(name)
            lines.setdefault(name, []).append(_live_line(live, lang))
    return Buffers({name: tuple(found) for name, found in lines.items()}, first)


def value_buffer(bundle: Bundle, target: str, name: str, shape_index: str,
                 lang: str = "en") -> tuple[Allocation | None, AssignedValue | None, LiveRange | None, tuple[str, ...]]:
    """One part of `name`'s result (`shape_index`): its allocation, value and live range, and the
    lines that say so (the passport follows the tuple element that holds the tensor)."""
    from explorer.model.buffer_assignment import assigned_value, live_range_of  # noqa: PLC0415 (kept off the first frame)

    memory = bundle.memory(target)
    if memory is None:
        return None, None, None, (label("text.memory_not_captured", lang),)
    found = assigned_value(memory, name, shape_index)
    live = live_range_of(memory, name, shape_index)
    lines = (_value_line(*found, lang),) if found is not None else (label("text.no_allocation", lang),)
    lines += (_live_line(live, lang),) if live is not None else ()
    allocation, value = found if found is not None else (None, None)
    return allocation, value, live, lines


def _value_line(allocation: Allocation, value: AssignedValue, lang: str) -> str:
    def word(key: str) -> str:
        return label(f"field.{key}", lang)

    return (f"{word('buffer_allocation')} {allocation.index} ({allocation.kind}, "
            f"{format_exact_bytes(allocation.size, lang)}) {word('offset')} {format_int(value.offset, lang)} "
            f"{word('size')} {format_exact_bytes(value.size, lang)} {value.shape_index}")


def _live_line(live: LiveRange, lang: str) -> str:
    return f"{label('field.live', lang)}   " + label("field.live_positions", lang).format(start=live.start,
                                                                                         end=live.end)


def allocation_of(bundle: Bundle | None, target: str, name: str) -> Allocation | None:
    table = buffer_table(bundle, target) if bundle is not None else None
    return table.allocations.get(name) if table is not None else None


def allocation_by_index(bundle: Bundle, target: str, index: str) -> Allocation | None:
    """A memory-level item: the allocation numbered `index`."""
    memory = bundle.memory(target)
    return next((a for a in memory.allocations if str(a.index) == index), None) if memory is not None else None


@per_bundle
def step_layout(bundle: Bundle, target: str):
    """The target's `StepLayout` (train mode or a mesh), else None: an inference call on one chip."""
    from explorer.model.training import STEP_FILE, StepLayout  # noqa: PLC0415 (kept off the first frame)

    path = bundle.target_dir(target) / STEP_FILE
    return load_json(StepLayout, path, f"targets/{target}/{STEP_FILE}") if path.is_file() else None


@per_bundle
def step_buffers(bundle: Bundle, target: str):
    """The step's buffers by class (`explorer.model.training.step_memory`), None without a step layout."""
    from explorer.model.training import step_memory  # noqa: PLC0415 (kept off the first frame)

    layout = step_layout(bundle, target)
    if layout is None:
        return None
    memory = bundle.memory(target)
    return step_memory(layout, bundle.hlo_text(target, optimized=True), memory.analysis if memory else ())


@per_bundle
def step_members(bundle: Bundle, target: str) -> dict[str, str]:
    found = step_buffers(bundle, target)
    return dict(found.members) if found is not None else {}
