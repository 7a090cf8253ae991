"""The passport's first hop: the Python lines that made a layer's HLO instructions.

Where each capture path keeps them (docs/passport.md): Keras-on-JAX modules (the GPU and TPU
targets) carry the whole Python stack of every instruction (`stack_frame_id` into the module's
stack-frame tables, `explorer.hlo.stack_frames`); TensorFlow's XLA:CPU module carries
`source_file`/`source_line`, and they name where TensorFlow creates every op
(`tensorflow/python/framework/ops.py`), never the layer. There the hop borrows the Keras lines
from a JAX target of the same bundle when it has one, and says so; else it says the lines cannot
be recovered. The lines' text is read from the installed packages (paths as recorded, relative to
site-packages); a file the bundle names outside them is never opened.
"""

from __future__ import annotations

import sysconfig
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from explorer.hlo.stack_frames import SourceFrame, StackFrames, read_stack_frames
from explorer.views.tables import instruction, per_bundle

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

# A layer's own code is its `call` (`Dense.call`, `BaseConv.call`): the stack is cut above it.
_LAYER_CALL = ".call"
_MOST_FRAMES = 6  # without a layer's `call` in the stack, the innermost frames kept


@dataclass(frozen=True)
class PythonLine:
    """One Python line on the way to the layer's instructions; `instructions` it emitted itself
    (it is the innermost frame of their stacks), () for a line that called further down."""

    file: str
    line: int
    function: str
    text: str
    instructions: tuple[str, ...] = ()


@dataclass(frozen=True)
class PythonEnd:
    """The lines (outermost first), the target whose module they were read from, and the notes:
    `heuristic` when borrowed from another target, `missing` when nothing could be recovered."""

    lines: tuple[PythonLine, ...]
    source_target: str = ""
    heuristic: str = ""
    missing: str = ""
    version_note: str = ""


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


def lines_of(bundle: Bundle, target: str, names: tuple[str, ...]) -> tuple[PythonLine, ...]:
    """The Python lines behind `names` (HLO instructions before optimisation) on `target`."""
    frames = module_frames(bundle, target)
    if not frames:
        return ()
    order: dict[tuple[str, int], list[str]] = {}
    functions: dict[tuple[str, int], str] = {}
    for name in names:
        stack = layer_stack(frames.chain(frame_id(bundle, target, name)))
        for depth, frame in enumerate(stack):
            key = (frame.file, frame.line)
            emitted = order.setdefault(key, [])
            functions[key] = frame.function
            if depth == len(stack) - 1:
                emitted.append(name)
    return tuple(PythonLine(file, line, functions[(file, line)], source_line(file, line), tuple(emitted))
                 for (file, line), emitted in order.items())


def python_end(bundle: Bundle, target: str, layer: str, names: tuple[str, ...], hlo_names_on) -> PythonEnd:
    """The Python hop for `layer` on `target`. `hlo_names_on(other)` gives the layer's HLO
    instructions on another target (the borrowed lines on TensorFlow's target)."""
    lines = lines_of(bundle, target, names)
    if lines:
        return PythonEnd(lines, target, version_note=version_note(bundle, lines))
    where = tf_source(bundle, target, names)
    for other in bundle.targets:
        if other != target and module_frames(bundle, other):
            borrowed = lines_of(bundle, other, hlo_names_on(other))
            if borrowed:
                return PythonEnd(borrowed, other, heuristic=where or "-", version_note=version_note(bundle, borrowed))
    return PythonEnd((), "", missing=where or "-")


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
