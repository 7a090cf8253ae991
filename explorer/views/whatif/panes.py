"""What the diff screen (`V`, screens/variant_diff.py) shows, decided here: for the selected layer
and the whole model, two variants side by side, the fusions that changed, both memory skylines
and why. Plain text blocks; the screen only places them.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.labels import label
from explorer.model.bundle import Bundle
from explorer.texts.lookup import explain_topic
from explorer.views.format import text_table
from explorer.views.whatif.diff import FusionChange, VariantDiff, variant_diff
from explorer.views.whatif.diff_text import kernels_note, layer_rows, narration_key, totals_rows
from explorer.views.whatif.skyline import draw, peak_lines, skyline

SKYLINE_LABEL_WIDTH = 12


@dataclass(frozen=True)
class WhatIfPanes:
    title: str
    layer: str
    model: str
    fusions: str
    skyline: str
    why: str
    changes: tuple[FusionChange, ...] = ()  # the changed fusions in the order `fusions` lists them


def whatif_panes(this: tuple[str, Bundle], other: tuple[str, Bundle], target: str, layer: str,
                 lang: str, width: int, picked: int = 0, diff: VariantDiff | None = None) -> WhatIfPanes:
    """The screen's blocks for `layer` (its row of the per-layer table, both variants) at `width` columns;
    `picked`: the changed fusion marked in the list (Enter opens both versions' HLO); `diff`: the
    two variants' `variant_diff`, when the caller kept it (it reads every layer of both: the screen
    computes it once per variant, not on every key)."""
    diff = diff or variant_diff(this, other, target)
    first, second = diff.variants
    title = (f"{label('whatif.title', lang)} | {diff.model} | {target} | {first.label} vs {second.label} | "
             f"{label('whatif.keys', lang)}")
    changes = tuple(sorted(diff.fusion_changes, key=lambda change: layer not in change.layers))
    return WhatIfPanes(
        title=title, layer=_layer_block(diff, layer, lang), model=_model_block(diff, lang),
        fusions=_fusion_block(changes, picked, lang),
        skyline=_skyline_block((first.label, this[1]), (second.label, other[1]), target, lang, width),
        why=_why_block(diff, layer, lang), changes=changes)


def _layer_block(diff: VariantDiff, layer: str, lang: str) -> str:
    """The layer's figures, one row per variant, then the change."""
    header, rows = layer_rows(diff, lang)
    row = next((r for r in rows if r[1] == layer), None)
    first, second = diff.variants
    heading = label("whatif.layer", lang).format(layer=layer, first=first.label, second=second.label)
    if row is None:
        return heading
    names = header[2:]
    before = [cell.split(" -> ")[0] for cell in row[2:]]
    after = [cell.split(" -> ")[-1] for cell in row[2:]]
    return heading + "\n" + text_table(("", *names), [(first.label, *before), (second.label, *after)])


def _model_block(diff: VariantDiff, lang: str) -> str:
    first, second = diff.variants
    table = text_table(("", first.label, second.label, ""), totals_rows(diff, lang))
    note = kernels_note(diff, lang)
    return label("whatif.model", lang) + "\n" + table + (f"\n{note}" if note else "")


def _fusion_block(changes: tuple[FusionChange, ...], picked: int, lang: str) -> str:
    """The changed fusions (the layer's first), the picked one marked `>`."""
    lines = [f"{'>' if at == picked % len(changes) else ' '} {' + '.join(c.layers)}: {', '.join(c.before) or '-'}"
             f"  ->  {', '.join(c.after) or '-'}" for at, c in enumerate(changes)]
    return label("whatif.fusions", lang) + "\n" + ("\n".join(lines) or label("whatif.no_fusion_change", lang))


def _skyline_block(first: tuple[str, Bundle], second: tuple[str, Bundle], target: str, lang: str,
                   width: int) -> str:
    lines = [label("whatif.skyline", lang)]
    found = [(name, skyline(bundle, target)) for name, bundle in (first, second)]
    scale = max((s.peak_bytes for _, s in found if s is not None), default=0)
    room = max(8, width - SKYLINE_LABEL_WIDTH - 4)
    for name, line in found:
        shown = name[:SKYLINE_LABEL_WIDTH].ljust(SKYLINE_LABEL_WIDTH)
        drawn = f"|{draw(line.live, room, scale)}|" if line else label("whatif.no_skyline", lang)
        lines.append(f"{shown} {drawn}")
    for name, line in found:
        if line is not None:
            peak = peak_lines(line, lang)
            lines += [f"{name}: " + peak[0], *peak[1:]]
    return "\n".join(lines)


def fusion_hlo(bundle: Bundle, target: str, described: tuple[str, ...]) -> str:
    """The optimized HLO of fusions as a `FusionChange` lists them (`name (kind)`): each fusion's
    line in the entry computation, then the computation it calls, as the module writes them."""
    module = bundle.hlo_module(target, optimized=True)
    if module is None or module.entry is None:
        return ""
    lines = bundle.hlo_text(target, optimized=True).splitlines()
    by_name = {instruction.name: instruction for instruction in module.entry.instructions}
    parts = []
    for text in described:
        instruction = by_name.get(text.split(" ", 1)[0])
        if instruction is None:
            continue
        called = module.computation(instruction.attribute("calls").lstrip("%"))
        body = _computation_lines(lines, called.line) if called is not None and called.line else []
        parts.append("\n".join([lines[instruction.line - 1].strip(), *body]))
    return "\n\n".join(parts)


def _computation_lines(lines: list[str], first: int) -> list[str]:
    """A computation's lines from its header (1-based `first`) to its closing brace."""
    found = []
    for line in lines[first - 1:]:
        found.append(line)
        if line.startswith("}"):
            break
    return found


def _why_block(diff: VariantDiff, layer: str, lang: str) -> str:
    """The texts of the kinds that changed in the layer, else in the model."""
    kinds = next((d.changed for d in diff.layers if d.layer == layer and d.changed), ()) or diff.kinds
    parts = []
    for kind in kinds:
        text = explain_topic(narration_key(kind), lang, diff.target)
        parts.append(f"{text.title}: {text.body} ({text.source})")
    return label("whatif.why", lang) + "\n" + "\n\n".join(parts) if parts else ""
