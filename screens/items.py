"""Rows of each level's main list, built once from a bundle.

Screens receive these small frozen records instead of walking bundle data
themselves; a row's `search_text` is what `/` filters on (plain substring
match, so filtering ~3,000 HLO instructions stays instant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:  # types only: the first frame must not wait for the data model's imports
    from explorer.bundle import Bundle
    from explorer.hlo.model import HloInstruction, HloModule, Shape

LEVEL_ORDER = ("layers", "graph", "hlo", "optimized-hlo", "kernels")


@dataclass(frozen=True)
class LevelItem:
    """One selectable thing of a level: a layer, op, instruction or kernel.

    name: the key the cross-level index knows it by.
    cells: the table row as display strings (columns: `COLUMNS[level]`).
    kind: what the explanation lookup keys on (layer class, op type, opcode, kernel kind).
    line: 1-based line in the level's code text (HLO levels), else 0.
    """

    level: str
    name: str
    cells: tuple[str, ...]
    kind: str
    line: int = 0
    search_text: str = ""


COLUMNS: dict[str, tuple[str, ...]] = {
    "layers": ("layer", "class", "output shape", "params"),
    "graph": ("op", "type", "output", "layer"),
    "hlo": ("instruction", "opcode", "shape", "op_name"),
    "optimized-hlo": ("instruction", "opcode", "shape", "op_name"),
    "kernels": ("kernel", "kind", "vector", "implements"),
}


def shape_text(shape: Shape) -> str:
    """`f32[2,26,26,8]`; tuples as `(f32[2], s32[])`: the core's printer, without the layout."""
    from explorer.hlo.text import format_shape  # noqa: PLC0415 (kept off the first frame's imports)

    return format_shape(shape, with_layout=False)


def _dims_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def _item(level: str, name: str, cells: tuple[str, ...], kind: str, line: int = 0) -> LevelItem:
    return LevelItem(level, name, cells, kind, line, " ".join((name, *cells)).lower())


def layer_items(bundle: Bundle) -> tuple[LevelItem, ...]:
    return tuple(
        _item(
            "layers",
            layer.name,
            (layer.name, layer.class_name, ", ".join(_dims_text(s) for s in layer.output_shapes), f"{layer.params:,}"),
            layer.class_name,
        )
        for layer in bundle.layers
    )


def graph_items(bundle: Bundle) -> tuple[LevelItem, ...]:
    graph = bundle.graph
    if graph is None:
        return ()
    rows = []
    for op in graph.ops:
        out = ", ".join(
            f"{o.dtype}{list(o.shape) if o.shape is not None else '[?]'}" for o in op.outputs
        )
        rows.append(_item("graph", op.name, (op.name, op.op, out, op.layer), op.op))
    return tuple(rows)


def entry_instructions(module: HloModule | None) -> tuple[HloInstruction, ...]:
    if module is None or module.entry is None:
        return ()
    return module.entry.instructions


def hlo_items(bundle: Bundle, target: str, optimized: bool) -> tuple[LevelItem, ...]:
    """Every instruction of the module (fused ones included), in text order.

    Instructions inside fusion computations are listed too so a learner can
    find the convolution inside its fusion; the cells mark which computation.
    """
    module = bundle.hlo_module(target, optimized)
    if module is None:
        return ()
    level = "optimized-hlo" if optimized else "hlo"
    rows = []
    # The program itself (ENTRY, printed last by XLA) first; the computations it calls after it.
    ordered = sorted(module.computations, key=lambda computation: not computation.is_entry)
    for computation, instruction in ((c, i) for c in ordered for i in c.instructions):
        name = instruction.name
        opcode = instruction.opcode
        if instruction.fusion_kind:
            opcode = f"{opcode} {instruction.fusion_kind}"
        if instruction.custom_call_target:
            opcode = f"{opcode} {instruction.custom_call_target}"
        where = "" if computation.is_entry else f"  ({computation.name})"
        rows.append(
            _item(
                level,
                name,
                (name + where, opcode, shape_text(instruction.shape), instruction.metadata.op_name),
                instruction.opcode,
                instruction.line,
            )
        )
    return tuple(rows)


def kernel_items(bundle: Bundle, target: str) -> tuple[LevelItem, ...]:
    rows = []
    for kernel in bundle.kernels(target):
        vector = f"{kernel.vector_width_bits}-bit" if kernel.vector_width_bits else ""
        rows.append(_item("kernels", kernel.name, (kernel.name, kernel.kind, vector, ", ".join(kernel.hlo)), kernel.kind))
    return tuple(rows)


def items_for_level(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    """The rows of `level`, built once per bundle and target (screens, palette and tours share them)."""
    per_bundle = _ITEMS.setdefault(bundle, {})
    key = (level, target if level not in ("layers", "graph") else "")
    if key not in per_bundle:
        per_bundle[key] = _build_items(bundle, level, target)
    return per_bundle[key]


# Rows of a ResNet-sized module take a noticeable moment to build; a bundle's rows never change.
_ITEMS: WeakKeyDictionary = WeakKeyDictionary()


def _build_items(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    if level == "layers":
        return layer_items(bundle)
    if level == "graph":
        return graph_items(bundle)
    if level in ("hlo", "optimized-hlo"):
        return hlo_items(bundle, target, level == "optimized-hlo")
    if level == "kernels":
        return kernel_items(bundle, target)
    return ()
