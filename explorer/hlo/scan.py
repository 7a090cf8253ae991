"""HLO text read line by line: the scanners for what needs a few fields of a module, not all of it.

`explorer.hlo.parser` reads a whole module into an `HloModule`. Some readers need only a few fields
of some lines, from modules too large to parse on every use: the training step's entry instructions
(`explorer.model.training`), the collectives (`explorer.model.sharding`), each frame of the per-pass
filmstrip (`explorer.model.passes`, a step through ResNet50's frames stays under 50 ms), the sharded
module the mesh view reads (`explorer.views.mesh`), the TPU program steps and the GPU thunks'
instructions (`explorer.capture`). They read through these scanners, so every regular expression
that reads HLO text outside the parser is here, next to the parser, and a change in how XLA prints
is fixed once.

The scanners assume XLA's printing: one instruction per line,
`[ROOT] %name = shape opcode(operands), key=value, ...`, computations closed by `}` at column 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator
from typing import TypeVar

from explorer.hlo.element_bits import ELEMENT_BITS

T = TypeVar("T")

# The head of an instruction line up to its opcode's `(`: the shape (a tuple too) is everything
# before the first ` word(`.
INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%?(?P<name>[\w.\-]+) = (?P<shape>.+?) (?P<opcode>[a-z][a-z0-9\-]*)\(")
# An instruction line's text after `name = ` (a fusion has ` fusion(` there): a whole module counted in one findall.
_INSTRUCTION_REST = re.compile(r"^\s+(?:ROOT )?%?[\w.\-]+ = (.*)$", re.MULTILINE)
# A computation's first line: `[ENTRY] %name (params) -> shape {`.
_HEADER = re.compile(r"^(?:ENTRY )?%?(?P<name>[\w.\-]+) [(].*\{\s*$")
_METADATA = re.compile(r",? metadata=\{[^{}]*\}")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_CALLS = re.compile(r"calls=%?([\w.\-]+)")
_KIND = re.compile(r"kind=(k\w+)")
_TARGET = re.compile(r'custom_call_target="([^"]+)"')
_PARAMETER = re.compile(r"parameter\((\d+)\)")
_INDEX = re.compile(r"\bindex=(\d+)")
_OPERAND = re.compile(r"%([\w.\-]+)")
_GROUPS = re.compile(r"replica_groups=(\[[\d,]+\]<=\[[\d,]+\](?:T\([\d,]+\))?|\{[\d,{} ]*\}"
                     r"|mesh\[[^\]]*\] \{[^}]*\})")
_PAIRS = re.compile(r"source_target_pairs=(\{[\d,{} ]*\})")
_MESH_AXIS = re.compile(r"'([^']+)'=(\d+)")
_AXIS_NAME = re.compile(r"'([^']+)'")
_FIRST_GROUP = re.compile(r"\{([\d,\s]*)\}")
_ALIAS = re.compile(r"\{([\d,\s]*)\}:\s*\((\d+),")
# An array in a printed shape, `f32[64,128]` (its layout, if any, follows it).
_ARRAY = re.compile(r"\b([a-z][a-z0-9]*)\[([\d,]*)\]")
_LAYOUT = re.compile(r"\{[^{}]*\}")
_COMMENT = re.compile(r"/\*[^*]*\*/")
# An entry instruction with an array result, its element type and dims apart: `%p = f32[64,128]{1,0} parameter(0)`.
_ARRAY_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%?(?P<name>[\w.\-]+) = (?P<dtype>[a-z]\w*)\[(?P<dims>[\d,]*)\]\S* "
                                r"(?P<opcode>[a-z][a-z0-9\-]*)\((?P<rest>.*)$")
_PARAMETER_REST = re.compile(r"^(\d+)\)")


# --- one line ----------------------------------------------------------------------------------


def op_name(line: str) -> str:
    """The `op_name` of the line's metadata; "" without one."""
    found = _OP_NAME.search(line)
    return found.group(1) if found else ""


def custom_call_target(line: str) -> str:
    """`__cudnn$convForward` of a custom call's `custom_call_target="..."`; "" for any other line."""
    found = _TARGET.search(line)
    return found.group(1) if found else ""


def parameter_number(line: str) -> int:
    """N of a `parameter(N)` line; -1 for any other line."""
    found = _PARAMETER.search(line)
    return int(found.group(1)) if found else -1


def tuple_index(line: str) -> int:
    """The `index=N` of a get-tuple-element line; -1 without one."""
    found = _INDEX.search(line)
    return int(found.group(1)) if found else -1


def replica_groups(line: str) -> str:
    """A collective's groups as printed: `replica_groups=` (`[2,2]<=[4]`, `{{0,1},{2,3}}`, a jax mesh),
    else a collective-permute's `source_target_pairs=`; "" for neither."""
    found = _GROUPS.search(line) or _PAIRS.search(line)
    return found.group(1) if found else ""


def group_size(groups: str) -> int:
    """Devices per group: `[2,2]<=[4]` -> 2 (2 groups of 2); `{{0,1,2,3}}` -> 4;
    `mesh['axis_0'=2,'axis_1'=2] {'axis_0'}` -> 2 (the named axes of the mesh, multiplied)."""
    if groups.startswith("mesh["):
        sizes = dict(_MESH_AXIS.findall(groups[: groups.index("]")]))
        size = 1
        for axis in _AXIS_NAME.findall(groups[groups.index("]") + 1:]):
            if axis in sizes:
                size *= int(sizes[axis])
        return size
    if groups.startswith("["):
        shape = [int(d) for d in groups[1:groups.index("]")].split(",")]
        return shape[-1]
    first = _FIRST_GROUP.search(groups[1:])
    return len([d for d in first.group(1).split(",") if d.strip()]) if first else 0


def operand_finder(name: str) -> Callable[[str], re.Match[str] | None]:
    """A search for `name` as an operand in an instruction line: `(a, %name)`, `(name)`."""
    return re.compile(rf"[(, ]%?{re.escape(name)}[,)]").search


# --- printed shapes ----------------------------------------------------------------------------


def arrays(shape: str) -> list[str]:
    """The arrays of a printed shape without their layouts: `(f32[8]{0}, s32[])` -> [`f32[8]`, `s32[]`]."""
    return [found.group(0) for found in _ARRAY.finditer(shape)]


def last_array(shape: str) -> str:
    """The last array of a printed shape (an async start's result); the shape itself without one."""
    found = arrays(shape)
    return found[-1] if found else shape


def leading_array(shape: str) -> str:
    """`f32[64,128]{1,0:T(8,128)}` -> `f32[64,128]` (layouts differ between uses of one value);
    a tuple's text as it is."""
    found = _ARRAY.match(shape.lstrip())
    return found.group(0) if found else shape


def array_bytes(shape: str) -> int:
    """Bytes of every array in a printed shape (a tuple counts each element; layouts ignored),
    by `explorer.hlo.element_bits.ELEMENT_BITS` (sub-byte types rounded up per array, as `Shape.byte_size`)."""
    total = 0
    for element_type, dims in _ARRAY.findall(shape):
        count = 1
        for dim in filter(None, dims.split(",")):
            count *= int(dim)
        total += (count * ELEMENT_BITS.get(element_type, 0) + 7) // 8
    return total


def layouts(shape: str) -> str:
    """The layouts of a printed shape, one after another: `f32[2,3]{0,1}` -> `{0,1}`."""
    return "".join(_LAYOUT.findall(shape))


def shape_without_layout(shape: str) -> str:
    """`(f32[]{:T(128)}, f32[64,128]{1,0})` -> `(f32[], f32[64,128])`."""
    return _LAYOUT.sub("", _COMMENT.sub("", shape))


# --- a whole module ----------------------------------------------------------------------------


def entry_lines(text: str) -> list[str]:
    """The lines of the entry computation, between its `ENTRY ...{` line and its closing `}`."""
    if text.startswith("ENTRY "):
        start = 0
    else:
        start = text.find("\nENTRY ") + 1
        if not start:
            return []
    end = text.find("\n}", start)
    return text[start:end if end >= 0 else len(text)].splitlines()[1:]


def instructions(text: str, opcodes: Container[str]) -> Iterator[tuple[str, str, str, str]]:
    """(name, shape, opcode, line) of every instruction of the module whose opcode is in `opcodes`."""
    head = INSTRUCTION.match
    for line in text.splitlines():
        found = head(line)
        if found and found["opcode"] in opcodes:
            yield found["name"], found["shape"], found["opcode"], line


def entry_instructions(text: str) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    """(name, shape, opcode, operands, the whole line) of each entry instruction."""
    found = []
    head = INSTRUCTION.match
    for line in entry_lines(text):
        if match := head(line):
            operands = tuple(_OPERAND.findall(_operand_text(line, match.end())))
            found.append((match["name"], match["shape"], match["opcode"], operands, line))
    return found


def _operand_text(line: str, start: int) -> str:
    """The text between `opcode(` and its closing parenthesis (layouts inside hold parentheses too)."""
    depth = 1
    for position in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[position], 0)
        if depth == 0:
            return line[start:position]
    return line[start:]


def input_output_aliases(text: str) -> tuple[tuple[str, int], ...]:
    """`input_output_alias={ {1}: (0, {}, may-alias), ... }` of the module header:
    (output index, donated parameter number) pairs."""
    header = text.split("\n", 1)[0]
    start = header.find("input_output_alias={")
    if start < 0:
        return ()
    body = header[start:header.find("entry_computation_layout") if "entry_computation_layout" in header else None]
    return tuple((f"{{{out.strip()}}}", int(param)) for out, param in _ALIAS.findall(body))


def count_instructions(text: str) -> tuple[int, int]:
    """(instructions, fusion instructions) in a module's text."""
    # One scan (a second regex for fusions took 0.4 s over ResNet50's frames).
    rests = _INSTRUCTION_REST.findall(text)
    return len(rests), sum(" fusion(" in rest for rest in rests)


def instruction_line(text: str, name: str) -> str:
    """The line of instruction `name` in a module's text; "" when there is none."""
    found = re.search(rf"^\s*(?:ROOT )?%?{re.escape(name)} = .*$", text, re.MULTILINE)
    return found.group(0) if found else ""


def computations(text: str, line: Callable[[str, str, str, str, str, str, str], T]) -> dict[str, list[T]]:
    """Each computation's instructions in order, computation name -> [line(name, opcode, shape, op_name,
    text, calls, fusion_kind)]: `text` is the line without its metadata; `calls` and `fusion_kind` (the
    fused computation, `kLoop`) are "" except for fusions."""
    found: dict[str, list[T]] = {}
    current: list[T] | None = None
    head = INSTRUCTION.match
    for raw in text.splitlines():
        header = _HEADER.match(raw)
        if header and not raw.startswith(" "):
            current = found.setdefault(header["name"], [])
            continue
        if raw.startswith("}"):
            current = None
            continue
        if current is None:  # between computations
            continue
        match = head(raw)
        if match is None:
            continue
        opcode = match["opcode"]
        calls = kind = ""
        if opcode == "fusion":
            rest = raw[match.end():]
            called, fused = _CALLS.search(rest), _KIND.search(rest)
            calls, kind = called.group(1) if called else "", fused.group(1) if fused else ""
        current.append(line(match["name"], opcode, match["shape"], op_name(raw), _METADATA.sub("", raw.strip()),
                            calls, kind))
    return found


def sharded_arrays(text: str) -> Iterator[tuple[str, str, tuple[int, ...], str, str, int]]:
    """(name, element type, dims, sharding, op_name, parameter number or -1) of every array-shaped
    instruction of the entry computation that carries a `sharding={...}` (as printed, braces included)."""
    for line in entry_lines(text):
        if (match := _ARRAY_INSTRUCTION.match(line)) and (sharding := _braced(line, "sharding=")):
            parameter = _PARAMETER_REST.match(match["rest"]) if match["opcode"] == "parameter" else None
            yield (match["name"], match["dtype"], tuple(int(d) for d in match["dims"].split(",") if d), sharding,
                   op_name(line), int(parameter.group(1)) if parameter else -1)


def _braced(line: str, key: str) -> str:
    """The balanced `{...}` after `key` (tuple shardings nest braces)."""
    start = line.find(key)
    if start < 0:
        return ""
    start += len(key)
    depth, position = 0, start
    while True:  # jump from brace to brace: a ResNet50 step's module has thousands of long lines
        opening, closing = line.find("{", position), line.find("}", position)
        if closing < 0:
            return ""
        if 0 <= opening < closing:
            depth, position = depth + 1, opening + 1
            continue
        depth, position = depth - 1, closing + 1
        if depth <= 0:
            return line[start:position] if line.startswith("{", start) else ""
