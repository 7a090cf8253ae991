"""What the filmstrip shows: the one place the screen (`screens/passes.py`) and
`tensorweg passes` get their rows, diff lines, narration and follow sentences from.
Textual-free; reads only `explorer.passes` and the course texts.
"""

from __future__ import annotations

import json

from explorer.errors import TensorwegError
from explorer.passes import Filmstrip, FollowStep, PassDiff, PassRow, diff, follow, main_instruction_of_layer
from explorer.passes_grappler import GRAPPLER

# The pipeline goes last: its names are long, and at 80 columns the counts must stay visible.
COLUMNS = ("#", "pass", "instr. before", "after", "fusions", "temp bytes", "pipeline")
# Grappler's film counts graph nodes and fused ops (`_FusedConv2D`...); no buffers are assigned,
# so it has no temporaries column.
GRAPPLER_COLUMNS = ("#", "optimizer", "nodes before", "after", "fused", "iteration")
_UNKNOWN = {
    "en": "No narration for this pass yet: the course does not explain {name}. The diff shows what it changed.",
    "de": ("Zu diesem Pass gibt es noch keinen Text: der Kurs erklärt {name} nicht. "
           "Der Diff zeigt, was er geändert hat."),
}
NO_PASSES = "no per-pass snapshots for {target} in this bundle: capture it with --passes"
NO_GRAPPLER = "no Grappler frames in this bundle: capture it with --passes"
COMPILE_TIME_NOTE = "per-pass compile time: not reported (XLA's dump carries none)"
GRAPPLER_TIME_NOTE = "per-optimizer time: not recorded (each optimizer is run on its own to see its graph)"
GRAPPLER_TITLE = "Grappler (TensorFlow graph)"


def columns(strip: Filmstrip) -> tuple[str, ...]:
    return GRAPPLER_COLUMNS if strip.index.film == GRAPPLER else COLUMNS


def filmstrip(bundle, target: str) -> Filmstrip:
    """The target's filmstrip, or with target "grappler" the graph's; TensorwegError (one line)
    when the bundle has none."""
    if target != GRAPPLER and target not in bundle.targets:
        raise TensorwegError(f"target {target!r} is not in this bundle (it has {', '.join(bundle.targets)})")
    strip = bundle.passes(target)
    if strip is None or len(strip) == 0:
        raise TensorwegError(NO_GRAPPLER if target == GRAPPLER else NO_PASSES.format(target=target))
    return strip


def shown_name(target: str) -> str:
    """What the film is of: a target's XLA pipeline, or Grappler's."""
    return GRAPPLER_TITLE if target == GRAPPLER else target


def cells(row: PassRow, film: str = "xla") -> tuple[str, ...]:
    """One row of the list as the table and the text output print it, one cell per `columns()`."""
    counts = (str(row.number), row.pass_name, str(row.instructions_before), str(row.instructions_after),
              str(row.fusions))
    if film == GRAPPLER:
        return (*counts, row.pipeline or "-")
    temp = "-" if row.temp_bytes is None else f"{row.temp_bytes:,}"
    return (*counts, temp, row.pipeline or "-")


def narration(pass_name: str, lang: str = "en", film: str = "xla") -> tuple[str, str, str]:
    """(title, body, source) of a pass's (or Grappler optimizer's) course text; unknown passes say so (source "")."""
    from explorer.course.lookup import explain_topic, has_topic
    from explorer.passes import narration_key

    key = narration_key(pass_name, film)
    if not has_topic(key, lang):
        return pass_name, _UNKNOWN.get(lang, _UNKNOWN["en"]).format(name=pass_name), ""
    text = explain_topic(key, lang)
    return text.title, text.body, text.source


def diff_of(strip: Filmstrip, number: int) -> PassDiff:
    return diff(strip, number)


def summary(result: PassDiff) -> str:
    """`+34 -17 ~2 in 6 computations` (frame 0: the module before any pass)."""
    if result.number == 0:
        return "the module before any pass"
    return (f"+{len(result.added)} -{len(result.removed)} ~{len(result.changed)} "
            f"in {len(result.computations)} computation{'s' if len(result.computations) != 1 else ''}")


def follow_target(strip: Filmstrip, bundle, target: str, thing: str) -> list[FollowStep]:
    """Follow an instruction name, or a layer name (its main instruction), through the frames."""
    if (not any(strip.frame(n).find(thing) for n in (0, len(strip) - 1))
            and thing in {layer.name for layer in bundle.layers}):
        scopes = bundle.scopes.get(target) or bundle.scopes.get("graph") or {}
        name = main_instruction_of_layer(strip, scopes, thing)
        if name is None:
            raise TensorwegError(f"layer {thing!r} has no instruction in this filmstrip")
        thing = name
    return follow(strip, thing)


def fusion_frame(steps: list[FollowStep]) -> FollowStep | None:
    """The first step where the followed work joined a fusion (fused into one, or a cuDNN call or fusion reads it)."""
    return next((s for s in steps if s.kind in ("fused", "feeds") or
                 (s.kind == "rewritten" and "Activation" in s.sentence)), None)


def as_text(bundle, target: str, frame: int | None = None, thing: str | None = None) -> str:
    strip = filmstrip(bundle, target)
    header = columns(strip)
    what = "optimizer runs" if target == GRAPPLER else "snapshots dumped"
    out = [f"{bundle.model_name} on {shown_name(target)}: {len(strip)} frames "
           f"({strip.index.snapshots_dumped} {what}; unchanged ones dropped)",
           GRAPPLER_TIME_NOTE if target == GRAPPLER else COMPILE_TIME_NOTE, ""]
    rows = [cells(row, strip.index.film) for row in strip.rows()]
    widths = [max(len(c[i]) for c in rows + [header]) for i in range(len(header))]
    for line in [header] + rows:
        # cells() gives one cell per column, as many as the header and the widths.
        out.append("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    if frame is not None:
        from explorer.passes import unified_text

        _check_frame(strip, frame)
        result = diff(strip, frame)
        out += ["", f"frame {frame}: {strip.describe(frame)}: {summary(result)}", unified_text(result)]
    if thing is not None:
        out += [""] + [step.sentence for step in follow_target(strip, bundle, target, thing)]
    return "\n".join(out)


def as_json(bundle, target: str, frame: int | None = None, thing: str | None = None) -> str:
    strip = filmstrip(bundle, target)
    data: dict = {
        "model": bundle.model_name, "target": target, "film": strip.index.film,
        "snapshots_dumped": strip.index.snapshots_dumped,
        "compile_seconds": None,  # XLA's dump reports no per-pass time; Grappler's is not recorded
        "frames": [{"number": r.number, "pipeline": r.pipeline, "pass": r.pass_name,
                    "instructions_before": r.instructions_before, "instructions_after": r.instructions_after,
                    "fusions": r.fusions, "temp_bytes": r.temp_bytes, "narration": r.narration_key}
                   for r in strip.rows()],
    }
    if frame is not None:
        _check_frame(strip, frame)
        result = diff(strip, frame)
        data["diff"] = {"frame": frame, "added": list(result.added), "removed": list(result.removed),
                        "changed": list(result.changed), "computations": list(result.computations)}
    if thing is not None:
        data["follow"] = [{"frame": s.frame, "kind": s.kind, "name": s.name, "sentence": s.sentence,
                           "into": s.into} for s in follow_target(strip, bundle, target, thing)]
    return json.dumps(data, indent=1)


def _check_frame(strip: Filmstrip, frame: int) -> None:
    if not 0 <= frame < len(strip):
        raise TensorwegError(f"bad --frame {frame}: this filmstrip has frames 0 to {len(strip) - 1}")



# From this many columns the screen shows a pass's diff side by side (old left, new right).
SIDE_BY_SIDE_COLUMNS = 160


def side_by_side(result: PassDiff) -> list[tuple[str, str, str]]:
    """(before, after, kind) rows: a changed instruction on one row, removed lines left, added right."""
    rows: list[tuple[str, str, str]] = []
    pending_from = ""
    for line in result.lines:
        if line.kind == "computation":
            rows.append((line.text, line.text, "computation"))
        elif line.kind == "changed-from":
            pending_from = line.text
        elif line.kind == "changed-to":
            rows.append((pending_from, line.text, "changed"))
        elif line.kind == "removed":
            rows.append((line.text, "", "removed"))
        else:
            rows.append(("", line.text, "added"))
    return rows
