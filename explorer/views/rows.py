"""A level's list: its rows (`LevelItem`), the foldable groups over them, and their column titles.

The per-target levels (`hlo`, `optimized-hlo`, `kernels`) are listed by the target's program
(`explorer.views.programs`): HLO instructions for XLA, Relax bindings and TIR functions for TVM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.levels import LIST_LEVELS, TARGET_LEVELS, is_hlo, level_named

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

from explorer.texts.content_files import LANGUAGES
from explorer.views.format import format_int
from explorer.views.items import (
    LevelItem,
    RowGroup,
    make_item,
    role_text,
)
from explorer.views.programs import program_for
from explorer.views.tables import cross_index, per_bundle

__all__ = ["created_by_compiler", "parameter_role", "row_groups", "rows"]


def _dims_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def rows(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> tuple[LevelItem, ...]:
    """The rows of `level` (every instruction of an HLO module, fused ones included, ENTRY first).

    `lang` words the cells the explorer writes itself (a parameter's role); names stay as written."""
    if bundle is None or level not in LIST_LEVELS:
        return ()
    if level in TARGET_LEVELS:
        return program_for(bundle, target).rows(level, lang)
    return _rows(bundle, level)[lang]


@per_bundle
def _rows(bundle: Bundle, level: str) -> dict[str, tuple[LevelItem, ...]]:
    """The target-free levels, in each language: the model's layers (their parameter counts in its
    digits), the TensorFlow graph's ops (the same rows in both). Built together, so `L` finds the
    other language's rows ready, as the first screen left them, and the list keeps its selection."""
    if level_named(level).lists_layers:
        container = _containers(bundle)
        return {lang: tuple(
            make_item("layers", layer.name,
                      (layer.name, layer.class_name, ", ".join(_dims_text(s) for s in layer.output_shapes),
                       format_int(layer.params, lang)),
                      layer.class_name, group=container.get(layer.name, ""), depth=layer.path.count("/"))
            for layer in bundle.layers) for lang in LANGUAGES}
    ops = bundle.graph.ops if bundle.graph is not None else ()
    found = tuple(
        make_item("graph", op.name, (op.name, op.op, ", ".join(
            f"{o.dtype}{list(o.shape) if o.shape is not None else '[?]'}" for o in op.outputs), op.layer), op.op)
        for op in ops)
    return dict.fromkeys(LANGUAGES, found)


def row_groups(bundle: Bundle | None, level: str, target: str, lang: str = "en") -> dict[str, RowGroup]:
    """The foldable groups of `level`'s rows by key, in list order (HLO levels; containers of layers).

    Keys are identities and never change with `lang`; only the header cells are worded in it."""
    if bundle is not None and level_named(level).lists_layers:
        return _layer_groups(bundle)
    if bundle is None or not is_hlo(level):
        return {}

    return program_for(bundle, target).row_groups(level, lang)


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


def created_by_compiler(bundle: Bundle | None, level: str, target: str) -> frozenset[str]:
    """Top-level items no layer owns (listed as "created by XLA")."""
    if bundle is None or not is_hlo(level):
        return frozenset()
    return _created(bundle, level, target)


@per_bundle
def _created(bundle: Bundle, level: str, target: str) -> frozenset[str]:
    return frozenset(cross_index(bundle).created_by_compiler(level, target))


def parameter_role(bundle: Bundle | None, level: str, target: str, name: str, lang: str = "en") -> str:
    """`role_text` of an item ("" for anything but an entry parameter the index linked)."""
    return role_text(cross_index(bundle).entry(level, name, target), lang) if is_hlo(level) else ""
