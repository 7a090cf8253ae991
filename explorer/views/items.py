"""The rows of a level's list as data (`LevelItem`, `RowGroup`, the columns) and the cell words every
compiler's program shares: a shape as text, a parameter's role, the kernel records as rows.

Below `explorer.views.programs` (each compiler's program builds its rows from these) and
`explorer.views.rows` (which lists every level).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from explorer.labels import label

if TYPE_CHECKING:
    from explorer.hlo.model import Shape
    from explorer.model.bundle import Bundle
    from explorer.model.index import IndexEntry

from explorer.views.tables import per_bundle

CREATED_BY_XLA = label("state.created_by_xla", "en")  # the CLI's word; screens use the label


@dataclass(frozen=True)
class LevelItem:
    """One selectable thing of a level: a layer, op, instruction or kernel.

    name: the key the cross-level index knows it by.
    cells: the table row as display strings (columns: `COLUMNS[level]`).
    kind: what the item is (layer class, op type, opcode, kernel kind).
    line: 1-based line in the level's code text (HLO levels), else 0.
    search_text: what the list's `/` filter matches (a plain lowercase substring).
    group: the key of the foldable `RowGroup` the item is listed under ("" for none).
    depth: how many containers hold it (a layer inside a nested model or Sequential block: 1, ...).
    """

    level: str
    name: str
    cells: tuple[str, ...]
    kind: str
    line: int = 0
    search_text: str = ""
    group: str = ""
    depth: int = 0


@dataclass(frozen=True)
class RowGroup:
    """A foldable run of rows: the entry's parameters, its constants, or a called computation.

    key: what `LevelItem.group` names it by. cells: its header row (columns: `COLUMNS[level]`).
    folded: folded when the list opens (parameters and constants, so the list opens on the
    program's work; fused computations, whose work is their fusion's row). line: 1-based line
    of its text (a computation's header), else 0. size: its rows.
    head: the item that is the group's header row itself ("" for a header of its own): a container
    layer (a nested model, a Sequential block) heads its inner layers, and stays selectable.
    within: the key of the group this one is inside ("" at the top): folding it hides this one too.
    """

    key: str
    cells: tuple[str, ...]
    folded: bool
    size: int
    line: int = 0
    head: str = ""
    within: str = ""


COLUMNS: dict[str, tuple[str, ...]] = {
    "layers": ("layer", "class", "output shape", "params"),
    "graph": ("op", "type", "output", "layer"),
    "hlo": ("instruction", "opcode", "shape", "op_name"),
    "optimized-hlo": ("instruction", "opcode", "shape", "op_name"),
    "kernels": ("kernel", "kind", "vector", "implements"),
}


def column_titles(level: str, lang: str) -> tuple[str, ...]:
    """`COLUMNS[level]` in `lang` (labels `column.<title>`, spaces as underscores): the lists' and the handout's."""
    return tuple(label("column." + title.replace(" ", "_"), lang) for title in COLUMNS[level])


@lru_cache(maxsize=4096)
def shape_text(shape: Shape) -> str:
    """`f32[2,26,26,8]`; tuples as `(f32[2], s32[])`: the core's printer, without the layout.

    Cached: a module repeats a few hundred shapes over thousands of instructions, and hashing
    a shape costs a fraction of printing it."""
    from explorer.hlo.text import format_shape  # noqa: PLC0415 (kept off the first frame's imports)

    return format_shape(shape, with_layout=False)


def make_item(level: str, name: str, cells: tuple[str, ...], kind: str, line: int = 0, group: str = "",
          depth: int = 0) -> LevelItem:
    return LevelItem(level, name, cells, kind, line, " ".join((name, *cells)).lower(), group, depth)



@per_bundle
def kernel_rows(bundle: Bundle, target: str) -> tuple[LevelItem, ...]:
    """The kernels level: one row per kernel record, whichever compiler wrote them."""
    return tuple(
        make_item("kernels", k.name, (k.name, k.kind, f"{k.vector_width_bits}-bit" if k.vector_width_bits else "",
                                      ", ".join(k.hlo)), k.kind)
        for k in bundle.kernels(target))


def role_text(entry: IndexEntry | None, lang: str = "en") -> str:
    """`weight 1 of 2 of conv2d`, `input image`: what an entry parameter is to the model, in `lang`
    (English is what `inspect --json` reports as `role`)."""
    if entry is None or not entry.role:
        return ""
    if entry.role == "input":
        position, count = entry.slot or (1, 1)
        key = "role.input" if entry.layer else "role.model_input"
        return label(key + ("_of" if count > 1 else ""), lang).format(position=position, count=count,
                                                                     layer=entry.layer)
    if entry.layer and entry.slot:
        position, count = entry.slot
        return label("role.weight", lang).format(position=position, count=count, layer=entry.layer)
    return label("role.unmatched_weight", lang)
