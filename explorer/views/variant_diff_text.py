"""`tensorweg diff`: a `VariantDiff` as text or JSON.

The figures are `explorer.views.variant_diff`'s; this module only words and formats them: the
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
from explorer.views.format import MISSING, format_bytes, format_count, format_seconds, text_table
from explorer.views.variant_diff import LayerDelta, LayerFigures, VariantDiff, VariantTotals

JSON_SCHEMA_VERSION = 1


def narration_key(kind: str) -> str:
    """The course text that says why a kind of delta happens (explorer/texts/content/*/whatif/)."""
    return f"whatif:{kind}"


def _change(before: str, after: str) -> str:
    return before if before == after else f"{before} -> {after}"


def _percent(before: float | None, after: float | None) -> str:
    if before is None or after is None or before == after:
        return ""
    if not before:
        return "new"
    ratio = after / before
    return f"x{ratio:.3g}" if ratio >= 2 or ratio <= 0.5 else f"{ratio - 1:+.0%}"


_TOTALS: tuple[tuple[str, Callable[[VariantTotals], str], Callable[[VariantTotals], float | None]], ...] = (
    ("fusions", lambda t: _count(t.fusions), lambda t: t.fusions),
    ("kernels", lambda t: _count(t.kernels), lambda t: t.kernels),
    ("instructions", lambda t: _count(t.instructions), lambda t: t.instructions),
    ("FLOPs", lambda t: format_count(t.flops), lambda t: t.flops),
    ("bytes moved", lambda t: format_bytes(t.bytes_accessed), lambda t: t.bytes_accessed),
    ("estimated time", lambda t: format_seconds(t.estimated_seconds), lambda t: t.estimated_seconds),
    ("bound (compute/memory)", lambda t: f"{t.compute_bound}/{t.memory_bound}" if t.estimated_seconds else MISSING,
     lambda t: None),
    ("peak memory", lambda t: format_bytes(t.peak_bytes), lambda t: t.peak_bytes),
    ("XLA memory_analysis", lambda t: format_bytes(t.xla_peak_bytes), lambda t: t.xla_peak_bytes),
    ("registers (max)", lambda t: _count(t.max_registers), lambda t: t.max_registers),
)


def _count(value: int | None) -> str:
    return MISSING if value is None else str(value)


def totals_rows(diff: VariantDiff) -> list[tuple[str, str, str, str]]:
    """(figure, variant A, variant B, change) for the whole model; rows with nothing in either left out."""
    first, second = diff.variants
    rows = []
    for name, shown, value in _TOTALS:
        a, b = shown(first), shown(second)
        if a == MISSING and b == MISSING:
            continue
        rows.append((name, a, b, _percent(value(first), value(second)) or ("" if a == b else "changed")))
    return rows


def _layer_columns(target: str) -> tuple[tuple[str, Callable[[LayerFigures], str]], ...]:
    """The per-layer figures worth showing on the target's kind (GPU: registers, occupancy; TPU: tiles)."""
    kind = TARGETS[target].kind if target in TARGETS else ""
    columns: list[tuple[str, Callable[[LayerFigures], str]]] = [
        ("fusions", lambda f: str(f.fusions)), ("kernels", lambda f: str(f.kernels)),
        ("instr", lambda f: str(f.instructions)), ("FLOPs", lambda f: format_count(f.flops)),
        ("bytes", lambda f: format_bytes(f.bytes_accessed)),
        ("estimate", lambda f: format_seconds(f.estimated_seconds)), ("bound", lambda f: f.bound or MISSING)]
    if kind == "gpu":
        columns += [("regs", lambda f: _count(f.registers)),
                    ("occupancy", lambda f: MISSING if f.occupancy is None else f"{f.occupancy:.0%}")]
    if kind == "tpu":
        columns.append(("tiles", lambda f: " ".join(f.tiles) or MISSING))
    return tuple(columns)


def layer_rows(diff: VariantDiff) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The per-layer table: each figure as `A -> B` where it changed; a changed layer is marked `*`."""
    columns = _layer_columns(diff.target)
    header = ("", "layer", *(name for name, _ in columns))
    rows = []
    for delta in diff.layers:
        if not (delta.before.captured or delta.after.captured):
            continue
        rows.append(("*" if delta.changed else "", delta.layer,
                     *(_change(shown(delta.before), shown(delta.after)) for _, shown in columns)))
    return header, rows


def as_text(diff: VariantDiff, lang: str = "en") -> str:
    first, second = diff.variants
    lines = [f"{diff.model} on {diff.target}: {first.label} vs {second.label}", ""]
    for variant in diff.variants:
        if not variant.captured:
            lines.append(f"{variant.label}: {variant.status}")
    lines.append(text_table(("model", first.label, second.label, "change"), totals_rows(diff)))
    lines += ["", "per layer (* changed; A -> B):", text_table(*layer_rows(diff))]
    lines += ["", "fusions that changed (matched by the layers they compute):"]
    lines += [f"  {' + '.join(change.layers)}: {', '.join(change.before) or 'none'}  ->  "
              f"{', '.join(change.after) or 'none'}" for change in diff.fusion_changes] or ["  none"]
    lines += _peak_check(diff)
    lines += _narration(diff, lang)
    return "\n".join(lines)


def _peak_check(diff: VariantDiff) -> list[str]:
    """The buffer assignment's peak beside XLA's own memory_analysis figure, where the capture has it."""
    notes = []
    for variant in diff.variants:
        if variant.peak_bytes is not None and variant.xla_peak_bytes is not None:
            notes.append(f"  {variant.label}: peak {format_bytes(variant.peak_bytes)} ({variant.peak_source}); "
                         f"memory_analysis arguments + outputs + temporaries - aliased "
                         f"{format_bytes(variant.xla_peak_bytes)}")
    return ["", "peak memory, checked against XLA's memory_analysis:", *notes] if notes else []


def _narration(diff: VariantDiff, lang: str) -> list[str]:
    lines = []
    for kind in diff.kinds:
        text = explain_topic(narration_key(kind), lang, diff.target)
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
        "explanations": [narration_key(kind) for kind in diff.kinds],
    }, indent=1)
