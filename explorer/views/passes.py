"""What the filmstrip shows: the one place the screen (`screens/passes.py`) and
`tensorweg passes` get their rows, diff lines, narration and follow sentences from.
Textual-free; reads only `explorer.model.passes` and the course texts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.model.passes import (
    DiffLine,
    Filmstrip,
    FollowStep,
    PassDiff,
    PassRow,
    diff,
    follow,
    main_instruction_of_layer,
    narration_key,
    pipeline_text,
)
from explorer.model.passes_grappler import GRAPPLER
from explorer.targets import COMPILERS_INSTALL_HINT
from explorer.texts.lookup import explain_topic, has_topic
from explorer.views import suggested
from explorer.views.format import format_int

# Column labels (explorer.labels `passes.column.*`). The pipeline goes last: its names are
# long, and at 80 columns the counts must stay visible.
COLUMNS = ("#", "pass", "instructions_before", "after", "fusions", "temp_bytes", "pipeline")
# Grappler's film counts graph nodes and fused ops (`_FusedConv2D`...); no buffers are assigned,
# so it has no temporaries column.
GRAPPLER_COLUMNS = ("#", "optimizer", "nodes_before", "after", "fused", "iteration")
_UNKNOWN = {
    "en": "No narration for this pass yet: the course does not explain {name}. The diff shows what it changed.",
    "de": ("Zu diesem Pass gibt es noch keinen Text: Der Kurs erklärt {name} nicht. "
           "Der Diff zeigt, was er geändert hat."),
}


def columns(strip: Filmstrip, lang: str = "en") -> tuple[str, ...]:
    keys = GRAPPLER_COLUMNS if strip.index.film == GRAPPLER else COLUMNS
    return tuple(key if key == "#" else label(f"passes.column.{key}", lang) for key in keys)


def filmstrip(bundle, target: str, lang: str = "en") -> Filmstrip:
    """The target's filmstrip, or with target "grappler" the graph's; TensorwegError (one line)
    when the bundle has none."""
    if target != GRAPPLER and target not in bundle.targets:
        raise TensorwegError(label("passes.no_target", lang).format(target=repr(target),
                                                                     targets=", ".join(bundle.targets)))
    strip = bundle.passes(target)
    if strip is None or len(strip) == 0:
        raise TensorwegError(label("passes.no_grappler", lang) if target == GRAPPLER
                             else label("passes.no_passes", lang).format(target=target))
    return strip


@dataclass(frozen=True)
class MissingFilm:
    """What the filmstrip says when the bundle holds no frames of a film: `title` short enough for
    an 80-column title line, `body` the reason, the exact command that captures the frames and,
    when the app can start that capture itself (`can_capture`), the key that does."""

    title: str
    body: str
    command: str
    can_capture: bool


def missing_film(bundle, film: str, model: str, can_capture: bool, lang: str = "en") -> MissingFilm | None:
    """None when `film` has frames in the bundle (or the bundle lacks the target, which
    `filmstrip` says); else how to get them. `model` as the learner names it (the app's model,
    else the bundle's sample or module:function, else its file name: never an absolute path)."""
    if film != GRAPPLER and film not in bundle.targets:
        return None
    strip = bundle.passes(film)
    if strip is not None and len(strip) > 0:
        return None
    command = suggested.open_with_passes(bundle, model)
    reason = label("passes.no_grappler", lang) if film == GRAPPLER else \
        label("passes.no_passes", lang).format(target=film)
    how = label("passes.capture_with", lang)
    if not suggested.compilers_installed():  # the UI alone: the command needs the compilers first
        how = label("passes.install_then_capture", lang).format(install=COMPILERS_INSTALL_HINT)
        can_capture = False
    lines = [reason, "", how, f"  {command}"]
    if can_capture:
        lines += ["", label("passes.capture_key", lang)]
    return MissingFilm(label("passes.missing_title", lang).format(film=shown_name(film, lang)),
                       "\n".join(lines), command, can_capture)


def shown_name(target: str, lang: str = "en") -> str:
    """What the film is of: a target's XLA pipeline, or Grappler's."""
    return label("passes.grappler_film", lang) if target == GRAPPLER else target


def title(bundle, target: str, strip: Filmstrip, lang: str = "en") -> str:
    """The screen's top line: model, film, frame count and what is known of per-pass time."""
    note = label("passes.note_grappler" if target == GRAPPLER else "passes.note_xla", lang)
    return label("passes.title", lang).format(model=bundle.model_name, film=shown_name(target, lang),
                                              count=len(strip), note=note)


def cells(row: PassRow, film: str = "xla", lang: str = "en") -> tuple[str, ...]:
    """One row of the list as the table and the text output print it, one cell per `columns()`."""
    counts = (str(row.number), row.pass_name, str(row.instructions_before), str(row.instructions_after),
              str(row.fusions))
    if film == GRAPPLER:
        return (*counts, pipeline_text(row.pipeline, lang) or "-")
    temp = "-" if row.temp_bytes is None else format_int(row.temp_bytes, lang)
    return (*counts, temp, row.pipeline or "-")


def narration(pass_name: str, lang: str = "en", film: str = "xla") -> tuple[str, str, str]:
    """(title, body, source) of a pass's (or Grappler optimizer's) course text; unknown passes say so (source "")."""
    key = narration_key(pass_name, film)
    if not has_topic(key, lang):
        return pass_name, _UNKNOWN.get(lang, _UNKNOWN["en"]).format(name=pass_name), ""
    text = explain_topic(key, lang)
    return text.title, text.body, text.source


def diff_of(strip: Filmstrip, number: int) -> PassDiff:
    return diff(strip, number)


def summary(result: PassDiff, lang: str = "en") -> str:
    """`+34 -17 ~2 in 6 computations` (frame 0: the module before any pass)."""
    if result.number == 0:
        return label("passes.before_any_pass", lang)
    key = "passes.summary_one" if len(result.computations) == 1 else "passes.summary"
    return label(key, lang).format(added=len(result.added), removed=len(result.removed),
                                   changed=len(result.changed), count=len(result.computations))


def line_text(line: DiffLine, lang: str = "en") -> str:
    """A diff line as shown: a computation header says whether it is new, gone or changed."""
    if line.kind == "computation":
        return f"{line.text} ({label(f'passes.state.{line.state}', lang)})"
    return line.text


def unified_text(result: PassDiff, lang: str = "en") -> str:
    """The diff as plain unified-style text (`+`, `-`, `@@ computation (state)`), for the CLI and tests."""
    return "\n".join(_MARKS[line.kind] + line_text(line, lang) for line in result.lines)


def describe(strip: Filmstrip, number: int, lang: str = "en") -> str:
    """`fusion` in `HLO_passes_after_layout_assignment` (frame 6 of 8)."""
    return strip.describe(number, lang)


def follow_sentence(strip: Filmstrip, step: FollowStep, lang: str = "en") -> str:
    """What happened to the followed thing in `step`'s frame, in `lang`."""
    key, fields = step.words
    return label(key, lang).format(at=describe(strip, step.frame, lang), **fields)


def follow_target(strip: Filmstrip, bundle, target: str, thing: str, lang: str = "en") -> list[FollowStep]:
    """Follow an instruction name, or a layer name (its main instruction), through the frames."""
    if (not any(strip.frame(n).find(thing) for n in (0, len(strip) - 1))
            and thing in {layer.name for layer in bundle.layers}):
        scopes = bundle.scopes.get(target) or bundle.scopes.get("graph") or {}
        name = main_instruction_of_layer(strip, scopes, thing)
        if name is None:
            raise TensorwegError(label("passes.layer_without_instruction", lang).format(name=repr(thing)))
        thing = name
    return follow(strip, thing, lang)


def fusion_frame(steps: list[FollowStep]) -> FollowStep | None:
    """The first step where the followed work joined a fusion (fused into one, or a cuDNN call or fusion reads it)."""
    return next((s for s in steps if s.kind in ("fused", "feeds") or
                 (s.kind == "rewritten" and "Activation" in s.sentence)), None)


def as_text(bundle, target: str, frame: int | None = None, thing: str | None = None, lang: str = "en") -> str:
    strip = filmstrip(bundle, target, lang)
    header = columns(strip, lang)
    what = label("passes.optimizer_runs" if target == GRAPPLER else "passes.snapshots_dumped", lang)
    out = [label("passes.text_header", lang).format(model=bundle.model_name, film=shown_name(target, lang),
                                                   count=len(strip), dumped=strip.index.snapshots_dumped, what=what),
           label("passes.grappler_time" if target == GRAPPLER else "passes.compile_time", lang), ""]
    rows = [cells(row, strip.index.film, lang) for row in strip.rows()]
    widths = [max(len(c[i]) for c in rows + [header]) for i in range(len(header))]
    for line in [header] + rows:
        # cells() gives one cell per column, as many as the header and the widths.
        out.append("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    if frame is not None:
        _check_frame(strip, frame, lang)
        result = diff(strip, frame)
        out += ["", label("passes.frame_diff", lang).format(number=frame, describe=describe(strip, frame, lang),
                                                            summary=summary(result, lang)),
                unified_text(result, lang)]
    if thing is not None:
        steps = follow_target(strip, bundle, target, thing, lang)
        out += [""] + [follow_sentence(strip, step, lang) for step in steps]
    return "\n".join(out)


def as_json(bundle, target: str, frame: int | None = None, thing: str | None = None, lang: str = "en") -> str:
    strip = filmstrip(bundle, target, lang)
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
        _check_frame(strip, frame, lang)
        result = diff(strip, frame)
        data["diff"] = {"frame": frame, "added": list(result.added), "removed": list(result.removed),
                        "changed": list(result.changed), "computations": list(result.computations)}
    if thing is not None:
        data["follow"] = [{"frame": s.frame, "kind": s.kind, "name": s.name,
                           "sentence": follow_sentence(strip, s, lang), "into": s.into}
                          for s in follow_target(strip, bundle, target, thing, lang)]
    return json.dumps(data, indent=1)


def _check_frame(strip: Filmstrip, frame: int, lang: str) -> None:
    if not 0 <= frame < len(strip):
        raise TensorwegError(label("passes.bad_frame", lang).format(frame=frame, last=len(strip) - 1))


# How a diff line starts in text: `@@` a computation, `+` added (or a change's new line), `-` removed.
_MARKS = {"computation": "@@ ", "added": "+ ", "removed": "- ", "changed-from": "- ", "changed-to": "+ "}



# From this many columns the screen shows a pass's diff side by side (old left, new right).
SIDE_BY_SIDE_COLUMNS = 160


def side_by_side(result: PassDiff, lang: str = "en") -> list[tuple[str, str, str]]:
    """(before, after, kind) rows: a changed instruction on one row, removed lines left, added right."""
    rows: list[tuple[str, str, str]] = []
    pending_from = ""
    for line in result.lines:
        if line.kind == "computation":
            rows.append((line_text(line, lang), line_text(line, lang), "computation"))
        elif line.kind == "changed-from":
            pending_from = line.text
        elif line.kind == "changed-to":
            rows.append((pending_from, line.text, "changed"))
        elif line.kind == "removed":
            rows.append((line.text, "", "removed"))
        else:
            rows.append(("", line.text, "added"))
    return rows
