"""The passport's first hop: the Python lines that made a layer's HLO instructions.

Where each capture path keeps them (docs/passport.md): Keras-on-JAX modules (the GPU and TPU
targets) carry the whole Python stack of every instruction (`stack_frame_id` into the module's
stack-frame tables, `explorer.hlo.stack_frames`); TensorFlow's XLA:CPU module carries
`source_file`/`source_line`, and they name where TensorFlow creates every op
(`tensorflow/python/framework/ops.py`), never the layer. For TensorFlow's target the TF worker
records each graph op's traceback (`GraphOp.source`), and an HLO instruction's `op_name` names its
op. A bundle from before that record borrows the Keras lines from a JAX target of the same bundle
when it has one, and says so; else it says the lines cannot be recovered. A `module:function`
model's layers also carry where the user's function called them (`LayerRecord.called_at`): those
lines come first. A line's text is the one recorded at capture; without one it is read from the
installed packages (paths relative to site-packages); a file outside them is never opened.
"""

from __future__ import annotations

import sysconfig
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from explorer.hlo.stack_frames import SourceFrame, StackFrames, read_stack_frames
from explorer.views.tables import instruction, layer_record, op_table, per_bundle

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

# A layer's own code is its `call` (`Dense.call`, `BaseConv.call`): the stack is cut above it.
_LAYER_CALL = ".call"
_MOST_FRAMES = 6  # without a layer's `call` in the stack, the innermost frames kept


@dataclass(frozen=True)
class PythonLine:
    """One Python line on the way to the layer's instructions; `instructions` it emitted itself
    (it is the innermost frame of their stacks), () for a line that called further down;
    `produced` every instruction whose stack passes through it; `user` a line of the user's own
    function (where it called the layer)."""

    file: str
    line: int
    function: str
    text: str
    instructions: tuple[str, ...] = ()
    produced: tuple[str, ...] = ()
    user: bool = False


@dataclass(frozen=True)
class PythonEnd:
    """The lines (outermost first), the target whose module they were read from, and the notes:
    `heuristic` when borrowed from another target, `missing` when nothing could be recovered below
    the user's lines. `evidence`: `stack_frames` (JAX's tables) or `op_traceback` (TF's graph ops)."""

    lines: tuple[PythonLine, ...]
    source_target: str = ""
    heuristic: str = ""
    missing: str = ""
    version_note: str = ""
    evidence: str = "stack_frames"

    @property
    def recovered(self) -> bool:
        """Whether lines below the user's own were found."""
        return any(not line.user for line in self.lines)


@per_bundle
def module_frames(bundle: Bundle, target: str) -> StackFrames:
    """The stack-frame tables of `target`'s module before optimisation (empty for TF's modules)."""
    return read_stack_frames(bundle.hlo_text(target))


def frame_id(bundle: Bundle, target: str, name: str) -> int:
    found = instruction(bundle, "hlo", target, name)
    if found is None:
        return 0
    text = dict(found.metadata.extras).get("stack_frame_id", "0")
    return int(text) if text.isdigit() else 0


def layer_stack(chain: tuple[SourceFrame, ...]) -> tuple[SourceFrame, ...]:
    """An instruction's stack (innermost first) from the layer's `call` down, outermost first;
    frames the capture normalised (`<path>/...`, the worker's own) never count."""
    kept: list[SourceFrame] = []
    for frame in chain:
        if frame.file.startswith("<"):
            continue
        kept.append(frame)
        if frame.function.endswith(_LAYER_CALL):
            return tuple(reversed(kept))
    return tuple(reversed(kept[:_MOST_FRAMES]))


Frame = tuple[str, int, str, str]  # (file, line, function, recorded text or "")


def _merged(stacks: list[tuple[str, tuple[Frame, ...]]]) -> tuple[PythonLine, ...]:
    """One line per (file, line) over the instructions' stacks (outermost first), in first-seen order."""
    emitted: dict[tuple[str, int], list[str]] = {}
    produced: dict[tuple[str, int], list[str]] = {}
    frames: dict[tuple[str, int], Frame] = {}
    for name, stack in stacks:
        for depth, frame in enumerate(stack):
            key = (frame[0], frame[1])
            frames.setdefault(key, frame)
            emitted.setdefault(key, [])
            if name not in produced.setdefault(key, []):
                produced[key].append(name)
            if depth == len(stack) - 1:
                emitted[key].append(name)
    return tuple(PythonLine(file, line, frames[(file, line)][2], frames[(file, line)][3] or source_line(file, line),
                            tuple(emitted[(file, line)]), tuple(produced[(file, line)]))
                 for (file, line) in frames)


def lines_of(bundle: Bundle, target: str, names: tuple[str, ...]) -> tuple[PythonLine, ...]:
    """The Python lines behind `names` (HLO instructions before optimisation) on `target`, from
    the module's stack-frame tables (Keras on JAX)."""
    frames = module_frames(bundle, target)
    if not frames:
        return ()
    stacks = [(name, tuple((f.file, f.line, f.function, "") for f in layer_stack(frames.chain(frame_id(bundle, target,
                                                                                                         name)))))
              for name in names]
    return _merged(stacks)


def traced_lines(bundle: Bundle, target: str, names: tuple[str, ...]) -> tuple[PythonLine, ...]:
    """The Python lines behind `names` from the tracebacks the TF worker recorded on the graph
    ops their `op_name` metadata names (TensorFlow's target; () for bundles without them)."""
    if bundle.graph is None:
        return ()
    ops = op_table(bundle)
    stacks = []
    for name in names:
        found = instruction(bundle, "hlo", target, name)
        op = ops.get(found.metadata.op_name) if found is not None else None
        if op is not None and op.source:
            stacks.append((name, tuple((s.file, s.line, s.function, s.text) for s in op.source)))
    return _merged(stacks)


def user_lines(bundle: Bundle, layer: str, names: tuple[str, ...]) -> tuple[PythonLine, ...]:
    """Where a `module:function` model's function called `layer` (recorded text; every name produced there)."""
    record = layer_record(bundle, layer)
    if record is None:
        return ()
    return tuple(PythonLine(s.file, s.line, s.function, s.text, (), names, user=True) for s in record.called_at)


def python_end(bundle: Bundle, target: str, layer: str, names: tuple[str, ...], hlo_names_on) -> PythonEnd:
    """The Python hop for `layer` on `target`. `hlo_names_on(other)` gives the layer's HLO
    instructions on another target (the borrowed lines of a TensorFlow target without tracebacks)."""
    own = user_lines(bundle, layer, names)
    lines = lines_of(bundle, target, names)
    if lines:
        return PythonEnd(own + lines, target, version_note=version_note(bundle, lines))
    lines = traced_lines(bundle, target, names)
    if lines:
        return PythonEnd(own + lines, target, version_note=version_note(bundle, lines), evidence="op_traceback")
    where = tf_source(bundle, target, names)
    for other in bundle.targets:
        if other != target and module_frames(bundle, other):
            there = hlo_names_on(other)
            borrowed = lines_of(bundle, other, there)
            if borrowed:  # the user's lines, too, name the other target's instructions
                return PythonEnd(user_lines(bundle, layer, there) + borrowed, other, heuristic=where or "-",
                                 version_note=version_note(bundle, borrowed))
    return PythonEnd(own, target if own else "", missing=where or "-")


def tf_source(bundle: Bundle, target: str, names: tuple[str, ...]) -> str:
    """`file:line` TensorFlow's metadata names for these instructions ("" when none)."""
    for name in names:
        found = instruction(bundle, "hlo", target, name)
        if found is not None and found.metadata.source_file:
            return f"{found.metadata.source_file}:{found.metadata.source_line}"
    return ""


def version_note(bundle: Bundle, lines: tuple[PythonLine, ...]) -> str:
    """"package installed captured" when an installed package differs from the capture's, else ""."""
    captured = dict(bundle.manifest.tools) if bundle.has_manifest else {}
    for package in dict.fromkeys(PurePosixPath(line.file).parts[0] for line in lines if line.file):
        installed = _installed_version(package)
        if package in captured and installed and installed != captured[package]:
            return f"{package} {installed} {captured[package]}"
    return ""


@lru_cache(maxsize=16)
def _installed_version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return ""


def _package_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = [paths.get("purelib", ""), paths.get("platlib", "")]  # not sys.path: never the current folder
    return tuple(dict.fromkeys(Path(root) for root in roots if root and Path(root).is_dir()))


@lru_cache(maxsize=64)
def _source_file(file: str) -> tuple[str, ...]:
    relative = PurePosixPath(file)
    if not file or relative.is_absolute() or ".." in relative.parts or file.startswith("<"):
        return ()  # the bundle's text names what to open: only a path inside site-packages is read
    for root in _package_roots():
        path = root / relative
        if path.suffix == ".py" and path.is_file():
            try:
                return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                return ()
    return ()


def source_line(file: str, line: int) -> str:
    """The text of `file`'s line `line` in the installed packages, stripped ("" when not found)."""
    lines = _source_file(file)
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""
