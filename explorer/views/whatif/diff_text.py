"""`tensorweg diff`: a `VariantDiff` as text or JSON.

The figures are `explorer.views.whatif.diff`'s; this module only words and formats them: the
totals side by side, one row per layer (changed figures as `A -> B`), the fusions that changed,
then why, from the course texts `whatif:<kind>` (EN/DE, each with its source).
JSON fields are documented in docs/inspect-json.md ("tensorweg diff --json").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from explorer.labels import label
from explorer.model.serial import to_jsonable
from explorer.targets import TARGETS
from explorer.texts.lookup import explain_topic
from explorer.views.format import (
    MISSING,
    format_bytes,
    format_count,
    format_decimal,
    format_percent,
    format_seconds,
    text_table,
)
from explorer.views.whatif.diff import LayerDelta, LayerFigures, VariantDiff, VariantTotals

JSON_SCHEMA_VERSION = 1


def narration_key(kind: str) -> str:
    """The course text that says why a kind of delta happens (explorer/texts/content/*/whatif/)."""
    return f"whatif:{kind}"


def _change(before: str, after: str) -> str:
    return before if before == after else f"{before} -> {after}"


def _percent(before: float | None, after: float | None, lang: str) -> str:
    if before is None or after is None or before == after:
        return ""
    if not before:
        return label("whatif.new", lang)
    ratio = after / before
    return f"x{format_decimal(ratio, '.3g', lang)}" if ratio >= 2 or ratio <= 0.5 \
        else format_decimal(ratio - 1, "+.0%", lang)


# (row, its cell in a language, its value): the cells' figures in the language's separators.
_TOTALS: tuple[tuple[str, Callable[[VariantTotals, str], str], Callable[[VariantTotals], float | None]], ...] = (
    ("whatif.row.fusions", lambda t, lang: _count(t.fusions), lambda t: t.fusions),
    ("whatif.row.kernels", lambda t, lang: _count(t.kernels), lambda t: t.kernels),
    ("whatif.row.instructions", lambda t, lang: _count(t.instructions), lambda t: t.instructions),
    ("whatif.row.flops", lambda t, lang: format_count(t.flops, lang), lambda t: t.flops),
    ("whatif.row.bytes_moved", lambda t, lang: format_bytes(t.bytes_accessed, lang), lambda t: t.bytes_accessed),
    ("whatif.row.estimated_time", lambda t, lang: format_seconds(t.estimated_seconds, lang),
     lambda t: t.estimated_seconds),
    ("whatif.row.bound", lambda t, lang: f"{t.compute_bound}/{t.memory_bound}" if t.estimated_seconds else MISSING,
     lambda t: None),
    ("whatif.row.peak_memory", lambda t, lang: format_bytes(t.peak_bytes, lang), lambda t: t.peak_bytes),
    ("whatif.row.xla_peak", lambda t, lang: format_bytes(t.xla_peak_bytes, lang), lambda t: t.xla_peak_bytes),
    ("whatif.row.registers", lambda t, lang: _count(t.max_registers), lambda t: t.max_registers),
)


def _count(value: int | None) -> str:
    return MISSING if value is None else str(value)


def kernels_are_steps(diff: VariantDiff) -> bool:
    """Whether the kernels repeat the instructions: on a TPU each working entry instruction is counted
    as a kernel (a program step, explorer.capture.jax_levels.tpu_program_steps), so the two figures
    are one by definition, not two pieces of evidence. Checked on every figure, not assumed: an
    instruction that is no step (`partition-id` in a mesh) keeps both shown."""
    if diff.target not in TARGETS or TARGETS[diff.target].kind != "tpu":
        return False
    totals = all(v.kernels == v.instructions for v in diff.variants if v.captured)
    return totals and all(f.kernels == f.instructions for d in diff.layers for f in (d.before, d.after) if f.captured)


def kernels_note(diff: VariantDiff, lang: str = "en") -> str:
    """The one line saying why the kernels are not shown beside the instructions; "" where they are."""
    return label("whatif.kernels_are_steps", lang) if kernels_are_steps(diff) else ""


def totals_rows(diff: VariantDiff, lang: str = "en") -> list[tuple[str, str, str, str]]:
    """(figure, variant A, variant B, change) for the whole model; rows with nothing in either left out,
    and the kernels where they are the instructions again (`kernels_note` says so)."""
    first, second = diff.variants
    rows = []
    skipped = {"whatif.row.kernels"} if kernels_are_steps(diff) else set()
    for key, shown, value in _TOTALS:
        if key in skipped:
            continue
        a, b = shown(first, lang), shown(second, lang)
        if a == MISSING and b == MISSING:
            continue
        change = _percent(value(first), value(second), lang) or ("" if a == b else label("whatif.changed", lang))
        rows.append((label(key, lang), a, b, change))
    return rows


def _bound(bound: str, lang: str) -> str:
    """The layer's bound ("compute" or "memory", as the roofline estimate names it) in `lang`."""
    return label(f"whatif.bound.{bound}", lang) if bound in ("compute", "memory") else (bound or MISSING)


def _layer_columns(diff: VariantDiff, lang: str) -> tuple[tuple[str, Callable[[LayerFigures], str]], ...]:
    """The per-layer figures worth showing on the target's kind (GPU: registers, occupancy; TPU: tiles;
    no kernels where they are the instructions again), each under its heading's label key."""
    kind = TARGETS[diff.target].kind if diff.target in TARGETS else ""
    kernels: list[tuple[str, Callable[[LayerFigures], str]]] = (
        [] if kernels_are_steps(diff) else [("whatif.row.kernels", lambda f: str(f.kernels))])
    columns: list[tuple[str, Callable[[LayerFigures], str]]] = [
        ("whatif.row.fusions", lambda f: str(f.fusions)), *kernels,
        ("whatif.col.instructions", lambda f: str(f.instructions)),
        ("whatif.row.flops", lambda f: format_count(f.flops, lang)),
        ("whatif.col.bytes", lambda f: format_bytes(f.bytes_accessed, lang)),
        ("whatif.col.estimate", lambda f: format_seconds(f.estimated_seconds, lang)),
        ("whatif.col.bound", lambda f: _bound(f.bound, lang))]
    if kind == "gpu":
        columns += [("whatif.col.registers", lambda f: _count(f.registers)),
                    ("whatif.col.occupancy",
                     lambda f: MISSING if f.occupancy is None else format_percent(f.occupancy, lang))]
    if kind == "tpu":
        columns.append(("whatif.col.tiles", lambda f: " ".join(f.tiles) or MISSING))
    return tuple(columns)


def layer_rows(diff: VariantDiff, lang: str = "en") -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The per-layer table: each figure as `A -> B` where it changed; a changed layer is marked `*`."""
    columns = _layer_columns(diff, lang)
    header = ("", label("whatif.col.layer", lang), *(label(key, lang) for key, _ in columns))
    rows = []
    for delta in diff.layers:
        if not (delta.before.captured or delta.after.captured):
            continue
        rows.append(("*" if delta.changed else "", delta.layer,
                     *(_change(shown(delta.before), shown(delta.after)) for _, shown in columns)))
    return header, rows


def as_text(diff: VariantDiff, lang: str = "en") -> str:
    first, second = diff.variants
    heading = label("whatif.heading", lang).format(
        model=diff.model, target=diff.target, first=first.label, second=second.label)
    lines = [heading, ""]
    for variant in diff.variants:
        if not variant.captured:
            lines.append(f"{variant.label}: {variant.status}")
    columns = (label("whatif.col.model", lang), first.label, second.label, label("whatif.col.change", lang))
    lines.append(text_table(columns, totals_rows(diff, lang)))
    if note := kernels_note(diff, lang):
        lines.append(note)
    lines += ["", label("whatif.per_layer", lang), text_table(*layer_rows(diff, lang))]
    none = label("whatif.no_fusion_change", lang)
    lines += ["", label("whatif.fusions_changed", lang)]
    lines += [f"  {' + '.join(change.layers)}: {', '.join(change.before) or none}  ->  "
              f"{', '.join(change.after) or none}" for change in diff.fusion_changes] or [f"  {none}"]
    lines += _peak_check(diff, lang)
    lines += quantization_lines(diff, lang)
    lines += _narration(diff, lang)
    return "\n".join(lines)


def quantization_lines(diff: VariantDiff, lang: str = "en") -> list[str]:
    """The int8 variant: the layers Keras quantized (weights before -> after) and those that stayed float,
    then each integer dot as traced and as optimized, with the integer multiplies its kernel's listing holds."""
    found = diff.quantization
    if found is None:
        return []
    quantized = [label("whatif.quantized_layer", lang).format(
        layer=p.layer, class_name=p.class_name, policy=p.policy_after, before=format_bytes(p.weight_bytes_before),
        after=format_bytes(p.weight_bytes_after)) for p in found.layers if p.quantized]
    before, after = found.weight_bytes
    lines = ["", label("whatif.quantized", lang).format(mode=found.mode, layers=", ".join(quantized) or MISSING,
                                                        before=format_bytes(before), after=format_bytes(after))]
    stayed = [f"{p.layer} ({p.class_name}, {p.policy_after})" for p in found.layers if not p.quantized]
    if stayed:
        lines.append(label("whatif.stayed_float", lang).format(layers=", ".join(stayed)))
    if found.dots:
        lines += ["", label("whatif.integer_dots", lang).format(target=diff.target)]
    for dot in found.dots:
        lines += [f"  {dot.layer}: " + label("whatif.dot_traced", lang).format(dot=dot.traced)]
        lines += ["    " + line for line in _dot_lines(dot, lang)]
    return lines


def _dot_lines(dot, lang: str) -> list[str]:
    if not dot.optimized:
        return [label("whatif.dot_gone", lang)]
    where = f" ({label('whatif.dot_in_fusion', lang).format(fusion=dot.fusion)})" if dot.fusion else ""
    lines = [label("whatif.dot_optimized", lang).format(dot=dot.optimized) + where,
             label("whatif.dot_widened" if dot.widened else "whatif.dot_kept", lang)]
    if dot.constant:
        size = format_bytes(dot.constant_bytes)
        lines.append(label("whatif.dot_constant", lang).format(shape=dot.constant, bytes=size))
    if dot.kernel:
        multiplies = ", ".join(f"{mnemonic} x{count}" for mnemonic, count in dot.instructions)
        lines.append(label("whatif.dot_kernel", lang).format(
            kernel=dot.kernel, instructions=multiplies or label("whatif.dot_no_multiplies", lang)))
    if dot.int8_dot_found:
        lines.append(label("whatif.dot_found", lang).format(instructions=", ".join(dot.int8_dot_found)))
    if dot.int8_dot_absent:
        lines.append(label("whatif.dot_absent", lang).format(instructions=", ".join(dot.int8_dot_absent)))
    return lines


def _peak_check(diff: VariantDiff, lang: str) -> list[str]:
    """The buffer assignment's peak beside XLA's own memory_analysis figure, where the capture has it."""
    notes = []
    for variant in diff.variants:
        if variant.peak_bytes is not None and variant.xla_peak_bytes is not None:
            notes.append("  " + label("whatif.peak_line", lang).format(
                variant=variant.label, peak=format_bytes(variant.peak_bytes, lang), source=variant.peak_source,
                xla=format_bytes(variant.xla_peak_bytes, lang)))
    return ["", label("whatif.peak_check", lang), *notes] if notes else []


# The int8 variant's own text, after the quantization lines (explorer.views.whatif.quantized).
QUANTIZE_NARRATION = "whatif:quantize"


def _narration(diff: VariantDiff, lang: str) -> list[str]:
    lines = []
    keys = [narration_key(kind) for kind in diff.kinds] + ([QUANTIZE_NARRATION] if diff.quantization else [])
    for key in keys:
        text = explain_topic(key, lang, diff.target)
        lines += ["", f"{label('whatif.why', lang)}: {text.title}", text.body, f"({text.source})"]
    return lines


# --- JSON -----------------------------------------------------------------------------------------


def _variant_json(variant: VariantTotals) -> dict[str, Any]:
    data = to_jsonable(variant)
    data["xla_memory_analysis"] = dict(variant.xla_memory_analysis)
    return data


def _layer_json(delta: LayerDelta) -> dict[str, Any]:
    before, after = to_jsonable(delta.before), to_jsonable(delta.after)
    numeric = ("fusions", "kernels", "instructions", "flops", "bytes_accessed", "estimated_seconds",
               "registers", "occupancy")
    return {
        "layer": delta.layer, "class_name": delta.class_name, "changed": list(delta.changed),
        "before": before, "after": after,
        "delta": {name: after[name] - before[name] for name in numeric
                  if before.get(name) is not None and after.get(name) is not None},
    }


def as_json(diff: VariantDiff) -> str:
    return json.dumps({
        "schema_version": JSON_SCHEMA_VERSION, "model": diff.model, "target": diff.target,
        "variants": [_variant_json(variant) for variant in diff.variants],
        "layers": [_layer_json(delta) for delta in diff.layers],
        "fusion_changes": [to_jsonable(change) for change in diff.fusion_changes],
        "quantization": to_jsonable(diff.quantization) if diff.quantization is not None else None,
        "explanations": [narration_key(kind) for kind in diff.kinds] + ([QUANTIZE_NARRATION] if diff.quantization
                                                                       else []),
    }, indent=1)
