"""`0`: the source view at the top of the trace, the Python lines above a layer or an HLO instruction.

Level 0 above the layers (keys 1-5 are the levels below): from a selected layer, the Python lines
that made its HLO instructions; from an HLO instruction (before or after optimisation), the lines
behind that instruction alone. Each line says which instructions it emitted itself and which it
reached by calling further down; Enter on a line goes down to the HLO level with its first
instruction selected. The lines are the passport's first hop (`explorer.views.passport.python`),
so the view, the passport and `tensorweg passport --json` read one answer. Decided here (no
Textual): the screen (`screens/source.py`) only lays the rows out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.labels import label
from explorer.levels import LIST_LEVELS, level_named
from explorer.views import trace
from explorer.views.passport import check_target, does_work
from explorer.views.passport.python import PythonEnd, PythonLine, python_end
from explorer.views.tables import kernel

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

_MOST_NAMES = 6  # instruction names per row; the rest are counted


@dataclass(frozen=True)
class SourceView:
    """The lines (outermost first) above `item` at `level` (a layer, or an HLO instruction);
    `target` is the one whose instructions the lines name (where Enter goes)."""

    model: str
    target: str
    level: str
    item: str
    layer: str
    end: PythonEnd

    @property
    def lines(self) -> tuple[PythonLine, ...]:
        return self.end.lines


@dataclass(frozen=True)
class SourceRow:
    """One line as the screen shows it: `heading` (file:line function), `body` (its text and instructions)."""

    heading: str
    body: tuple[str, ...]


def _hlo_names(bundle: Bundle, target: str, level: str, item: str) -> tuple[str, ...]:
    """The HLO instructions (before optimisation) an HLO-level item stands for (() for other levels)."""
    this = level_named(level)
    if this.lowered:
        return (item,)
    if this.lists_kernels:
        found = kernel(bundle, target, item)
        return tuple(n for hlo in (found.hlo if found is not None else ()) for n in trace.up(bundle, "optimized-hlo",
                                                                                               hlo, target))
    if this.optimized:
        return trace.up(bundle, "optimized-hlo", item, target)
    return ()


def _layer_work(bundle: Bundle, target: str, layer: str) -> tuple[str, ...]:
    names = trace.items_for_layer(bundle, layer, "hlo", target) if layer else ()
    return tuple(n for n in names if does_work(bundle, "hlo", target, n))


def source_for_selection(bundle: Bundle, level: str, selections: dict[str, str], target: str) -> SourceView:
    """`0`: the source view of the selection at `level`; from a level without a list (memory) or
    without a selection, the selected layer (else the model's first layer)."""
    item = selections.get(level, "") if level in LIST_LEVELS else ""
    if not item:
        level = "layers"
        item = selections.get("layers", "") or (bundle.layers[0].name if bundle.layers else "")
    return source_view(bundle, target, level, item)


def source_view(bundle: Bundle, target: str, level: str, item: str) -> SourceView:
    """The source view of `item` at `level` on `target`: an HLO-level item's own instructions, any
    other item through its layer."""
    check_target(bundle, target)
    of_a_layer = level_named(level).lists_layers
    layer = item if of_a_layer else trace.layer_of(bundle, level, item, target)
    names = _hlo_names(bundle, target, level, item) if not of_a_layer else ()
    if not names:
        names, level, item = _layer_work(bundle, target, layer), "layers", layer
    end = python_end(bundle, target, layer, names, lambda other: _layer_work(bundle, other, layer))
    return SourceView(bundle.model_name, end.source_target or target, level, item, layer, end)


def title(view: SourceView, lang: str) -> str:
    if level_named(view.level).lists_layers:
        return label("source.title", lang).format(layer=view.layer, target=view.target)
    return label("source.title_item", lang).format(item=view.item, level=label(f"level.{view.level}", lang),
                                                   target=view.target)


def notes(view: SourceView, lang: str) -> tuple[str, ...]:
    """Where the lines come from, and what could not be recovered."""
    end = view.end
    evidence = end.evidence if end.recovered else "call_site"
    out = [f"{label('passport.evidence', lang)}: {label(f'passport.ev.{evidence}', lang)}"] if end.lines else []
    if end.heuristic:
        out.append(label("passport.h.python_other_target", lang).format(where=end.heuristic, target=end.source_target))
    if not end.recovered:
        why = label("passport.no.python_tf", lang).format(where=end.missing) if end.missing not in ("", "-") \
            else label("passport.no.python_none", lang)
        out.append(label("passport.no.python", lang).format(why=why))
    return tuple(out)


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:_MOST_NAMES])
    return shown + (f", ... +{len(names) - _MOST_NAMES}" if len(names) > _MOST_NAMES else "")


def rows(view: SourceView, lang: str) -> tuple[SourceRow, ...]:
    """One row per line: `file:line  function` (and whose line), its text, the instructions it
    emitted itself or reached through the lines below it."""
    out = []
    for line in view.lines:
        heading = f"{line.file}:{line.line}  {line.function}"
        if line.user:
            heading += f"  ({label('passport.python_yours', lang)})"
        body = [line.text or label("passport.python_unreadable", lang)]
        if line.instructions:
            body.append(f"-> {label('source.emits', lang)}: {_names(line.instructions)}")
        elif line.produced:
            body.append(f"-> {label('source.reaches', lang)}: {_names(line.produced)}")
        out.append(SourceRow(heading, tuple(body)))
    return tuple(out)


def line_place(view: SourceView, index: int) -> tuple[str, str, str] | None:
    """Enter on line `index`: (target, "hlo", its first instruction); None when it names none."""
    if not 0 <= index < len(view.lines):
        return None
    line = view.lines[index]
    names = line.instructions or line.produced
    return (view.target, "hlo", names[0]) if names else None
