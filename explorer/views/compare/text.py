"""`tensorweg compare`: the cross-target comparison as a text table or JSON.

The data is `explorer.views.compare`'s; this module only words and formats it. The cell
texts (`layer_cells`, `summary_rows`, `figure_notes`) are the compare screen's too, so the CLI
and the UI say the same thing in the same words.
JSON fields are documented in docs/inspect-json.md ("tensorweg compare --json").
"""

from __future__ import annotations

import json
from typing import Any

from explorer.labels import label
from explorer.model.bundle import Bundle
from explorer.model.serial import to_jsonable
from explorer.targets import TARGETS
from explorer.views.compare import (
    LayerComparison,
    TargetSummary,
    comparison_targets,
    layer_comparison,
    target_summary,
)
from explorer.views.compare.mesh import mesh_comparison, meshable
from explorer.views.format import MISSING, format_bytes, format_count, format_seconds
from explorer.views.programs.target_layer import InstructionComparison, TargetLayer

JSON_SCHEMA_VERSION = 1
# --- cell texts shared with the compare screen ----------------------------------------------------


def summary_rows(summaries: list[TargetSummary], lang: str = "en") -> list[tuple[str, list[str]]]:
    """(row label, one cell per target) for the per-target summary table; words in `lang`."""
    def word(key: str) -> str:
        return label(f"compare.{key}", lang)

    def cells(get) -> list[str]:
        return [get(s) if s.captured else (label("state.not_captured", lang) if s.status == "not captured"
                                           else s.status)
                for s in summaries]

    def kernels(s: TargetSummary) -> str:
        text = MISSING if s.kernel_count is None else str(s.kernel_count)
        steps = s.kernel_count is not None and "no inspectable" in s.kernels_note
        return text + (" " + word("steps") if steps else "")

    def source(text: str) -> str:
        return word("cost_analysis") if text.startswith("XLA cost") else word("shapes")

    return [
        (word("row.kernels"), cells(kernels)),
        (word("row.fusions"), cells(lambda s: MISSING if s.fusion_count is None else str(s.fusion_count))),
        (word("row.peak_memory"), cells(lambda s: format_bytes(s.peak_memory_bytes, lang))),
        (word("row.flops"), cells(lambda s: f"{format_count(s.flops, lang)} ({source(s.flops_source)})"
                                  if s.flops is not None else MISSING)),
        (word("row.bytes_accessed"), cells(
            lambda s: f"{format_bytes(s.bytes_accessed, lang)} ({source(s.bytes_accessed_source)})"
            if s.bytes_accessed is not None else MISSING)),
        (word("row.est_time"), cells(
            lambda s: f"{format_seconds(s.estimated_seconds, lang)} ("
                      + word("mem_comp").format(memory=s.memory_bound, compute=s.compute_bound) + ")"
            if s.estimated_seconds is not None else word("no_peaks"))),
        (word("row.xla_optimal_time"), cells(lambda s: format_seconds(s.xla_optimal_seconds, lang)
                                              if s.xla_optimal_seconds is not None
                                              else s.xla_optimal_note or MISSING)),
    ]


# The layer table's rows (label keys `compare.row.<name>`), in order: the compare screen shows every
# one; `tensorweg compare` shows those its per-instruction table does not already list.
LAYER_ROWS = ("decided", "fusions_ops", "kernels", "vector_code", "library_calls", "layouts", "bytes_padded",
              "flops", "est_time")
_LISTED_BY_INSTRUCTION = ("fusions_ops", "layouts")


def layer_cells(column: TargetLayer, lang: str = "en") -> list[str]:
    """The cells of one target's column, in LAYER_ROWS order (a cell may span lines)."""
    if not column.captured:
        return [label("compare.see_below", lang).format(status=column.status)] + [MISSING] * (len(LAYER_ROWS) - 1)
    if not column.instructions:
        return [label("compare.no_instruction", lang)] + [MISSING] * (len(LAYER_ROWS) - 1)
    return [
        decision_text(column, lang),
        instructions_text(column, lang),
        kernels_text(column, lang),
        "\n".join(vector_text(column, lang).split("; ")) or MISSING,
        library_text(column, lang),
        "\n".join(o.shape for i in column.working for o in i.outputs),
        bytes_text(column, lang),
        flops_text(column, lang),
        estimate_text(column, lang),
    ]


def instructions_text(column: TargetLayer, lang: str = "en") -> str:
    """The instructions that work, one a line, then how many views and constants there are besides:
    they do no work and own no new buffer, so they are counted, not listed."""
    lines = [f"{i.name}: {operation_text(i)}{also_text(i, lang)}" for i in column.working]
    plumbing = sorted({i.opcode for i in column.instructions if i.plumbing})
    if plumbing:
        lines.append(label("field.plumbing", lang).format(count=len(column.instructions) - len(column.working),
                                                          kinds="/".join(plumbing)))
    return "\n".join(lines)


def also_text(instruction: InstructionComparison, lang: str = "en") -> str:
    """` (also dense_1)` for an instruction shared with other layers, else ""."""
    if not instruction.also_layers:
        return ""
    return f" ({label('compare.also', lang)} {','.join(instruction.also_layers)})"


def kernels_text(column: TargetLayer, lang: str = "en") -> str:
    """Each kernel with its kind and, where recorded, its launch grid and block."""
    kernels = []
    for k in column.kernels:
        launch = (f" {label('field.grid', lang)} {'x'.join(map(str, k.launch.grid))} "
                  f"{label('field.block', lang)} {'x'.join(map(str, k.launch.block))}" if k.launch else "")
        kernels.append(f"{k.name} ({k.kind}){launch}")
    return "\n".join(kernels) or label("compare.none", lang)


def bytes_text(column: TargetLayer, lang: str = "en") -> str:
    """`bytes / padded`: the layer's output bytes, then with the target's tile padding."""
    return f"{format_bytes(column.bytes, lang)} / {format_bytes(column.padded_bytes, lang)}"


def flops_text(column: TargetLayer, lang: str = "en") -> str:
    return f"{format_count(column.flops, lang)} ({label('compare.shapes', lang)})"


def estimate_text(column: TargetLayer, lang: str = "en") -> str:
    """The roofline ESTIMATE and how many instructions are memory- or compute-bound; or why there is none."""
    if column.estimated_seconds is None:
        return label("compare.no_peaks", lang)
    bound = [i.estimate.bound for i in column.instructions if i.estimate is not None]
    counts = ", ".join(label("compare.bound", lang).format(count=bound.count(b), kind=label(f"compare.{b}", lang))
                       for b in ("memory", "compute") if b in bound)
    return f"{format_seconds(column.estimated_seconds, lang)} ({counts})"


def figure_notes(summaries: list[TargetSummary], comparison: LayerComparison | None, held: tuple[str, ...],
                 lang: str = "en") -> list[str]:
    """Which published figures each estimate used, how to capture the targets missing (`held`: the
    bundle's targets), and why a held target's column is empty."""
    notes = []
    for summary in summaries:
        if summary.estimate_note:
            notes.append(f"{summary.target}: {summary.estimate_note}")
        if summary.kernels_note:
            notes.append(f"{summary.target} {label('compare.row.kernels', lang)}: {summary.kernels_note}")
        if summary.capture_hint:
            notes.append(f"{summary.target} {label('state.not_captured', lang)}: {summary.capture_hint}")
    if comparison is not None:
        notes += [f"{column.target}: {column.status}" for column in comparison.targets
                  if column.captured is False and column.target in held]
    return notes


def library_text(column: TargetLayer, lang: str = "en") -> str:
    """Each distinct call once, with how many of the layer's instructions make it when more than one."""
    counts: dict[str, int] = {}
    for c in column.library_calls:
        name = f"{c.family} {c.name}" if c.name else f"{c.family} ({label('compare.symbol_not_recorded', lang)})"
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name + (f" x{n}" if n > 1 else "") for name, n in counts.items()) or label("compare.none", lang)


def vector_text(column: TargetLayer, lang: str = "en") -> str:
    """Each kernel's widest SIMD register, its lanes, how many vector registers and machine instructions it
    uses ("" when none recorded): x86's `zmm` beside NEON's `v4.4s` in one wording."""
    def kernel_text(kernel) -> str:
        details = [label("compare.lanes", lang).format(lanes=kernel.lanes, bits=kernel.lane_bits)] if kernel.lanes \
            else []
        if kernel.vector_registers:
            count = kernel.register_count or len(kernel.vector_registers)
            details.append(label("compare.vector_registers", lang).format(count=count))
        if kernel.instructions:
            details.append(label("compare.instructions", lang).format(count=kernel.instructions))
        return f"{kernel.name} {kernel.vector_width_bits}-bit" + (f" ({', '.join(details)})" if details else "")

    return "; ".join(kernel_text(k) for k in column.kernels if k.vector_width_bits)


def decision_text(column: TargetLayer, lang: str = "en") -> str:
    """What the target's compiler made of the layer, in one line: `TVM made 2: reshape (reshape),
    fused_conv2d_relu (fusion conv2d+relu)` beside `XLA made 2: ...` ("" when nothing was captured)."""
    if not column.captured or not column.working:
        return ""
    spec = TARGETS.get(column.target)
    compiler = spec.compiler.upper() if spec is not None else column.target
    items = ", ".join(f"{i.name} ({instruction_kind(i)})" for i in column.working)
    return label("compare.decided", lang).format(compiler=compiler, count=len(column.working), items=items)


def operation_text(instruction: InstructionComparison) -> str:
    """What an instruction does: its opcode and fusion kind. A custom call's target is said on the
    library-calls row (and in `decision_text`), not a third time in a narrow column."""
    return instruction.opcode + (f" {instruction.fusion_kind}" if instruction.fusion_kind else "")


def instruction_kind(instruction: InstructionComparison) -> str:
    """An instruction in one phrase for `decision_text`: its fusion kind or custom-call target, else its opcode."""
    if instruction.fusion_kind:
        return f"fusion {instruction.fusion_kind}"
    if instruction.custom_call_target:
        return f"custom-call {instruction.custom_call_target}"
    return instruction.opcode


def layout_text(instruction: InstructionComparison) -> str:
    return "; ".join(o.shape for o in instruction.outputs) or MISSING


def layer_rows(column: TargetLayer) -> list[tuple[str, ...]]:
    """One row per instruction of the layer on one target."""
    rows = []
    for i in column.instructions:
        bytes_ = sum(o.bytes or 0 for o in i.outputs)
        padded = sum(o.padded_bytes or 0 for o in i.outputs)
        est = i.estimate
        rows.append((
            i.name + also_text(i),
            operation_text(i), ",".join(i.kernels) or MISSING, layout_text(i),
            format_bytes(bytes_), format_bytes(padded), format_count(i.flops) if i.flops else MISSING,
            f"{format_seconds(est.seconds)} {est.bound}" if est else MISSING,
        ))
    return rows


LAYER_HEADER = ("instruction", "kind", "kernels", "output layout", "bytes", "padded", "FLOPs", "est. time")


# --- the command's output ---------------------------------------------------------------------


def compare_data(bundle: Bundle, layer: str | None) -> dict[str, Any]:
    targets = comparison_targets(bundle)
    data: dict[str, Any] = {
        "schema_version": JSON_SCHEMA_VERSION, "model": bundle.model_name, "targets": list(targets),
        "summaries": [to_jsonable(target_summary(bundle, t)) for t in targets],
        "layer": to_jsonable(layer_comparison(bundle, layer)) if layer else None,
    }
    if layer:  # 1 chip vs 2x2 vs 4x4 on each target that compiles for a mesh (explorer.views.compare.mesh)

        columns = layer_comparison(bundle, layer).targets  # the compare screen's "decided" and "vector code"
        data["decisions"] = [{"target": c.target, "decided": decision_text(c), "vector_code": vector_text(c)}
                             for c in columns]

        data["meshes"] = {target: to_jsonable(mesh_comparison(bundle, target, layer))
                          for target in bundle.targets if meshable(target)}
    return data


def as_json(bundle: Bundle, layer: str | None) -> str:
    return json.dumps(compare_data(bundle, layer), indent=1)


def as_text(bundle: Bundle, layer: str | None) -> str:
    summaries = [target_summary(bundle, t) for t in comparison_targets(bundle)]
    header = ("", *(s.target for s in summaries))
    lines = [f"{bundle.model_name} on {len(summaries)} targets",
             _table(header, [(name, *cells) for name, cells in summary_rows(summaries)]), ""]
    comparison = layer_comparison(bundle, layer) if layer else None
    layer_heading = f"{comparison.layer} ({comparison.class_name})" if comparison is not None else ""
    for column in comparison.targets if comparison is not None else ():
        lines.append(f"{layer_heading} on {column.target} ({column.display_name})")
        cells = dict(zip(LAYER_ROWS, layer_cells(column), strict=True))
        if not column.captured or not column.instructions:
            lines += [f"  {cells['decided']}", ""]
            continue
        lines.append(_indent(_table(LAYER_HEADER, layer_rows(column))))
        lines += [f"  {label(f'compare.row.{key}', 'en')}: {'; '.join(cells[key].splitlines())}"
                  for key in LAYER_ROWS if key not in _LISTED_BY_INSTRUCTION]
        lines.append("")
    notes = figure_notes(summaries, comparison, bundle.targets)
    lines += ["Figures:", *(f"  {n}" for n in notes)]
    return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]
    # Every row has one cell per header column (summary_rows: one per target; layer_rows: LAYER_HEADER's).
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines)
