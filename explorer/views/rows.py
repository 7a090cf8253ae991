"""A level's list: its rows (`LevelItem`), the foldable groups over them, and their column titles."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from explorer.labels import label
from explorer.levels import LIST_LEVELS, is_hlo, target_key

if TYPE_CHECKING:
    from explorer.hlo.model import Shape
    from explorer.model.bundle import Bundle
    from explorer.model.index import IndexEntry

from explorer.views.tables import cross_index, is_tvm_target, per_bundle

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


def _dims_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def _item(level: str, name: str, cells: tuple[str, ...], kind: str, line: int = 0, group: str = "",
          depth: int = 0) -> LevelItem:
    return LevelItem(level, name, cells, kind, line, " ".join((name, *cells)).lower(), group, depth)


def rows(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> tuple[LevelItem, ...]:
    """The rows of `level` (every instruction of an HLO module, fused ones included, ENTRY first).

    `lang` words the cells the explorer writes itself (a parameter's role); names stay as written."""
    if bundle is None or level not in LIST_LEVELS:
        return ()
    if is_hlo(level) and is_tvm_target(target):
        return relax_rows(bundle, level, target)
    if is_hlo(level):
        return _hlo_outline(bundle, level, target_key(level, target), lang)[0]
    return _rows(bundle, level, target_key(level, target))


@per_bundle
def _rows(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    if level == "layers":
        container = _containers(bundle)
        return tuple(
            _item("layers", layer.name, (layer.name, layer.class_name,
                                         ", ".join(_dims_text(s) for s in layer.output_shapes), f"{layer.params:,}"),
                  layer.class_name, group=container.get(layer.name, ""), depth=layer.path.count("/"))
            for layer in bundle.layers)
    if level == "graph":
        ops = bundle.graph.ops if bundle.graph is not None else ()
        return tuple(
            _item("graph", op.name, (op.name, op.op, ", ".join(
                f"{o.dtype}{list(o.shape) if o.shape is not None else '[?]'}" for o in op.outputs), op.layer), op.op)
            for op in ops)
    return tuple(
        _item("kernels", k.name, (k.name, k.kind, f"{k.vector_width_bits}-bit" if k.vector_width_bits else "",
                                  ", ".join(k.hlo)), k.kind)
        for k in bundle.kernels(target))


# Runs shorter than this stay plain rows: a fold would hide as much as it saves.
_GROUP_AT_LEAST = 2


def row_groups(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> dict[str, RowGroup]:
    """The foldable groups of `level`'s rows by key, in list order (HLO levels; containers of layers).

    Keys are identities and never change with `lang`; only the header cells are worded in it."""
    if bundle is not None and level == "layers":
        return _layer_groups(bundle)
    if bundle is None or not is_hlo(level):
        return {}
    return _hlo_outline(bundle, level, target_key(level, target), lang)[1]


@per_bundle
def _containers(bundle: Bundle) -> dict[str, str]:
    """layer -> the container layer directly holding it (a nested model, a Sequential block)."""
    from explorer.model.index import layer_parents  # noqa: PLC0415 (the data model loads with the data)

    return dict(layer_parents(bundle.layers))


@per_bundle
def _layer_groups(bundle: Bundle) -> dict[str, RowGroup]:
    """One group per container layer, headed by its own row: folded when the list opens, so a model
    built from blocks (or around a keras.applications backbone) shows its outline first."""
    container = _containers(bundle)
    inner: dict[str, int] = {}
    for layer in container:
        holder = container[layer]
        while holder:  # a layer counts for every container above it
            inner[holder] = inner.get(holder, 0) + 1
            holder = container.get(holder, "")
    return {layer.name: RowGroup(layer.name, (), True, inner[layer.name], head=layer.name,
                                 within=container.get(layer.name, ""))
            for layer in bundle.layers if layer.name in inner}


@per_bundle
def _hlo_outline(bundle: Bundle, level: str, target: str,
                 lang: str) -> tuple[tuple[LevelItem, ...], dict[str, RowGroup]]:
    """The rows of an HLO level with their groups: the entry computation first (its parameters,
    then its constants, then its work in program order), then every computation it calls, each
    a group of its own."""
    module = bundle.hlo_module(target, level == "optimized-hlo")
    if module is None:
        return (), {}
    index = cross_index(bundle)
    found: list[LevelItem] = []
    groups: dict[str, RowGroup] = {}

    def item(computation, instruction, group: str) -> LevelItem:
        opcode = instruction.opcode
        if instruction.fusion_kind:
            opcode = f"{opcode} {instruction.fusion_kind}"
        if instruction.custom_call_target:
            opcode = f"{opcode} {instruction.custom_call_target}"
        where = "" if computation.is_entry else f"  ({computation.name})"
        # An entry parameter says whose it is (XLA's op_name there is only `XLA_Args` or `trainable[2]`).
        role = role_text(index.entry(level, instruction.name, target), lang) if instruction.opcode == "parameter" \
            else ""
        return _item(level, instruction.name, (instruction.name + where, opcode, shape_text(instruction.shape),
                                               role or instruction.metadata.op_name),
                     instruction.opcode, instruction.line, group)

    # The program itself (ENTRY, printed last by XLA) first; the computations it calls after it.
    ordered = sorted(module.computations, key=lambda computation: not computation.is_entry)
    for computation in ordered:
        if computation.is_entry:
            runs = {kind: [i for i in computation.instructions if i.opcode == kind]
                    for kind in ("parameter", "constant")}
            grouped = {kind: run for kind, run in runs.items() if len(run) >= _GROUP_AT_LEAST}
            for kind, run in grouped.items():
                key = f"{kind}s of {computation.name}"
                count = label(f"group.{kind}s", lang).format(count=f"{len(run):,}")
                groups[key] = RowGroup(key, (count, kind, "", label(f"group.{kind}_note", lang)), True, len(run))
                found.extend(item(computation, i, key) for i in run)
            found.extend(item(computation, i, "") for i in computation.instructions if i.opcode not in grouped)
            continue
        key = computation.name
        size = len(computation.instructions)
        what = label("group.fused_instructions" if computation.is_fusion else "group.instructions", lang)
        groups[key] = RowGroup(key, (key, label("group.computation", lang), "", what.format(count=f"{size:,}")),
                               computation.is_fusion, size, computation.line)
        found.extend(item(computation, i, key) for i in computation.instructions)
    return tuple(found), groups


def created_by_compiler(bundle: Bundle | None, level: str, target: str) -> frozenset[str]:
    """Top-level items no layer owns (listed as "created by XLA")."""
    if bundle is None or not is_hlo(level):
        return frozenset()
    return _created(bundle, level, target)


@per_bundle
def _created(bundle: Bundle, level: str, target: str) -> frozenset[str]:
    return frozenset(cross_index(bundle).created_by_compiler(level, target))


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


def parameter_role(bundle: Bundle | None, level: str, target: str, name: str, lang: str = "en") -> str:
    """`role_text` of an item ("" for anything but an entry parameter the index linked)."""
    return role_text(cross_index(bundle).entry(level, name, target), lang) if is_hlo(level) else ""


@per_bundle
def relax_rows(bundle: Bundle, level: str, target: str) -> tuple[LevelItem, ...]:
    """Relax as imported (`hlo`) or after fusion (`optimized-hlo`): one row per binding or TIR
    function, in the columns of the HLO levels (the layer where XLA shows an op_name)."""
    from explorer.views import tvm as tvm_levels  # noqa: PLC0415

    return tuple(_item(level, item.name, (item.name, item.kind, item.shape, ", ".join(item.layers)),
                       item.kind, item.line)
                 for item in tvm_levels.relax_items(bundle, target, level == "optimized-hlo"))
