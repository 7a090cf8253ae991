"""`--select NAME`: the one rule of every command that takes it (`inspect`, `screenshot`, `graph`).

NAME is an item of the level (a layer, op, instruction, kernel; an allocation's index on the memory
level), else a layer, meaning that layer's items at the level: `--select conv2d` at `optimized-hlo`
is conv2d's convolution and fusions there. A command that shows one selected item (a screenshot,
`inspect`) takes the one the learner reaches from the layer with the level's number key (Enter,
step by step down: the item doing the layer's work); `graph` draws around all of them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.levels import LIST_LEVELS, target_key
from explorer.model.bundle import Bundle
from explorer.views import rows as rows_view
from explorer.views import trace

_SHOWN = 8  # names an unknown NAME's error lists


@dataclass(frozen=True)
class Selected:
    """What `--select NAME` means at a level: `name`, the item a one-item view selects; `items`,
    every item meant (the layer's there, in the level's order); `layer`, the layer NAME named ("" for an item)."""

    name: str
    items: tuple[str, ...]
    layer: str = ""


def selectable(bundle: Bundle, level: str, target: str) -> tuple[str, ...]:
    """The names a one-item view can select at `level`: its rows, or the memory level's allocation indices."""
    if level in LIST_LEVELS:
        return tuple(item.name for item in rows_view.rows(bundle, level, target))
    memory = bundle.memory(target)
    return tuple(str(allocation.index) for allocation in memory.allocations) if memory is not None else ()


def resolve_select(bundle: Bundle, level: str, target: str, name: str,
                   items: Collection[str] | None = None) -> Selected:
    """NAME at `level` on `target` by the rule above; `items` are the names the command can show there
    (default `selectable`: `graph` passes its graph's nodes). One TensorwegError line when NAME is
    neither, listing some of the level's items."""
    items = selectable(bundle, level, target) if items is None else items
    if name in items:
        return Selected(name, (name,))
    if level in LIST_LEVELS and any(layer.name == name for layer in bundle.layers):
        found = tuple(item for item in trace.items_for_layer(bundle, name, level, target) if item in items)
        if found:
            reached = trace.jump(bundle, LIST_LEVELS[0], name, level, target)
            return Selected(reached if reached in found else found[0], found, name)
    shown = list(items)[:_SHOWN]
    listed = ", ".join(shown) + (" ..." if len(items) > _SHOWN else "")
    where = level + (f" for {target}" if target_key(level, target) else "")
    raise TensorwegError(f"--select {name}: no item or layer of that name at {where} (items: {listed or 'none'})")
