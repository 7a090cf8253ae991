"""Parse HLO text, as XLA prints it for CPU, GPU and TPU, into `explorer.hlo.model`.

A hand-written scanner following the grammar of XLA's own parser
(`xla/hlo/parser/hlo_parser.cc`): whitespace and `/*...*/` or `//` comments
may stand between any two tokens. Compiled regular expressions
(`explorer.hlo.patterns`) match one token at the current position, so a
30,000-instruction module parses without a per-character Python loop, within
2x of XLA's C++ parser (`bench/bench_parser.py`). Anything it does not understand raises
`ParseError` with the line and column; the public entry point also turns any
slip of its own into a `ParseError` so malformed text can never crash a
caller with an IndexError or similar.

Fast paths match the common layout of a whole piece (`name = f32[2]{0} op(`,
`, key=value`) in one expression. Each is a strict special case of the
general route and hands over to it at the same position when it does not
match, so they decide speed, never what is accepted or what it reads as
(`parse_module(..., fast_paths=False)` takes the general route everywhere; a
property test compares the two).

Attribute values are kept verbatim (the UI shows them as XLA wrote them); only
the ones the other levels navigate by are interpreted: called computations,
fusion kind, custom-call target, metadata. Hand-written shorthand that XLA's
tests use is read as XLA reads it where that is simple: an instruction nested
as an operand (`add(a, negate(b))`) becomes an instruction of its own named
`negate.anon`; a missing result shape is inferred for elementwise ops,
`compare`, `select`, `clamp`, `tuple` and `get-tuple-element`
(`explorer.hlo.shape_inference`), and is a `ParseError` naming the opcode
otherwise. A computation body written inline as an attribute value
(`to_apply={...}`) becomes a computation named `_`, `_.1`, ... as XLA names it.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_right

from explorer.errors import ParseError
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Layout, Metadata, Shape, Tile
from explorer.hlo.patterns import (
    ATTR_KEY,
    CALLING_KEYS_TEXT,
    CALLING_LIST_KEYS_TEXT,
    COMMENT,
    ELEMENT_TYPE,
    ESCAPE,
    FAST_ATTRIBUTE,
    FAST_ATTRIBUTES,
    FAST_ATTRIBUTES_END,
    FAST_HEAD,
    FAST_LINE,
    FAST_METADATA,
    FAST_METADATA_FIELD,
    FAST_OPCODE,
    FAST_OPERAND,
    FAST_OPERANDS,
    FAST_SHAPE,
    FRAME_TABLE,
    GROUP_TEXT,
    INT,
    KEYWORD,
    LAYOUT_ITEM,
    LAYOUT_START,
    METADATA_BODY,
    METADATA_FIELD,
    MODULE_NAME,
    NAME,
    OPCODE,
    OUTPUT_INDEX,
    PLAIN_VALUE,
    SHAPE_START,
    SIMPLE_ARRAY,
    SKIP,
    STRING,
    TILED_ARRAY,
)
from explorer.hlo.shape_inference import INFERRED_OPCODES, XLA_INFERS, infer_shape
from explorer.hlo.text import format_layout, format_shape  # re-exported: printing lives in text.py
from explorer.key_turns import step_aside

__all__ = ["parse_module", "parse_shape", "format_shape", "format_layout"]

_OPENERS = {"{": "}", "(": ")", "[": "]"}
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_CALLING_KEYS = frozenset(CALLING_KEYS_TEXT)
_CALLING_LIST_KEYS = frozenset(CALLING_LIST_KEYS_TEXT)
# Opcodes whose parentheses hold a literal or a number instead of operands.
_LITERAL_OPCODES = {"constant": "literal", "parameter": "parameter_number"}
_MAX_DEPTH = 64
# Shapes by the text a fast path matched, shared by all parses (shapes are
# immutable; a module repeats a few hundred distinct ones thousands of times).
_SHAPE_CACHE: dict[str, Shape] = {}
_SHAPE_CACHE_SIZE = 100_000
_NO_METADATA = Metadata()
_METADATA_FIELDS = frozenset({"op_type", "op_name", "source_file", "source_line"})

def parse_module(text: str, source: str = "", *, fast_paths: bool = True) -> HloModule:
    """Parse one HLO module.

    Args:
        text: the module as XLA prints it (`HloModule name, ...` then computations).
        source: a name for error messages (a file name), never stored.
        fast_paths: False takes the general route everywhere (for tests: the
            result must be the same).

    Raises:
        ParseError: the text is not an HLO module; names line and column.
    """
    parser = _Parser(text, source, fast_paths)
    # The parser allocates hundreds of thousands of small acyclic objects; the
    # cyclic collector would walk them again and again (a third of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return parser.module()
    except ParseError:
        raise
    except RecursionError:
        raise parser.error("nested too deeply") from None
    except Exception as exc:  # a bug here must still read as a parse failure
        raise parser.error(f"internal parser error ({type(exc).__name__}: {exc})") from exc
    finally:
        if collecting:
            gc.enable()


def entry_parameter_shapes(text: str) -> tuple[Shape, ...] | None:
    """The entry computation's parameter shapes, in parameter order, from the module's header line
    alone (`entry_computation_layout={(p0, p1, ...)->result}`); None when the header has none or
    it does not read. A 30,000-instruction module need not be parsed for them (0.4 s)."""
    header = text.split("\n", 1)[0]
    parser = _Parser(header, "", True)
    try:
        parser.expect("HloModule")
        parser.token(MODULE_NAME, "a module name")
        layout = next((value for key, value in parser.attributes() if key == "entry_computation_layout"), "")
    except ParseError:
        return None
    layout = layout[1:-1] if layout.startswith("{") else layout
    arguments = layout.rpartition("->")[0]
    if not arguments:
        return None
    try:
        shape = parse_shape(arguments)
    except ParseError:
        return None
    return shape.tuple_shapes if shape.is_tuple else (shape,)


def parse_shape(text: str) -> Shape:
    """Parse a shape on its own, e.g. `bf16[8,128]{1,0:T(8,128)(2,1)S(1)}`."""
    parser = _Parser(text, "", True)
    try:
        shape = parser.shape(0)
        parser.skip()
        if parser.pos != len(text):
            raise parser.error("unexpected text after the shape")
        return shape
    except ParseError:
        raise
    except Exception as exc:
        raise parser.error(f"internal parser error ({type(exc).__name__}: {exc})") from exc


def unescape(text: str) -> str:
    """Undo XLA's C escaping of quoted strings (`\\"`, `\\n`, octal bytes of UTF-8)."""
    if "\\" not in text:
        return text
    out = bytearray()
    last = 0
    for m in ESCAPE.finditer(text):
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

    def __init__(self, text: str, source: str, fast_paths: bool) -> None:
        self.text = text
        self.source = source
        self.fast = fast_paths
        self.pos = 0
        self._line_starts: list[int] | None = None
        # Finished computations in the order XLA finishes them (an inline body
        # before the computation that holds it): (name, instructions, is_entry, line, thread).
        self._computations: list[tuple[str, tuple[HloInstruction, ...], bool, int, str]] = []
        self._computation_names: set[str] = set()
        self._calls: list[tuple[str, int]] = []  # (callee, position) checked at the end
        self._fused: set[str] = set()  # computations a fusion instruction calls
        self._metadata_cache: dict[str, Metadata] = {}
        # The computation being read: its instructions so far, and their shapes by name.
        self._body: list[HloInstruction] = []
        self._scope: dict[str, Shape] = {}
        self._depth = 0
        self._line, self._line_pos = 1, 0  # the line at a position, for counting onwards

    # --- positions and errors ---------------------------------------------

    def line_at(self, pos: int) -> int:
        """The line of `pos`; counts on from the last position asked (the parser moves forward)."""
        if pos < self._line_pos:
            return self.line_of(pos)
        self._line += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def line_starts(self) -> list[int]:
        """Where each line begins, found once (only an error or a line number needs them)."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._line_starts

    def line_of(self, pos: int) -> int:
        return bisect_right(self.line_starts(), pos)

    def line_column(self, pos: int) -> tuple[int, int]:
        line = self.line_of(pos)
        return line, pos - self.line_starts()[line - 1] + 1

    def error(self, message: str, pos: int | None = None) -> ParseError:
        line, column = self.line_column(self.pos if pos is None else pos)
        return ParseError(message, line, column, self.source)

    def skip(self) -> None:
        gap = SKIP.match(self.text, self.pos)
        assert gap is not None  # SKIP matches the empty string too
        self.pos = gap.end()

    def peek(self) -> str:
        return self.text[self.pos:self.pos + 1]

    def found(self) -> str:
        return self.text[self.pos:self.pos + 12].split("\n")[0] or "end of text"

    def expect(self, literal: str) -> None:
        self.skip()
        if not self.text.startswith(literal, self.pos):
            raise self.error(f"expected '{literal}', found '{self.found()}'")
        self.pos += len(literal)

    def token(self, pattern: re.Pattern[str], what: str) -> re.Match[str]:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if m is None or m.end() == self.pos:
            raise self.error(f"expected {what}, found '{self.found()}'")
        self.pos = m.end()
        return m

    def nest(self) -> None:
        self._depth += 1
        if self._depth > _MAX_DEPTH:
            raise self.error("nested too deeply")

    # --- module and computations ------------------------------------------

    def module(self) -> HloModule:
        self.expect("HloModule")
        name = self.token(MODULE_NAME, "a module name").group(0)
        entry_layout = ""
        others = []
        for key, value in self.attributes():
            if key == "entry_computation_layout":
                entry_layout = value[1:-1] if value.startswith("{") else value
            else:
                others.append((key, value))
        while True:
            self.skip()
            table = FRAME_TABLE.match(self.text, self.pos)
            if table:
                self.pos = table.end()
                continue
            if self.pos >= len(self.text):
                break
            self.computation()
        parts = self._computations
        if not parts:
            raise self.error("the module has no computations")
        for callee, pos in self._calls:
            if callee not in self._computation_names:
                raise self.error(f"calls computation '{callee}', which the module does not define", pos)
        # As XLA reads it: without an ENTRY keyword the last computation is the entry.
        entry_index = next((i for i, part in enumerate(parts) if part[2]), len(parts) - 1)
        fused = self._fused
        computations = tuple(
            HloComputation(name=n, instructions=ins, is_entry=i == entry_index, is_fusion=n in fused,
                           line=line, execution_thread=thread)
            for i, (n, ins, _, line, thread) in enumerate(parts)
        )
        return HloModule(name, computations, entry_layout, tuple(others))

    def computation(self) -> None:
        """`[ENTRY] name [(params) -> shape] {instructions} [, execution_thread="..."]`."""
        step_aside()  # a warm-up parsing a 5,000-computation module lets a key's frame run first
        line = self.line_at(self.pos)
        keyword = KEYWORD.match(self.text, self.pos)
        is_entry = keyword is not None and keyword.group(1) == "ENTRY"
        if keyword is not None and is_entry:
            self.pos = keyword.end()
        name = self.token(NAME, "a computation name").group(1)
        self.skip()
        if self.peek() == "(":  # the parameter signature; shapes also in the parameters
            self.pos = self.group_end(self.pos)
            self.expect("->")
            self.shape(0)
        instructions = self.instruction_list(name)
        thread = "main"
        body_end = self.pos
        for key, value in self.attributes():
            if key != "execution_thread" or not value.startswith('"'):
                raise self.error(f"unexpected computation attribute '{key}' (only execution_thread=\"...\")",
                                 self.text.find(key + "=", body_end))
            thread = unescape(value[1:-1])
        self.add_computation(name, instructions, is_entry, line, thread)

    def add_computation(self, name: str, instructions: tuple[HloInstruction, ...], is_entry: bool,
                        line: int, thread: str) -> None:
        # XLA also rejects a second ENTRY and a name defined twice; tensorweg
        # reads them (the first wins) so that concatenated modules still open.
        self._computation_names.add(name)
        self._computations.append((name, instructions, is_entry, line, thread))

    def instruction_list(self, name: str) -> tuple[HloInstruction, ...]:
        """`{ instruction+ }` in a scope of its own (operands name instructions above them)."""
        self.expect("{")
        outer = self._body, self._scope
        self._body, self._scope = [], {}
        try:
            root_seen = False
            text = self.text
            while True:
                start = self.pos
                m = FAST_LINE.match(text, start) if self.fast else None
                instruction = self.fast_instruction(m) if m else None
                if instruction is None:
                    self.skip()
                    if self.peek() == "}":
                        self.pos += 1
                        break
                    if self.pos >= len(text):
                        raise self.error(f"computation '{name}' is not closed with '}}'")
                    start = self.pos
                    instruction = self.instruction()
                if instruction.is_root:
                    if root_seen:
                        raise self.error("a computation has only one ROOT instruction", start)
                    root_seen = True
            if not self._body:
                raise self.error(f"computation '{name}' has no instructions")
            return tuple(self._body)
        finally:
            self._body, self._scope = outer

    def inline_computation(self, key: str) -> str:
        """A body written as an attribute value (`to_apply={...}`): a computation named as XLA names it."""
        line = self.line_at(self.pos)
        self.nest()
        try:
            instructions = self.instruction_list("_")
        except ParseError as error:
            raise ParseError(f"in the computation written inline as {key}={{...}}: {error.reason}",
                             error.line, error.column, error.source) from None
        self._depth -= 1
        name, n = "_", 0
        while name in self._computation_names:
            n += 1
            name = f"_.{n}"
        self.add_computation(name, instructions, False, line, "main")
        return name

    # --- instructions -------------------------------------------------------

    def instruction(self) -> HloInstruction:
        start = self.pos
        if self.fast:
            m = FAST_LINE.match(self.text, start)
            instruction = self.fast_instruction(m) if m else None
            if instruction is not None:
                return instruction
            head = FAST_HEAD.match(self.text, start)
        else:
            head = None
        line = self.line_at(start)
        if head:
            is_root, name = head.group(1) is not None, head.group(2)
            self.pos = head.end()
        else:
            keyword = KEYWORD.match(self.text, self.pos)
            is_root = keyword is not None and keyword.group(1) == "ROOT"
            if keyword is not None and is_root:
                self.pos = keyword.end()
            name = self.token(NAME, "an instruction name").group(1)
            self.expect("=")
        if name in self._scope:
            raise self.error(f"instruction '{name}' is defined twice in this computation", start)
        return self.instruction_rhs(name, is_root, line)

    def fast_instruction(self, m: re.Match[str]) -> HloInstruction | None:
        """The instruction `FAST_LINE` matched; None (nothing read) where a shape needs the general route."""
        root, name, shape_text, opcode, operands_text = m.groups()
        shape = self.array(shape_text)
        if shape is None:
            return None
        extra: list[tuple[str, str]] = []
        if opcode in _LITERAL_OPCODES:
            extra.append((_LITERAL_OPCODES[opcode], operands_text.strip()))
            operands: tuple[str, ...] = ()
        elif "[" in operands_text:  # operands written with their shapes: each must read as one
            pairs = FAST_OPERAND.findall(operands_text)
            if any(written and self.array(written) is None for written, _ in pairs):
                return None
            operands = tuple(operand for _, operand in pairs)
        else:
            operands = _operand_names(operands_text) if operands_text else ()
        start = m.start()
        if name in self._scope:
            raise self.error(f"instruction '{name}' is defined twice in this computation", start)
        line = self.line_at(start)
        self.pos = m.end()
        return self.instruction_end(name, root is not None, line, shape, opcode, m.start(4), operands, m.start(5),
                                    extra, False)

    def instruction_rhs(self, name: str, is_root: bool, line: int, nested: bool = False,
                        shape: Shape | None = None) -> HloInstruction:
        """`[shape] opcode(operands) [, attributes]` after `name =`.

        Nested as an operand (`nested`), the shape if any was read already and
        there are no attributes (a comma there separates operands).
        """
        text = self.text
        if not nested:
            if self.fast:
                m = FAST_SHAPE.match(text, self.pos)
                if m and (shape := self.array(m.group(0))) is not None:
                    self.pos = m.end()
            if shape is None:
                self.skip()
                if SHAPE_START.match(text, self.pos):
                    shape = self.shape(0)
        fast = FAST_OPCODE.match(text, self.pos) if self.fast else None
        if fast:
            opcode_pos = fast.start(1)
            opcode = fast.group(1)
            self.pos = fast.end()
        else:
            self.skip()
            opcode_pos = self.pos
            opcode = self.token(OPCODE, "an opcode").group(0)
            self.expect("(")
        if shape is None and opcode not in XLA_INFERS:
            raise self.error(f"'{opcode}' needs a result shape before the opcode (XLA cannot infer it)", opcode_pos)
        extra: list[tuple[str, str]] = []
        operands_pos = self.pos
        if opcode in _LITERAL_OPCODES:
            end = self.group_end(self.pos - 1)
            extra.append((_LITERAL_OPCODES[opcode], self.text[self.pos:end - 1].strip()))
            operands: tuple[str, ...] = ()
            self.pos = end
        else:
            operands = self.operands()
        return self.instruction_end(name, is_root, line, shape, opcode, opcode_pos, operands, operands_pos,
                                    extra, nested)

    def instruction_end(self, name: str, is_root: bool, line: int, shape: Shape | None, opcode: str,
                        opcode_pos: int, operands: tuple[str, ...], operands_pos: int,
                        extra: list[tuple[str, str]], nested: bool) -> HloInstruction:
        """The attributes after the operands; checks the operands, infers a missing shape, records it."""
        metadata = _NO_METADATA
        backend_config = custom_call_target = fusion_kind = ""
        called: list[str] = []
        for key, value in () if nested else self.attributes():
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
            elif key in _CALLING_KEYS or key in _CALLING_LIST_KEYS:
                called.extend(_computation_names(value))
            extra.append((key, value))
        scope = self._scope
        for operand in operands:
            if operand not in scope:
                raise self.undefined_operand(operand, operands_pos)
        if called:
            self._calls.extend((callee, opcode_pos) for callee in called)
            if opcode == "fusion":
                self._fused.update(called)
        if shape is None:
            shape = self.inferred_shape(opcode, operands, extra, opcode_pos)
        instruction = HloInstruction(
            name=name, opcode=opcode, shape=shape, operands=operands,
            called_computations=tuple(called), attributes=tuple(extra), metadata=metadata,
            backend_config=backend_config, custom_call_target=custom_call_target,
            fusion_kind=fusion_kind, is_root=is_root, line=line,
        )
        self._body.append(instruction)
        scope[name] = shape
        return instruction

    def operands(self) -> tuple[str, ...]:
        """Operand names after `(`: each `[shape] name`, or an instruction nested in place."""
        fast = FAST_OPERANDS.match(self.text, self.pos) if self.fast else None
        if fast:
            self.pos = fast.end()
            return _operand_names(fast.group(1)) if fast.group(1) else ()
        names: list[str] = []
        self.skip()
        if self.peek() == ")":
            self.pos += 1
            return ()
        while True:
            self.skip()
            shape = self.shape(0) if SHAPE_START.match(self.text, self.pos) else None
            name_match = self.token(NAME, "an operand name")
            name = name_match.group(1)
            # Newer XLA names one output of a multi-output instruction as
            # `%name#0`; the operand is still the instruction `name`.
            output_index = OUTPUT_INDEX.match(self.text, self.pos)
            if output_index:
                self.pos = output_index.end()
            self.skip()
            if self.peek() == "(" and not output_index and not name_match.group(0).startswith("%"):
                # `add(a, negate(b))`: XLA's shorthand for an instruction of its own.
                name = self.nested_instruction(shape, name_match.start())
                self.skip()
            names.append(name)
            c = self.peek()
            self.pos += 1
            if c == ")":
                return tuple(names)
            if c != ",":
                raise self.error("expected ',' or ')' after an operand", self.pos - 1)

    def undefined_operand(self, name: str, start: int) -> ParseError:
        """An operand that names no instruction above it in the computation (XLA rejects it too)."""
        m = re.compile(r"%?" + re.escape(name) + r"(?![\w.\-])").search(self.text, start)
        return self.error(f"operand '{name}' is not an instruction defined above it", m.start() if m else start)

    def nested_instruction(self, shape: Shape | None, pos: int) -> str:
        """`opcode(operands)` written as an operand: an instruction named `opcode.anon`, as XLA names it."""
        self.pos = pos
        line = self.line_at(pos)
        self.nest()
        opcode = OPCODE.match(self.text, pos)
        if opcode is None:  # a name that no opcode spells (`_x(a)`) written as an operand
            raise self.error(f"expected an opcode, found '{self.found()}'")
        base = opcode.group(0) + ".anon"
        name, n = base, 0
        while name in self._scope:
            n += 1
            name = f"{base}.{n}"
        self.instruction_rhs(name, False, line, nested=True, shape=shape)
        self._depth -= 1
        return name

    def inferred_shape(self, opcode: str, operands: tuple[str, ...], attributes: list[tuple[str, str]],
                       pos: int) -> Shape:
        """The result shape XLA would infer, for the simple cases; else a ParseError asking for it."""
        shapes = [self._scope[name] for name in operands]
        shape = infer_shape(opcode, shapes, attributes)
        if shape is None:
            written = ", ".join(format_shape(s) for s in shapes)
            raise self.error(f"cannot infer the result shape of '{opcode}' from ({written}); write it before "
                             f"the opcode (inferred only for {INFERRED_OPCODES})", pos)
        return shape

    def attributes(self) -> list[tuple[str, str]]:
        """`, key=value` pairs up to the end of the instruction (or header)."""
        found: list[tuple[str, str]] = []
        text = self.text
        while True:
            if self.fast:
                attributes = FAST_ATTRIBUTES.match(text, self.pos)
                assert attributes is not None  # FAST_ATTRIBUTES matches the empty string too
                end = attributes.end()
                if end != self.pos:
                    found += FAST_ATTRIBUTE.findall(text, self.pos, end)
                    self.pos = end
                if at_end := FAST_ATTRIBUTES_END.match(text, end):
                    self.pos = at_end.end()  # only blanks and line breaks, as the general route skips them
                    return found
            self.skip()
            if self.peek() != ",":
                return found
            self.pos += 1
            key = self.token(ATTR_KEY, "an attribute name followed by '='").group(1)
            self.skip()
            start = self.pos
            c = self.peek()
            if c == "{" and key in _CALLING_KEYS:
                found.append((key, "%" + self.inline_computation(key)))
                continue
            if c == "{" and key in _CALLING_LIST_KEYS:
                found.append((key, self.computation_list(key)))
                continue
            if key == "literal" and SHAPE_START.match(text, start):
                # custom-call `literal=s32[2]{0} {1, 2}`: a shape, then the values.
                self.shape(0)
                self.skip()
            if key == "replica_groups" and text.startswith("mesh[", start):
                # jax 0.10 meshes: `replica_groups=mesh['axis_0'=2,'axis_1'=2] {'axis_0'}`, a mesh then its axes.
                self.pos = self.value_end(self.pos)
                self.skip()
            self.pos = self.value_end(self.pos)
            if self.pos == start:
                raise self.error(f"attribute '{key}' has no value")
            found.append((key, text[start:self.pos].rstrip()))

    def computation_list(self, key: str) -> str:
        """`{%a, %b}` verbatim, or with bodies written inline read as computations (`{%_, %_.1}`)."""
        start = self.pos
        end = self.group_end(start)
        if "{" not in STRING.sub("", self.text[start + 1:end]):
            self.pos = end
            return self.text[start:end]
        self.pos += 1
        names = []
        while True:
            self.skip()
            if self.peek() == "{":
                names.append(self.inline_computation(key))
            else:
                names.append(self.token(NAME, "a computation name").group(1))
            self.skip()
            c = self.peek()
            self.pos += 1
            if c == "}":
                return "{" + ", ".join("%" + n for n in names) + "}"
            if c != ",":
                raise self.error("expected ',' or '}' in a list of computations", self.pos - 1)

    def metadata(self, value: str) -> Metadata:
        if self.fast:
            # Instructions of one layer share their metadata text; read it once.
            metadata = self._metadata_cache.get(value)
            if metadata is None and FAST_METADATA.fullmatch(value):
                metadata = self.metadata_from(FAST_METADATA_FIELD.findall(value), value)
            if metadata is not None:
                self._metadata_cache[value] = metadata
                return metadata
        # Errors point into the value, the last text like it before the position.
        at = self.text.rfind(value, 0, self.pos)
        if not (value.startswith("{") and value.endswith("}")):
            raise self.error("metadata must be written in braces", at)
        body = value[1:-1]
        checked = METADATA_BODY.match(body)
        assert checked is not None  # METADATA_BODY matches the empty string too
        if checked.end() != len(body):
            near = body[checked.end():checked.end() + 20]
            raise self.error(f"malformed metadata near '{near}'", at + 1 + checked.end())
        return self.metadata_from(METADATA_FIELD.findall(body), value)

    def metadata_from(self, items: list[tuple[str, str]], value: str) -> Metadata:
        """Metadata from its `key=value` fields, values as written (strings with their quotes)."""
        fields: dict[str, str] = {}
        extras = []
        for key, raw in items:
            text = unescape(raw[1:-1]) if raw.startswith('"') else raw
            if key in _METADATA_FIELDS:
                fields[key] = text
            else:
                extras.append((key, text))
        line_text = fields.get("source_line", "0")
        if not INT.fullmatch(line_text):
            raise self.error(f"metadata source_line is not a number: '{line_text[:20]}'",
                             self.text.rfind(value, 0, self.pos))
        return Metadata(
            op_type=fields.get("op_type", ""), op_name=fields.get("op_name", ""),
            source_file=fields.get("source_file", ""), source_line=int(line_text),
            extras=tuple(extras),
        )

    # --- values: verbatim text with balanced brackets and strings ------------

    def value_end(self, pos: int) -> int:
        text = self.text
        while True:
            m = PLAIN_VALUE.match(text, pos)
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
        m = STRING.match(self.text, pos)
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
            m = GROUP_TEXT.match(text, pos)
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

    def array(self, key: str) -> Shape | None:
        """The shape a fast path matched as `key`, read as the general route reads it, once per distinct text.

        None when the general route would not read exactly that text as one
        shape: then the caller takes the general route at that position.
        """
        shape = _SHAPE_CACHE.get(key)
        if shape is not None:
            return shape
        if key.startswith("("):  # arrays with `, ` between them (never inside one)
            parts = [self.array(part) for part in key[1:-1].split(", ")] if key != "()" else []
            arrays = tuple(part for part in parts if part is not None)
            if len(arrays) < len(parts):
                return None
            shape = Shape("tuple", tuple_shapes=arrays)
        elif simple := SIMPLE_ARRAY.fullmatch(key):
            element_type, dims, minor = simple.groups()
            shape = Shape(element_type, _ints(dims), (), None if minor is None else Layout(_ints(minor)))
        elif tiled := TILED_ARRAY.fullmatch(key):
            element_type, dims, minor, tiles, space = tiled.groups()
            tiling = tuple(Tile(_ints(t)) for t in tiles[1:-1].split(")(")) if tiles else ()
            shape = Shape(element_type, _ints(dims), (), Layout(_ints(minor), tiling, int(space) if space else 0))
        else:
            reader = _Parser(key, "", False)
            try:
                shape = reader.shape(0)
            except ParseError:
                return None
            if reader.pos != len(key):
                return None
        if len(_SHAPE_CACHE) >= _SHAPE_CACHE_SIZE:
            _SHAPE_CACHE.clear()
        _SHAPE_CACHE[key] = shape
        return shape

    def shape(self, depth: int) -> Shape:
        """`f32[2,<=3]{1,0:T(8,128)}`, `(shape, ...)`, or a buffer `b(shape)`."""
        text = self.text
        self.skip()
        if self.fast:
            m = FAST_SHAPE.match(text, self.pos)
            if m and (shape := self.array(m.group(0))) is not None:
                self.pos = m.end()
                return shape
        if depth >= _MAX_DEPTH:
            raise self.error("tuple shapes nested too deeply")
        if self.peek() == "(":
            return self.tuple_shape(depth)
        start = self.pos
        m = ELEMENT_TYPE.match(text, self.pos)
        if m is None:
            raise self.error("expected a shape")
        self.pos = m.end()
        self.skip()
        if m.group(0) == "b" and self.peek() == "(":
            self.pos += 1
            inner = self.shape(depth + 1)
            self.expect(")")
            return Shape("buffer", tuple_shapes=(inner,))
        if self.peek() != "[":
            raise self.error("expected a shape", start)
        self.pos += 1
        dims, dynamic = self.dimensions()
        return Shape(m.group(0), tuple(dims), tuple(dynamic) if any(dynamic) else (), self.optional_layout())

    def tuple_shape(self, depth: int) -> Shape:
        """`(shape, ...)`, at its opening parenthesis."""
        self.pos += 1
        parts = []
        self.skip()
        if self.peek() != ")":
            while True:
                parts.append(self.shape(depth + 1))
                self.skip()
                if self.peek() != ",":
                    break
                self.pos += 1
        self.expect(")")
        return Shape("tuple", tuple_shapes=tuple(parts))

    def dimensions(self) -> tuple[list[int], list[bool]]:
        """`2,<=3,?]` after a shape's `[`: the sizes (-1 when unknown) and which are dynamic."""
        text = self.text
        dims, dynamic = [], []
        self.skip()
        if self.peek() == "]":
            self.pos += 1
            return dims, dynamic
        while True:
            self.skip()
            bounded = text.startswith("<=", self.pos)
            if bounded:
                self.pos += 2
                self.skip()
            if self.peek() == "?":
                self.pos += 1
                dims.append(-1)
                dynamic.append(True)
            else:
                d = INT.match(text, self.pos)
                if d is None or d.group(0).startswith("-"):
                    raise self.error("expected a dimension size")
                self.pos = d.end()
                dims.append(int(d.group(0)))
                dynamic.append(bounded)
            self.skip()
            c = self.peek()
            self.pos += 1
            if c == "]":
                return dims, dynamic
            if c != ",":
                raise self.error("expected ',' or ']' in the dimensions", self.pos - 1)

    def optional_layout(self) -> Layout | None:
        """The `{...}` layout after a shape's dimensions, if one follows (else nothing is consumed)."""
        after = self.pos
        self.skip()
        if LAYOUT_START.match(self.text, self.pos):
            return self.layout()
        self.pos = after
        return None

    def layout(self) -> Layout:
        """`{minor_to_major[:items]}` after a shape's dimensions."""
        self.pos += 1
        minor: list[int] = []
        tiles: list[Tile] = []
        extras: list[str] = []
        memory_space = 0
        self.skip()
        while self.peek() not in ("}", ":"):
            minor.append(int(self.token(INT, "a dimension number").group(0)))
            self.skip()
            if self.peek() == ",":
                self.pos += 1
                self.skip()
            elif self.peek() not in ("}", ":"):
                raise self.error("expected ',' '}' or ':' in a layout")
        if self.peek() == ":":
            self.pos += 1
            self.skip()
            while self.peek() != "}":
                start = self.pos
                m = LAYOUT_ITEM.match(self.text, self.pos)
                self.pos = m.end() if m else self.pos
                self.skip()
                if m is None or self.peek() != "(":
                    raise self.error("expected a layout attribute such as T(8,128) or S(1)", start)
                if m.group(0) == "T":
                    while self.peek() == "(":
                        tiles.append(Tile(self.tile(start)))
                        self.skip()
                elif m.group(0) == "S" and (space := self.memory_space()) is not None:
                    memory_space = space
                else:
                    groups = []
                    while self.peek() == "(":
                        end = self.group_end(self.pos)
                        groups.append(COMMENT.sub("", self.text[self.pos:end]))
                        self.pos = end
                        self.skip()
                    extras.append(m.group(0) + "".join("".join(g.split()) for g in groups))
                self.skip()
        self.pos += 1
        return Layout(tuple(minor), tuple(tiles), memory_space, tuple(extras))

    def memory_space(self) -> int | None:
        """`(n)` of `S(n)`; None (position unchanged) when it is not one number."""
        start = self.pos
        self.pos += 1
        self.skip()
        m = INT.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            self.skip()
            if self.peek() == ")":
                self.pos += 1
                return int(m.group(0))
        self.pos = start
        return None

    def tile(self, item_start: int) -> tuple[int, ...]:
        """`(8,128)` of a tile; XLA's `*` (combine dimension) becomes -1. Errors point at the `T`."""
        self.pos += 1
        values = []
        while True:
            self.skip()
            if self.peek() == "*":
                self.pos += 1
                values.append(-1)
            else:
                m = INT.match(self.text, self.pos)
                if m is None or m.group(0).startswith("-"):
                    raise self.error(f"bad tile dimension '{self.found()}'", item_start)
                self.pos = m.end()
                values.append(int(m.group(0)))
            self.skip()
            c = self.peek()
            self.pos += 1
            if c == ")":
                return tuple(values)
            if c != ",":
                raise self.error("expected ',' or ')' in a tile", item_start)


def _ints(text: str) -> tuple[int, ...]:
    """`8,128` -> (8, 128); "" -> ()."""
    return tuple(int(d) for d in text.split(",")) if text else ()


def _operand_names(text: str) -> tuple[str, ...]:
    """`%a, %b` (as the fast paths match it: names, commas, blanks) -> ("a", "b")."""
    return tuple(text.replace("%", "").replace(" ", "").replace("\t", "").split(","))


def _computation_names(value: str) -> list[str]:
    """`%a` or `{%a, %b}` -> ["a", "b"] (comments between them dropped)."""
    if not value.startswith("{") and "/" not in value and "," not in value:  # `%a`, as XLA prints it
        return [value.strip().lstrip("%")]
    inner = value[1:-1] if value.startswith("{") and value.endswith("}") else value
    inner = COMMENT.sub(" ", inner)
    return [part.strip().lstrip("%") for part in inner.split(",") if part.strip()]
