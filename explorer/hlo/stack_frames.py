"""The stack-frame tables newer XLA prints between a module's header and its computations.

JAX (0.4.36 and later) records, for every HLO instruction it lowers, the Python call stack that
emitted it: the module carries four numbered tables (`FileNames`, `FunctionNames`,
`FileLocations`, `StackFrames`) and each instruction's metadata a `stack_frame_id`. The parser
skips the tables (`patterns.FRAME_TABLE`); this reads them, so the passport can name the Python
line behind an instruction. TensorFlow's XLA:CPU bridge writes none: its metadata carries only
`source_file`/`source_line`, and those name where TensorFlow creates every op, not the layer.

As XLA 0.10 prints them, a frame's `parent_frame_id` is one more than its parent's number (the
first frame, `parent_frame_id=1`, has none); checked on the recorded fixtures, where each frame's
parent is the line that called it (`Dense.call` called from Keras's layer machinery).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.hlo.patterns import FRAME_TABLE

_ENTRY = re.compile(r"^[ \t]*(\d+)[ \t]+(.*?)[ \t]*$", re.M)
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
_FIELD = re.compile(r"(\w+)=(-?\d+)")


@dataclass(frozen=True)
class SourceFrame:
    """One frame of a recorded Python stack: file (as recorded, relative or `<path>/...`), function, line."""

    file: str
    function: str
    line: int


@dataclass(frozen=True)
class StackFrames:
    """A module's stack-frame tables: `chain(id)` is an instruction's stack, innermost frame first."""

    frames: dict[int, tuple[SourceFrame, int]]  # frame id -> (its location, its parent's id or 0)

    def chain(self, frame_id: int) -> tuple[SourceFrame, ...]:
        out: list[SourceFrame] = []
        seen: set[int] = set()
        while frame_id in self.frames and frame_id not in seen:  # a malformed table cannot loop
            seen.add(frame_id)
            location, frame_id = self.frames[frame_id]
            out.append(location)
        return tuple(out)

    def __bool__(self) -> bool:
        return bool(self.frames)


def read_stack_frames(module_text: str) -> StackFrames:
    """The stack-frame tables of `module_text` (empty when it has none, as TF's modules)."""
    tables: dict[str, dict[int, str]] = {}
    head = module_text[:module_text.find("\n%") if "\n%" in module_text else len(module_text)]
    for match in FRAME_TABLE.finditer(head):
        name, _, body = match.group(0).partition("\n")
        tables[name.strip()] = {int(n): rest for n, rest in _ENTRY.findall(body)}
    files = {n: _unquoted(v) for n, v in tables.get("FileNames", {}).items()}
    functions = {n: _unquoted(v) for n, v in tables.get("FunctionNames", {}).items()}
    locations: dict[int, SourceFrame] = {}
    for number, text in tables.get("FileLocations", {}).items():
        fields = dict(_FIELD.findall(text))
        locations[number] = SourceFrame(files.get(int(fields.get("file_name_id", 0)), ""),
                                        functions.get(int(fields.get("function_name_id", 0)), ""),
                                        int(fields.get("line", 0)))
    frames: dict[int, tuple[SourceFrame, int]] = {}
    for number, text in tables.get("StackFrames", {}).items():
        fields = dict(_FIELD.findall(text))
        location = locations.get(int(fields.get("file_location_id", 0)))
        if location is not None:
            frames[number] = (location, max(int(fields.get("parent_frame_id", 0)) - 1, 0))
    return StackFrames(frames)


def _unquoted(text: str) -> str:
    match = _QUOTED.match(text)
    return match.group(1) if match else text
