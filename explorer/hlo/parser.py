"""Parse HLO text, as XLA prints it for CPU, GPU and TPU, into `explorer.hlo.model`.

A hand-written scanner: compiled regular expressions match one token at the
current position, so a ~3,000-line optimised module parses in a small
fraction of a second without a per-character Python loop. Anything it does not
understand raises `ParseError` with the line and column; the public entry point
also turns any slip of its own into a `ParseError` so malformed text can never
crash a caller with an IndexError or similar.

Attribute values are kept verbatim (the UI shows them as XLA wrote them); only
the ones the other levels navigate by are interpreted: called computations,
fusion kind, custom-call target, metadata.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from explorer.errors import ParseError
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Layout, Metadata, Shape, Tile
from explorer.hlo.text import format_layout, format_shape  # re-exported: printing lives in text.py

__all__ = ["parse_module", "parse_shape", "format_shape", "format_layout"]

# Whitespace, `/*index=5*/` comments and `//` line comments between tokens.
_SKIP = re.compile(r"\s*(?:(?:/\*.*?\*/|//[^\n]*)\s*)*", re.S)
_NAME = re.compile(r"%?([\w][\w.\-]*)")
_MODULE_NAME = re.compile(r"[^\s,]+")
_OPCODE = re.compile(r"[A-Za-z][\w\-]*")
_ATTR_KEY = re.compile(r"[\w.\-]+")
_KEYWORD = re.compile(r"(ENTRY|ROOT)(?=[\s%])")
_INT = re.compile(r"-?\d+")
_ELEMENT_TYPE = re.compile(r"([a-z][a-z0-9]*)\[")
_DIM = re.compile(r"\s*(<=)?\s*(\d+|\?)\s*")
# A common array shape in one match: `f32[2,3]{1,0}`, no tiles, no dynamic dims.
_SIMPLE_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([\d,]*)\](?:\{([\d,]*)\})?(?![:\w{])")
_LAYOUT_ITEM = re.compile(r"([A-Za-z#*]+)\(")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_PLAIN_VALUE = re.compile(r'[^\s,{}()\[\]"]+')
_GROUP_TEXT = re.compile(r'[^{}()\[\]"]+')
_METADATA_ITEM = re.compile(r'\s*([\w.\-]+)=("[^"\\]*(?:\\.[^"\\]*)*"|[^\s"}]*)', re.S)
# Fast paths for the common cases; anything else takes the general (and
# error-reporting) route, so these only decide speed, never what is accepted.
_FAST_HEAD = re.compile(r"(ROOT[ \t]+)?%?([\w][\w.\-]*)[ \t]*=[ \t]*")
_FAST_OPCODE = re.compile(r"[ \t]*([A-Za-z][\w\-]*)\(")
_OUTPUT_INDEX = re.compile(r"#\d+")
_FAST_OPERANDS = re.compile(r"((?:%?[\w][\w.\-]*(?:,[ \t]*%?[\w][\w.\-]*)*)?)\)")
_FAST_ATTRIBUTE = re.compile(
    r'[ \t]*,[ \t]*([\w.\-]+)=('
    r'[^\s,{}()\[\]"]+'  # kind=kLoop, to_apply=%region_0.3
    r'|"[^"\\]*(?:\\.[^"\\]*)*"'  # custom_call_target="..."
    r'|\{(?:[^{}()\[\]"]|"[^"\\]*(?:\\.[^"\\]*)*")*\}'  # metadata={...}, dimensions={1}
    r')(?=[\s,]|$)')
_METADATA_BODY = re.compile(r'(?:\s*[\w.\-]+=(?:"[^"\\]*(?:\\.[^"\\]*)*"|[^\s"}]*))*\s*', re.S)
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.S)
# Newer XLA prints stack-frame tables (a keyword line, then numbered entries)
# between the module header and the computations; metadata `stack_frame_id`
# points into them. Skipped: `source_file`/`source_line` already say where.
_FRAME_TABLE = re.compile(
    r"(?:FileNames|FunctionNames|FileLocations|StackFrames)[ \t]*\n(?:[ \t]*\d+[^\n]*(?:\n|$))*")

_OPENERS = {"{": "}", "(": ")", "[": "]"}
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
# Attributes whose values name computations, as XLA spells them.
_CALLING_KEYS = frozenset({
    "calls", "to_apply", "condition", "body", "branch_computations", "true_computation",
    "false_computation", "select", "scatter", "called_computations", "async_wrapped_computation",
})
# Opcodes whose parentheses hold a literal or a number instead of operands.
_LITERAL_OPCODES = {"constant": "literal", "parameter": "parameter_number"}
_MAX_TUPLE_DEPTH = 64


def parse_module(text: str, source: str = "") -> HloModule:
    """Parse one HLO module.

    Args:
        text: the module as XLA prints it (`HloModule name, ...` then computations).
        source: a name for error messages (a file name), never stored.

    Raises:
        ParseError: the text is not an HLO module; names line and column.
    """
    parser = _Parser(text, source)
    try:
        return parser.module()
    except ParseError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug here must still read as a parse failure
        raise parser.error(f"internal parser error ({type(exc).__name__}: {exc})") from exc


def parse_shape(text: str) -> Shape:
    """Parse a shape on its own, e.g. `bf16[8,128]{1,0:T(8,128)(2,1)S(1)}`."""
    parser = _Parser(text, "")
    try:
        shape = parser.shape(0)
        parser.skip()
        if parser.pos != len(text):
            raise parser.error("unexpected text after the shape")
        return shape
    except ParseError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise parser.error(f"internal parser error ({type(exc).__name__}: {exc})") from exc


def unescape(text: str) -> str:
    """Undo XLA's C escaping of quoted strings (`\\"`, `\\n`, octal bytes of UTF-8)."""
    if "\\" not in text:
        return text
    out = bytearray()
    last = 0
    for m in _ESCAPE.finditer(text):
        out += text[last:m.start()].encode("utf-8", "surrogatepass")
        if m.group(1):
            out.append(int(m.group(1), 8) & 0xFF)
        elif m.group(2):
            out.append(int(m.group(2), 16))
        else:
            out += _SIMPLE_ESCAPES.get(m.group(3), m.group(3)).encode("utf-8", "surrogatepass")
        last = m.end()
    out += text[last:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", "replace")


class _Parser:
    """Scanner state: the text and a position; one method per grammar rule."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self._line_starts: list[int] | None = None
        self._shape_cache: dict[str, Shape] = {}

    # --- positions and errors ---------------------------------------------

    def line_column(self, pos: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect_right(self._line_starts, pos)
        return line, pos - self._line_starts[line - 1] + 1

    def error(self, message: str, pos: int | None = None) -> ParseError:
        line, column = self.line_column(self.pos if pos is None else pos)
        return ParseError(message, line, column, self.source)

    def skip(self) -> None:
        self.pos = _SKIP.match(self.text, self.pos).end()

    def peek(self) -> str:
        return self.text[self.pos:self.pos + 1]

    def expect(self, literal: str) -> None:
        self.skip()
        if not self.text.startswith(literal, self.pos):
            found = self.text[self.pos:self.pos + 12].split("\n")[0] or "end of text"
            raise self.error(f"expected '{literal}', found '{found}'")
        self.pos += len(literal)

    def token(self, pattern: re.Pattern[str], what: str) -> re.Match[str]:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if m is None or m.end() == self.pos:
            found = self.text[self.pos:self.pos + 12].split("\n")[0] or "end of text"
            raise self.error(f"expected {what}, found '{found}'")
        self.pos = m.end()
        return m

    # --- module and computations ------------------------------------------

    def module(self) -> HloModule:
        self.expect("HloModule")
        name = self.token(_MODULE_NAME, "a module name").group(0)
        attributes = self.attributes()
        entry_layout = ""
        others = []
        for key, value in attributes:
            if key == "entry_computation_layout":
                entry_layout = value[1:-1] if value.startswith("{") else value
            else:
                others.append((key, value))
        parts = []
        while True:
            self.skip()
            table = _FRAME_TABLE.match(self.text, self.pos)
            if table:
                self.pos = table.end()
                continue
            if self.pos >= len(self.text):
                break
            parts.append(self.computation())
        if not parts:
            raise self.error("the module has no computations")
        fused = {
            callee
            for _, instructions, _, _ in parts
            for instruction in instructions
            if instruction.opcode == "fusion"
            for callee in instruction.called_computations
        }
        computations = tuple(
            HloComputation(name=n, instructions=ins, is_entry=entry, is_fusion=n in fused, line=line)
            for n, ins, entry, line in parts
        )
        return HloModule(name, computations, entry_layout, tuple(others))

    def computation(self) -> tuple[str, tuple[HloInstruction, ...], bool, int]:
        line, _ = self.line_column(self.pos)
        keyword = _KEYWORD.match(self.text, self.pos)
        is_entry = keyword is not None and keyword.group(1) == "ENTRY"
        if is_entry:
            self.pos = keyword.end()
        name = self.token(_NAME, "a computation name").group(1)
        self.skip()
        if self.peek() == "(":  # the parameter signature; shapes also in the parameters
            self.pos = self.group_end(self.pos)
            self.expect("->")
            self.skip()
            self.shape(0)
        self.attributes()  # e.g. execution_thread="..."
        self.expect("{")
        instructions = []
        while True:
            self.skip()
            if self.peek() == "}":
                self.pos += 1
                break
            if self.pos >= len(self.text):
                raise self.error(f"computation '{name}' is not closed with '}}'")
            instructions.append(self.instruction())
        if not instructions:
            raise self.error(f"computation '{name}' has no instructions")
        return name, tuple(instructions), is_entry, line

    # --- instructions -------------------------------------------------------

    def instruction(self) -> HloInstruction:
        line, _ = self.line_column(self.pos)
        head = _FAST_HEAD.match(self.text, self.pos)
        if head:
            is_root, name = head.group(1) is not None, head.group(2)
            self.pos = head.end()
        else:
            keyword = _KEYWORD.match(self.text, self.pos)
            is_root = keyword is not None and keyword.group(1) == "ROOT"
            if is_root:
                self.pos = keyword.end()
            name = self.token(_NAME, "an instruction name").group(1)
            self.expect("=")
            self.skip()
        shape = self.shape(0)
        fast = _FAST_OPCODE.match(self.text, self.pos)
        if fast:
            opcode = fast.group(1)
            self.pos = fast.end()
        else:
            opcode = self.token(_OPCODE, "an opcode").group(0)
            self.expect("(")
        extra: list[tuple[str, str]] = []
        if opcode in _LITERAL_OPCODES:
            end = self.group_end(self.pos - 1)
            extra.append((_LITERAL_OPCODES[opcode], self.text[self.pos:end - 1].strip()))
            operands: tuple[str, ...] = ()
            self.pos = end
        else:
            operands = self.operands()
        metadata = Metadata()
        backend_config = custom_call_target = fusion_kind = ""
        called: list[str] = []
        for key, value in self.attributes():
            if key == "metadata":
                metadata = self.metadata(value)
                continue
            if key == "backend_config":
                backend_config = value
                continue
            if key == "custom_call_target":
                custom_call_target = unescape(value[1:-1]) if value.startswith('"') else value
            elif key == "kind" and opcode == "fusion":
                fusion_kind = value
            elif key in _CALLING_KEYS:
                called.extend(_computation_names(value))
            extra.append((key, value))
        return HloInstruction(
            name=name, opcode=opcode, shape=shape, operands=operands,
            called_computations=tuple(called), attributes=tuple(extra), metadata=metadata,
            backend_config=backend_config, custom_call_target=custom_call_target,
            fusion_kind=fusion_kind, is_root=is_root, line=line,
        )

    def operands(self) -> tuple[str, ...]:
        """Operand names after `(`, each optionally preceded by its shape."""
        fast = _FAST_OPERANDS.match(self.text, self.pos)
        if fast:
            self.pos = fast.end()
            return tuple(_strip_percent(n) for n in fast.group(1).split(",")) if fast.group(1) else ()
        names: list[str] = []
        self.skip()
        if self.peek() == ")":
            self.pos += 1
            return ()
        while True:
            self.skip()
            if self.peek() == "(" or _ELEMENT_TYPE.match(self.text, self.pos):
                self.shape(0)
            names.append(self.token(_NAME, "an operand name").group(1))
            # Newer XLA names one output of a multi-output instruction as
            # `%name#0`; the operand is still the instruction `name`.
            output_index = _OUTPUT_INDEX.match(self.text, self.pos)
            if output_index:
                self.pos = output_index.end()
            self.skip()
            c = self.peek()
            self.pos += 1
            if c == ")":
                return tuple(names)
            if c != ",":
                raise self.error("expected ',' or ')' after an operand", self.pos - 1)

    def attributes(self) -> list[tuple[str, str]]:
        """`, key=value` pairs up to the end of the instruction (or header)."""
        found = []
        while True:
            fast = _FAST_ATTRIBUTE.match(self.text, self.pos)
            if fast:
                found.append((fast.group(1), fast.group(2)))
                self.pos = fast.end()
                continue
            self.skip()
            if self.peek() != ",":
                return found
            self.pos += 1
            key = self.token(_ATTR_KEY, "an attribute name").group(0)
            self.expect("=")
            self.skip()
            start = self.pos
            self.pos = self.value_end(start)
            if self.pos == start:
                raise self.error(f"attribute '{key}' has no value")
            found.append((key, self.text[start:self.pos]))

    def metadata(self, value: str) -> Metadata:
        if not (value.startswith("{") and value.endswith("}")):
            raise self.error("metadata must be written in braces")
        body = value[1:-1]
        checked = _METADATA_BODY.match(body)
        if checked.end() != len(body):
            near = body[checked.end():checked.end() + 20]
            raise self.error(f"malformed metadata near '{near}'")
        fields: dict[str, str] = {}
        extras = []
        for key, raw in _METADATA_ITEM.findall(body):
            text = unescape(raw[1:-1]) if raw.startswith('"') else raw
            if key in ("op_type", "op_name", "source_file", "source_line"):
                fields[key] = text
            else:
                extras.append((key, text))
        line_text = fields.get("source_line", "0")
        if not _INT.fullmatch(line_text):
            raise self.error(f"metadata source_line is not a number: '{line_text[:20]}'")
        return Metadata(
            op_type=fields.get("op_type", ""), op_name=fields.get("op_name", ""),
            source_file=fields.get("source_file", ""), source_line=int(line_text),
            extras=tuple(extras),
        )

    # --- values: verbatim text with balanced brackets and strings ------------

    def value_end(self, pos: int) -> int:
        text = self.text
        while True:
            m = _PLAIN_VALUE.match(text, pos)
            if m:
                pos = m.end()
            c = text[pos:pos + 1]
            if c in _OPENERS:
                pos = self.group_end(pos)
            elif c == '"':
                pos = self.string_end(pos)
            elif not m:
                return pos

    def string_end(self, pos: int) -> int:
        m = _STRING.match(self.text, pos)
        if m is None:
            raise self.error("unterminated string", pos)
        return m.end()

    def group_end(self, pos: int) -> int:
        """End of the bracketed group opening at `pos` (brackets nest, strings skipped)."""
        text = self.text
        closers = [_OPENERS[text[pos]]]
        start = pos
        pos += 1
        while closers:
            m = _GROUP_TEXT.match(text, pos)
            if m:
                pos = m.end()
            c = text[pos:pos + 1]
            if not c:
                raise self.error(f"'{text[start]}' is never closed", start)
            if c == '"':
                pos = self.string_end(pos)
            elif c in _OPENERS:
                closers.append(_OPENERS[c])
                pos += 1
            elif c == closers[-1]:
                closers.pop()
                pos += 1
            else:
                raise self.error(f"expected '{closers[-1]}', found '{c}'", pos)
        return pos

    # --- shapes ---------------------------------------------------------------

    def shape(self, depth: int) -> Shape:
        text = self.text
        m = _SIMPLE_ARRAY.match(text, self.pos)
        if m:
            key = m.group(0)
            shape = self._shape_cache.get(key)
            if shape is None:
                dims = tuple(int(d) for d in m.group(2).split(",")) if m.group(2) else ()
                layout = None
                if m.group(3) is not None:
                    minor = tuple(int(d) for d in m.group(3).split(",")) if m.group(3) else ()
                    layout = Layout(minor)
                shape = Shape(m.group(1), dims, (), layout)
                self._shape_cache[key] = shape
            self.pos = m.end()
            return shape
        if self.peek() == "(":
            if depth >= _MAX_TUPLE_DEPTH:
                raise self.error("tuple shapes nested too deeply")
            self.pos += 1
            parts = []
            self.skip()
            if self.peek() != ")":
                while True:
                    self.skip()
                    parts.append(self.shape(depth + 1))
                    self.skip()
                    if self.peek() != ",":
                        break
                    self.pos += 1
            self.expect(")")
            return Shape("tuple", tuple_shapes=tuple(parts))
        m = _ELEMENT_TYPE.match(text, self.pos)
        if m is None:
            raise self.error("expected a shape")
        self.pos = m.end()
        dims, dynamic = [], []
        if self.peek() == "]":
            self.pos += 1
        else:
            while True:
                d = _DIM.match(text, self.pos)
                if d is None:
                    raise self.error("expected a dimension size")
                self.pos = d.end()
                unbounded = d.group(2) == "?"
                dims.append(-1 if unbounded else int(d.group(2)))
                dynamic.append(unbounded or d.group(1) is not None)
                c = self.peek()
                self.pos += 1
                if c == "]":
                    break
                if c != ",":
                    raise self.error("expected ',' or ']' in the dimensions", self.pos - 1)
        layout = self.layout() if self.peek() == "{" else None
        return Shape(m.group(1), tuple(dims), tuple(dynamic) if any(dynamic) else (), layout)

    def layout(self) -> Layout:
        """`{minor_to_major[:items]}` right after a shape's dimensions."""
        self.pos += 1
        minor: list[int] = []
        tiles: list[Tile] = []
        extras: list[str] = []
        memory_space = 0
        self.skip()
        while self.peek() not in ("}", ":"):
            minor.append(int(self.token(_INT, "a dimension number").group(0)))
            self.skip()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() not in ("}", ":"):
                raise self.error("expected ',' '}' or ':' in a layout")
        if self.peek() == ":":
            self.pos += 1
            while self.peek() != "}":
                m = _LAYOUT_ITEM.match(self.text, self.pos)
                if m is None:
                    raise self.error("expected a layout attribute such as T(8,128) or S(1)")
                start = self.pos
                self.pos = m.end() - 1
                groups = []
                while self.peek() == "(":
                    end = self.group_end(self.pos)
                    groups.append(self.text[self.pos + 1:end - 1])
                    self.pos = end
                if m.group(1) == "T":
                    tiles.extend(Tile(_tile_dims(g, self, start)) for g in groups)
                elif m.group(1) == "S" and len(groups) == 1 and _INT.fullmatch(groups[0].strip()):
                    memory_space = int(groups[0])
                else:
                    extras.append(self.text[start:self.pos])
        self.pos += 1
        return Layout(tuple(minor), tuple(tiles), memory_space, tuple(extras))


def _tile_dims(text: str, parser: _Parser, pos: int) -> tuple[int, ...]:
    """`8,128` -> (8, 128); XLA's `*` (combine dimension) becomes -1."""
    dims = []
    for part in text.split(","):
        part = part.strip()
        if part == "*":
            dims.append(-1)
        elif part.isdigit():
            dims.append(int(part))
        else:
            raise parser.error(f"bad tile dimension '{part[:20]}'", pos)
    return tuple(dims)


def _strip_percent(name: str) -> str:
    name = name.strip()
    return name[1:] if name.startswith("%") else name


def _computation_names(value: str) -> list[str]:
    """`%a` or `{%a, %b}` -> ["a", "b"]."""
    inner = value[1:-1] if value.startswith("{") and value.endswith("}") else value
    return [part.strip().lstrip("%") for part in inner.split(",") if part.strip()]
