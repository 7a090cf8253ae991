"""The compiler at work: a bundle's per-pass snapshots as a filmstrip (list, diff, follow).

Reads `targets/<t>/passes/` (written by `explorer.model.passes_dump`). Module texts are read
lazily and split into computations and instruction lines by a small line reader
(`explorer.hlo.scan.computations`), not the full HLO parser: a diff needs names, opcodes,
op_names and the lines themselves, and a step through a ResNet50's frames must stay well under
50 ms (bench/bench_passes.py). Textual-free.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import DataError, TensorwegError
from explorer.hlo.scan import computations, custom_call_target, layouts, operand_finder
from explorer.labels import label
from explorer.model.passes_dump import PASSES_DIR, PassFrame, PassIndex, read_pass_index, read_pass_texts

# Instructions that only carry a value along: never the successor of rewritten work.
_PLUMBING = frozenset({"get-tuple-element", "tuple", "bitcast", "copy", "reshape", "parameter", "constant"})


@dataclass(frozen=True)
class Line:
    """One instruction of a frame. text: the line without its metadata (what the diff shows)."""

    name: str
    opcode: str
    shape: str
    op_name: str
    text: str
    calls: str = ""
    fusion_kind: str = ""


@dataclass(frozen=True)
class Frame:
    """One frame's module: computations in order, name -> instructions in order."""

    computations: dict[str, tuple[Line, ...]]
    fused_by: dict[str, Line]  # fused computation -> the fusion instruction that calls it

    def find(self, name: str) -> tuple[str, Line] | None:
        for computation, lines in self.computations.items():
            for line in lines:
                if line.name == name:
                    return computation, line
        return None

    def find_successor(self, op_name: str) -> tuple[str, Line] | None:
        """What does the same work after a rewrite to another opcode (a convolution that became a
        cuDNN custom call keeps its op_name)."""
        if not op_name:
            return None
        for computation, lines in self.computations.items():
            for line in lines:
                if line.op_name == op_name and line.opcode not in _PLUMBING:
                    return computation, line
        return None

    def find_like(self, opcode: str, op_name: str) -> tuple[str, Line] | None:
        """The same work under another name (passes clone instructions when they fuse them)."""
        if not op_name:
            return None
        for computation, lines in self.computations.items():
            for line in lines:
                if line.opcode == opcode and line.op_name == op_name:
                    return computation, line
        return None


def read_frame(text: str) -> Frame:
    found = computations(text, Line)
    fused_by = {line.calls: line for lines in found.values() for line in lines if line.calls}
    return Frame({name: tuple(lines) for name, lines in found.items()}, fused_by)


# --- the list ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PassRow:
    """One row of the filmstrip's list. temp_bytes: None where no figure is known (every
    frame but the last: XLA assigns buffers only after the passes)."""

    number: int
    pipeline: str
    pass_name: str
    instructions_before: int
    instructions_after: int
    fusions: int
    temp_bytes: int | None
    narration_key: str


def narration_key(pass_name: str, film: str = "xla") -> str:
    """The course key of a pass's text (`pass:priority-fusion`, `grappler:constant_folding`:
    XLA and Grappler both have a `constant_folding`)."""
    return f"{'grappler' if film == 'grappler' else 'pass'}:{pass_name}"


class Filmstrip:
    """One target's frames. Texts are decompressed on the first diff; frames parsed on demand."""

    def __init__(self, passes_dir: Path, index: PassIndex, temp_bytes: int | None = None,
                 reader: Callable[[str], Frame] = read_frame) -> None:
        self.passes_dir = passes_dir
        self.index = index
        self.temp_bytes = temp_bytes
        self.reader = reader  # HLO modules; Grappler's graphs: explorer.model.passes_grappler.read_graph_frame
        self._texts: list[str] | None = None
        self._frames: dict[int, Frame] = {}

    @property
    def frames(self) -> tuple[PassFrame, ...]:
        return self.index.frames

    def __len__(self) -> int:
        return len(self.index.frames)

    def rows(self) -> list[PassRow]:
        rows = []
        last = len(self.frames) - 1
        for number, frame in enumerate(self.frames):
            before = self.frames[number - 1].instructions if number else frame.instructions
            rows.append(PassRow(number, frame.pipeline, frame.pass_name, before, frame.instructions,
                                frame.fusions, self.temp_bytes if number == last else None,
                                narration_key(frame.pass_name, self.index.film)))
        return rows

    def text(self, number: int) -> str:
        if self._texts is None:
            self._texts = read_pass_texts(self.passes_dir)
            if len(self._texts) != len(self.frames):
                raise DataError(f"{PASSES_DIR}: {len(self._texts)} module texts for {len(self.frames)} frames")
        return self._texts[number]

    def frame(self, number: int) -> Frame:
        if number not in self._frames:
            self._frames[number] = self.reader(self.text(number))
        return self._frames[number]

    def describe(self, number: int, lang: str = "en") -> str:
        """`fusion` in `HLO_passes_after_layout_assignment` (frame 6 of 8)."""
        frame = self.frames[number]
        key = "passes.describe_in" if frame.pipeline else "passes.describe"
        return label(key, lang).format(name=frame.pass_name, pipeline=pipeline_text(frame.pipeline, lang),
                                       number=number, last=len(self.frames) - 1)


# Grappler's frames are stored with the meta optimizer's round as their pipeline (`iteration 2`,
# explorer.capture.tf_grappler_film); XLA's pipelines are XLA's own names and stay as written.
_ITERATION = re.compile(r"^iteration (\d+)$")


def pipeline_text(pipeline: str, lang: str = "en") -> str:
    match = _ITERATION.match(pipeline)
    return label("passes.iteration", lang).format(number=match[1]) if match else pipeline


def read_filmstrip(target_dir: Path, temp_bytes: int | None = None) -> Filmstrip | None:
    """The filmstrip stored under `target_dir/passes/`, or None when the capture had no `--passes`."""
    passes_dir = target_dir / PASSES_DIR
    index = read_pass_index(passes_dir)
    return None if index is None else Filmstrip(passes_dir, index, temp_bytes)


# --- the diff of one pass ----------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    """kind: "computation" (a header), "added", "removed", "changed-from", "changed-to".
    state: a header's "new", "gone" or "changed" (worded by `pass_view.line_text`)."""

    kind: str
    text: str
    state: str = ""


@dataclass(frozen=True)
class PassDiff:
    number: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]
    computations: tuple[str, ...]  # changed computations only, in the new frame's order
    lines: tuple[DiffLine, ...]


def diff(strip: Filmstrip, number: int) -> PassDiff:
    """What pass `number` changed against the frame before it (frame 0: nothing before it)."""
    if not 0 <= number < len(strip):
        raise IndexError(f"frame {number} of {len(strip) - 1}")
    if number == 0:
        return PassDiff(0, (), (), (), (), ())
    return _diff_frames(number, strip.frame(number - 1), strip.frame(number))


def _diff_frames(number: int, old: Frame, new: Frame) -> PassDiff:
    added: list[str] = []
    removed: list[str] = []
    changed: list[str] = []
    computations: list[str] = []
    lines: list[DiffLine] = []
    names = list(new.computations) + [c for c in old.computations if c not in new.computations]
    for computation in names:
        before = old.computations.get(computation, ())
        after = new.computations.get(computation, ())
        block = _diff_computation(before, after, added, removed, changed)
        if block:
            state = "new" if not before else "gone" if not after else "changed"
            computations.append(computation)
            lines.append(DiffLine("computation", computation, state))
            lines.extend(block)
    return PassDiff(number, tuple(added), tuple(removed), tuple(changed), tuple(computations), tuple(lines))


def _diff_computation(before, after, added, removed, changed) -> list[DiffLine]:
    old_names = [line.name for line in before]
    new_names = [line.name for line in after]
    block: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, old_names, new_names, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            # An "equal" run has the same names on both sides, so the slices are as long as each other.
            for old, new in zip(before[i1:i2], after[j1:j2], strict=True):
                if old.text != new.text:
                    changed.append(new.name)
                    block += [DiffLine("changed-from", old.text), DiffLine("changed-to", new.text)]
            continue
        for old in before[i1:i2]:
            removed.append(old.name)
            block.append(DiffLine("removed", old.text))
        for new in after[j1:j2]:
            added.append(new.name)
            block.append(DiffLine("added", new.text))
    return block


# --- follow one thing --------------------------------------------------------------------------


@dataclass(frozen=True)
class FollowStep:
    """What happened to the followed instruction in one frame.

    kind: "created", "fused", "moved", "rewritten", "feeds" (its result goes into a new fusion),
    "layout", "changed", "renamed", "removed", "rematerialised" (a jax.checkpoint recomputation).
    into: the fusion instruction it went into ("fused", "moved"), with its kind; for
    "rematerialised" the other copy (the forward instruction, or its recomputation).
    """

    frame: int
    kind: str
    name: str
    words: tuple[str, dict]  # (label key `passes.follow.*`, its fields; `at` is filled with describe())
    into: str = ""
    fusion_kind: str = ""
    at: str = ""  # the frame's description in English (`pass_view.follow_sentence` words it in any language)

    @property
    def sentence(self) -> str:
        key, fields = self.words
        return label(key, "en").format(at=self.at, **fields)


def _where(frame: Frame, name: str, opcode: str, op_name: str) -> tuple[str, Line] | None:
    return frame.find(name) or frame.find_like(opcode, op_name)


def follow(strip: Filmstrip, name: str, lang: str = "en") -> list[FollowStep]:
    """Every frame where `name` (an instruction of any frame) was created, changed, fused or removed."""
    start = next((n for n in range(len(strip)) if strip.frame(n).find(name)), None)
    if start is None:
        raise TensorwegError(label("passes.no_instruction", lang).format(name=repr(name)))
    found = strip.frame(start).find(name)
    assert found is not None  # `start` is the first frame that has it
    _computation, first = found
    opcode, op_name = first.opcode, first.op_name
    steps = rematerialised(strip, start, first)
    if start > 0:
        steps.append(FollowStep(start, "created", name, ("passes.follow.created", {"name": name, "opcode": opcode}),
                                at=strip.describe(start)))
    previous: tuple[str, Line] | None = strip.frame(start).find(name)
    current = name
    for number in range(start + 1, len(strip)):
        frame = strip.frame(number)
        now = _where(frame, current, opcode, op_name)
        if now is None and (successor := frame.find_successor(op_name)) is not None:
            line = successor[1]
            target = custom_call_target(line.text)
            what = f"{line.opcode} {target}" if target else line.opcode
            steps.append(FollowStep(number, "rewritten", line.name,
                                    ("passes.follow.rewritten_as",
                                     {"name": current, "opcode": opcode, "new": line.name, "what": what}),
                                    at=strip.describe(number)))
            current, previous, opcode = line.name, successor, line.opcode
            continue
        step = _step(strip, number, frame, previous, now, current, opcode)
        if step is not None:
            steps.append(step)
        if now is None:
            break
        current, previous = now[1].name, now
    return steps


# JAX's jax.checkpoint (`--remat`) puts the recomputation into the module before any XLA pass: the
# backward pass's copy of forward work `<p>/<scope>/<op>` is named `<p>/transpose(<scope>)/<scope>/
# checkpoint/rematted_computation/<op>` and reaches it through an opt-barrier that keeps CSE from
# merging the two (seen on cpu, gpu:h100 and tpu:v5e captures of mnist_cnn --mode train --remat).
_RECOMPUTED = re.compile(r"^(?P<prefix>.*?)transpose\((?P<scope>[^/]+)\)/(?P=scope)/checkpoint/rematted_computation/"
                         r"(?P<op>.+)$")


def _forward_op_name(op_name: str) -> str:
    """The forward op_name a recomputation repeats, or "" when `op_name` is no recomputation."""
    match = _RECOMPUTED.match(op_name)
    return f"{match['prefix']}{match['scope']}/{match['op']}" if match else ""


def rematerialised(strip: Filmstrip, number: int, line: Line) -> list[FollowStep]:
    """The step saying that `line` (in frame `number`) is, or has, a recomputation made by jax.checkpoint."""
    frame = strip.frame(number)
    forward = _forward_op_name(line.op_name)
    if forward:
        twin = next((other for lines in frame.computations.values() for other in lines
                     if other.opcode == line.opcode and other.op_name == forward), None)
        fields = {"name": line.name, "opcode": line.opcode, "forward": forward, "twin": twin.name if twin else ""}
        key = "passes.follow.recomputation_of" if twin else "passes.follow.recomputation"
        return [FollowStep(number, "rematerialised", line.name, (key, fields), twin.name if twin else "")]
    copies = [other for lines in frame.computations.values() for other in lines
              if other.opcode == line.opcode and line.op_name and _forward_op_name(other.op_name) == line.op_name]
    return [FollowStep(number, "rematerialised", line.name,
                       ("passes.follow.recomputed_as", {"name": line.name, "opcode": line.opcode, "copy": copy.name}),
                       copy.name) for copy in copies]


def _step(strip: Filmstrip, number: int, frame: Frame, previous, now, current: str, opcode: str) -> FollowStep | None:
    at = strip.describe(number)
    if now is None:
        return FollowStep(number, "removed", current, ("passes.follow.removed", {"name": current, "opcode": opcode}),
                          at=at)
    (old_computation, old_line), (computation, line) = previous, now
    old_fusion = strip.frame(number - 1).fused_by.get(old_computation)
    fusion = frame.fused_by.get(computation)
    if fusion is not None and (old_fusion is None or old_fusion.name != fusion.name):
        kind = "fused" if old_fusion is None else "moved"
        partners = sorted(_opcodes_within(frame, computation) - {"parameter", "bitcast", "fusion", opcode})
        fields = {"name": line.name, "opcode": opcode, "fusion": fusion.name,
                  "kind": fusion.fusion_kind or "fusion", "partners": ", ".join(partners)}
        key = f"passes.follow.{kind}_with" if partners else f"passes.follow.{kind}"
        return FollowStep(number, kind, line.name, (key, fields), fusion.name, fusion.fusion_kind, at)
    target = custom_call_target(line.text)
    if target and target != custom_call_target(old_line.text):
        return FollowStep(number, "rewritten", line.name,
                          ("passes.follow.calls", {"name": line.name, "target": target}), at=at)
    if line.name != old_line.name:
        return FollowStep(number, "renamed", line.name,
                          ("passes.follow.renamed", {"old": old_line.name, "name": line.name}), at=at)
    feeds = _new_consumer_fusion(strip.frame(number - 1), frame, computation, line.name)
    if feeds is not None:
        ops = sorted({fused.opcode for fused in frame.computations.get(feeds.calls, ())} - {"parameter", "bitcast"})
        fields = {"name": line.name, "fusion": feeds.name, "kind": feeds.fusion_kind or "fusion", "ops": ", ".join(ops)}
        return FollowStep(number, "feeds", line.name, ("passes.follow.feeds", fields), feeds.name, feeds.fusion_kind,
                          at)
    if layouts(line.shape) != layouts(old_line.shape):
        fields = {"name": line.name, "old": layouts(old_line.shape) or "{}", "new": layouts(line.shape)}
        return FollowStep(number, "layout", line.name, ("passes.follow.layout", fields), at=at)
    if line.opcode != old_line.opcode:  # Grappler's constant folding turns a BiasAdd of zeros into an Identity
        return FollowStep(number, "rewritten", line.name,
                          ("passes.follow.became", {"name": line.name, "old": old_line.opcode, "new": line.opcode}),
                          at=at)
    if line.text != old_line.text:
        return FollowStep(number, "changed", line.name, ("passes.follow.changed", {"name": line.name}), at=at)
    return None


def _opcodes_within(frame: Frame, computation: str) -> set[str]:
    """Opcodes of a fused computation and of the fusions nested in it (XLA:TPU nests them)."""
    found: set[str] = set()
    pending, seen = [computation], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in frame.computations.get(name, ()):
            found.add(line.opcode)
            if line.calls:
                pending.append(line.calls)
    return found


def _new_consumer_fusion(old: Frame, new: Frame, computation: str, name: str) -> Line | None:
    """A fusion in `computation` that reads `name` and did not read it in the frame before
    (XLA:CPU leaves a convolution to a library and fuses its bias and activation)."""
    reads = operand_finder(name)

    def readers(frame: Frame) -> dict[str, Line]:
        return {line.name: line for line in frame.computations.get(computation, ())
                if line.opcode == "fusion" and reads(line.text)}
    before = readers(old)
    return next((line for n, line in readers(new).items() if n not in before), None)


def main_instruction_of_layer(strip: Filmstrip, scopes: dict[str, str], layer: str) -> str | None:
    """The instruction of frame 0 that does `layer`'s work (a convolution or dot first, else its
    first computing instruction), found by the layer's recorded name scopes."""
    prefixes = [scope for scope, owner in scopes.items() if owner == layer]
    if not prefixes:
        return None
    candidates = [
        line for lines in strip.frame(0).computations.values() for line in lines
        if any(line.op_name == p or line.op_name.startswith(p + "/") for p in prefixes)
        and line.opcode not in ("parameter", "constant")
    ]
    # XLA's opcodes, and TensorFlow's ops for Grappler's film.
    for preferred in (("convolution", "dot", "Conv2D", "DepthwiseConv2dNative", "MatMul", "BatchMatMulV2"), None):
        for line in candidates:
            if preferred is None or line.opcode in preferred:
                return line.name
    return None
