"""The HLO parser reads what XLA writes, as XLA reads it (issue 13).

One fixture per class of text it once misread (`tests/fixtures/hlo/xla_syntax/`,
hand-written in the style of XLA's tests, the source named in each file),
malformed shorthand that must be a ParseError naming the construct, a property
test that the fast paths read exactly what the general route reads, and (e2e)
XLA's own parser from jaxlib as the reference for what is accepted and for the
structure it builds.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.errors import ParseError
from explorer.hlo.model import HloModule, Layout, Shape, Tile
from explorer.hlo.parser import format_shape, parse_module, parse_shape
from explorer.model.serial import from_jsonable, to_jsonable

from bench.bench_parser import generate_module

FIXTURES = Path(__file__).parent / "fixtures" / "hlo"
SYNTAX = FIXTURES / "xla_syntax"
SYNTAX_FILES = sorted(SYNTAX.glob("*.hlo"))
REAL_FILES = sorted(FIXTURES.glob("*_hlo.txt"))


def load(name: str) -> HloModule:
    return parse_module((SYNTAX / name).read_text(encoding="utf-8"), name)


def instruction(module: HloModule, name: str):
    for _, inst in module.all_instructions():
        if inst.name == name:
            return inst
    raise AssertionError(f"{name} not in {module.name}")


# --- one fixture per class ----------------------------------------------------


def test_computation_attributes_after_the_closing_brace():
    module = load("computation_attributes.hlo")
    host = module.computation("host_computation")
    assert host.execution_thread == "host"
    assert module.entry.name == "main" and module.entry.execution_thread == "main"
    assert instruction(module, "start").called_computations == ("host_computation",)
    assert instruction(module, "two").shape == Shape("s32", (), (), Layout((), (Tile((128,)),)))


def test_buffer_shapes():
    module = load("buffer_shape.hlo")
    pinned = instruction(module, "pinned")
    assert pinned.shape == Shape("buffer", tuple_shapes=(Shape("f32", (16,), (), Layout((0,))),))
    assert pinned.shape.is_buffer and pinned.shape.byte_size == 64
    assert format_shape(pinned.shape) == "b(f32[16]{0})"
    assert parse_shape("b(f32[16]{0})") == pinned.shape
    assert [s.element_type for s in instruction(module, "pair").shape.tuple_shapes] == ["buffer", "f32"]


def test_metadata_values_in_braces_and_commas_between_fields():
    module = load("metadata_braces.hlo")
    neg = instruction(module, "n").metadata
    assert (neg.op_type, neg.op_name) == ("Neg", "model/neg")
    assert neg.extras == (("profile_type", "{1}"), ("deduplicated_name", "fusion.1"))
    absolute = instruction(module, "m").metadata
    assert (absolute.op_type, absolute.source_file, absolute.source_line) == ("Abs", "model.py", 7)
    assert absolute.extras == (("profile_type", "{1,2}"),)


def test_custom_call_literal_is_one_attribute():
    call = instruction(load("custom_call_literal.hlo"), "c")
    assert call.custom_call_target == "foo"
    assert call.attribute("literal") == "s32[2]{0} {1, 2}"
    assert call.attribute("api_version") == "API_VERSION_STATUS_RETURNING"


def test_line_break_or_comment_after_equals():
    module = load("line_break_after_equals.hlo")
    fft = instruction(module, "fft")
    assert fft.is_root and fft.opcode == "fft" and fft.operands == ("b",)
    assert fft.shape == Shape("c64", (8, 32), (), Layout((1, 0)))
    assert instruction(module, "a").shape == fft.shape
    assert instruction(module, "b").opcode == "negate"
    assert fft.line == 10  # where its name is written, not where the shape is


def test_space_before_dimensions_and_layout():
    module = load("space_before_layout.hlo")
    assert instruction(module, "a").shape == Shape("f32", (51, 16), (), Layout((0, 1)))
    assert instruction(module, "i").shape == Shape("s32", (5696, 10, 4))
    assert instruction(module, "t").shape == Shape("bf16", (8, 128), (), Layout((1, 0), (Tile((8, 128)), Tile((2, 1)))))
    assert format_shape(instruction(module, "r").shape) == "(f32[51,16]{0,1}, s32[5696,10,4])"


def test_inline_bodies_are_computations_named_as_xla_names_them():
    module = load("inline_bodies.hlo")
    assert [c.name for c in module.computations] == ["_", "_.1", "_.2", "_.3", "main"]
    fusion = instruction(module, "f")
    assert fusion.called_computations == ("_",) and fusion.attribute("calls") == "%_"
    assert module.computation("_").is_fusion
    assert [i.name for i in module.computation("_").instructions] == ["x", "y", "z"]
    reduce = instruction(module, "r")
    assert reduce.called_computations == ("_.1",) and not module.computation("_.1").is_fusion
    conditional = instruction(module, "c")
    assert conditional.called_computations == ("_.2", "_.3")
    assert conditional.attribute("branch_computations") == "{%_.2, %_.3}"
    assert module.computation("_.3").root.opcode == "abs"
    # No callee name is ever body text.
    for _, inst in module.all_instructions():
        for callee in inst.called_computations:
            assert module.computation(callee) is not None


def test_module_without_entry_keyword_takes_the_last_computation():
    module = load("no_entry_keyword.hlo")
    assert module.entry.name == "main"
    assert [c.is_entry for c in module.computations] == [False, True]


def test_shorthand_infers_shapes_and_unnests_instructions():
    module = load("shorthand.hlo")
    main = module.entry
    assert [i.name for i in main.instructions] == [
        "a", "b", "one", "c", "t", "g", "scaled", "negate.anon", "multiply.anon", "s"]
    assert instruction(module, "c").shape == Shape("pred", (4,))
    assert instruction(module, "t").shape == Shape("tuple", tuple_shapes=(Shape("f32", (4,)), Shape("pred", (4,))))
    assert instruction(module, "g").shape == Shape("pred", (4,))
    assert instruction(module, "scaled").shape == Shape("f32", (4,))  # an array times a scalar
    negate = instruction(module, "negate.anon")
    assert (negate.operands, negate.shape, negate.line) == (("b",), Shape("f32", (4,)), 14)
    assert instruction(module, "multiply.anon").operands == ("a", "negate.anon")
    root = main.root
    assert (root.name, root.operands, root.shape) == ("s", ("g", "scaled", "multiply.anon"), Shape("f32", (4,)))


@pytest.mark.parametrize("path", SYNTAX_FILES, ids=lambda p: p.stem)
def test_syntax_fixture_survives_json(path: Path):
    module = parse_module(path.read_text(encoding="utf-8"))
    assert from_jsonable(HloModule, json.loads(json.dumps(to_jsonable(module)))) == module


# --- what stays an error, naming the construct ------------------------------------

HEAD = "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[3] parameter(1)\n"
CALLEE = "HloModule m\nf {\n  ROOT p = f32[] parameter(0)\n}\nENTRY e {\n  a = f32[] parameter(0)\n"
ONE = "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)"


@dataclasses.dataclass(frozen=True)
class Malformed:
    text: str
    line: int
    column: int
    words: str  # in the message
    xla_accepts: bool = False  # XLA infers more shapes than we do; everything else it rejects too


MALFORMED = {
    "shapeless-dot": Malformed(
        HEAD + "  ROOT d = dot(a, a), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n", 5, 12,
        "cannot infer the result shape of 'dot'", xla_accepts=True),
    "shapeless-fusion": Malformed(
        CALLEE + "  ROOT x = fusion(a), kind=kLoop, calls=f\n}\n", 7, 12, "'fusion' needs a result shape"),
    "shapeless-add-mismatch": Malformed(
        HEAD + "  ROOT s = add(a, b)\n}\n", 5, 12, "cannot infer the result shape of 'add'"),
    "shapeless-gte-without-index": Malformed(
        HEAD + "  t = tuple(a, b)\n  ROOT g = get-tuple-element(t)\n}\n", 6, 12,
        "cannot infer the result shape of 'get-tuple-element'"),
    "shapeless-parameter": Malformed(
        "HloModule m\nENTRY e {\n  ROOT a = parameter(0)\n}\n", 3, 12, "'parameter' needs a result shape"),
    "undefined-operand": Malformed(
        HEAD + "  ROOT s = f32[4] add(a, zz)\n}\n", 5, 26, "operand 'zz' is not an instruction"),
    "operand-defined-below": Malformed(
        HEAD + "  s = f32[4] add(a, t)\n  ROOT t = f32[4] add(a, a)\n}\n", 5, 21, "operand 't' is not an instruction"),
    "nested-with-attributes": Malformed(
        HEAD + "  ROOT s = add(a, compare(a, a), direction=LT)\n}\n", 5, 43, "expected ',' or ')' after an operand"),
    "nested-not-an-opcode": Malformed(
        HEAD + "  ROOT s = f32[4] add(a, _x(a))\n}\n", 5, 26, "expected an opcode, found '_x(a))'"),
    "nested-named": Malformed(
        HEAD + "  ROOT s = f32[4] add(a, %n negate(a))\n}\n", 5, 29, "expected ',' or ')'"),
    "inline-body-not-instructions": Malformed(
        HEAD + "  ROOT r = f32[] reduce(a, a), dimensions={0}, to_apply={add}\n}\n", 5, 61,
        "in the computation written inline as to_apply={...}: expected '='"),
    "inline-branch-sees-no-outer-names": Malformed(
        HEAD + "  ROOT c = f32[] conditional(a, a), branch_computations={{ ROOT n = f32[] negate(a) }\n}\n", 5, 82,
        "in the computation written inline as branch_computations={...}: operand 'a' is not an instruction"),
    "undefined-callee": Malformed(
        HEAD + "  ROOT r = f32[] reduce(a, a), dimensions={0}, to_apply=%nowhere\n}\n", 5, 18,
        "calls computation 'nowhere', which the module does not define"),
    "attribute-before-body": Malformed(
        "HloModule m\nENTRY e, execution_thread=\"x\" {\n  ROOT c = f32[] constant(1)\n}\n", 2, 8, "expected '{'"),
    "unknown-computation-attribute": Malformed(
        ONE + "\n}, color=\"x\"\n", 4, 4, "unexpected computation attribute 'color'"),
    "space-before-attribute-equals": Malformed(
        ONE + ", sharding ={replicated}\n}\n", 3, 31, "an attribute name followed by '='"),
    "two-roots": Malformed(
        HEAD + "  ROOT s = f32[4] add(a, a)\n  ROOT t = f32[4] add(a, a)\n}\n", 6, 3, "only one ROOT"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_shorthand_names_construct_line_and_column(case: str):
    bad = MALFORMED[case]
    for fast_paths in (True, False):
        with pytest.raises(ParseError) as caught:
            parse_module(bad.text, "test.hlo", fast_paths=fast_paths)
        assert bad.words in str(caught.value)
        assert (caught.value.line, caught.value.column) == (bad.line, bad.column), str(caught.value)


# --- fast paths read exactly what the general route reads --------------------------

SEPARATORS = [" ", "  ", "\t", "\n", "\n    ", "/* c */", " /*index=5*/ ", "// note\n", "\r\n"]
# Bytes that make text malformed, so that errors are compared as well.
NOISE = ["", "", "", "", ",", "(", "}", "=", "%", "#0", "[", '"', "ROOT ", "{0}"]
# Real output with tiled layouts (TPU), operands printed with their shapes (TF before
# optimisation) and `/*index=5*/` comments inside tuple shapes (an LSTM's loop state).
REAL_BASES = ["mnist_cnn_tpu-v5e_optimized_hlo.txt", "mnist_cnn_cpu_hlo.txt", "tiny_lstm_cpu_optimized_hlo.txt"]
BASES = ([p.read_text(encoding="utf-8") for p in SYNTAX_FILES]
         + [(FIXTURES / name).read_text(encoding="utf-8") for name in REAL_BASES] + [generate_module(60)])
# Places a separator may go: before or after punctuation, after a word.
BOUNDARY = re.compile(r"(?<=[=,(){}\[\]:>])|(?=[=,(){}\[\]:-])|(?<=\w)(?=\s)")
BOUNDARIES = [[m.start() for m in BOUNDARY.finditer(text)] for text in BASES]


def _outcome(text: str, fast_paths: bool):
    try:
        return parse_module(text, "gen.hlo", fast_paths=fast_paths)
    except ParseError as error:
        return str(error)


@st.composite
def edited_modules(draw) -> str:
    index = draw(st.integers(0, len(BASES) - 1))
    text, places = BASES[index], BOUNDARIES[index]
    chosen = sorted(set(draw(st.lists(st.sampled_from(places), min_size=1, max_size=12))), reverse=True)
    for place in chosen:
        insert = draw(st.sampled_from(SEPARATORS)) + draw(st.sampled_from(NOISE))
        text = text[:place] + insert + text[place:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_modules())
def test_fast_paths_read_exactly_what_the_general_route_reads(text: str):
    assert _outcome(text, True) == _outcome(text, False)


def _without_lines(module: HloModule) -> HloModule:
    return dataclasses.replace(module, computations=tuple(
        dataclasses.replace(c, line=0, instructions=tuple(dataclasses.replace(i, line=0) for i in c.instructions))
        for c in module.computations))


# Separators XLA's lexer skips where they cannot change a kept value: in the
# head of an instruction line (up to the end of its operands), around `=`,
# between shape and opcode, before a layout, around operand names.
SAFE = re.compile(r"(?<= =)(?= )|(?<=[\])}])(?= [a-z][\w\-]*\()|(?<=\w\()(?=%)|(?<=, )(?=%)|(?<=\])(?=\{[\d:])")
INSTRUCTION_HEAD = re.compile(r"(?m)^  (?:ROOT )?%?[\w.\-]+ = .*?(?=\), |\)$|$)")


def _safe_places(text: str) -> list[int]:
    return [head.start() + m.start()
            for head in INSTRUCTION_HEAD.finditer(text) for m in SAFE.finditer(head.group(0))]


SAFE_PLACES = [_safe_places(text) for text in BASES]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_whitespace_and_comments_between_tokens_change_nothing(data):
    index = data.draw(st.integers(0, len(BASES) - 1))
    text, places = BASES[index], SAFE_PLACES[index]
    chosen = sorted(set(data.draw(st.lists(st.sampled_from(places), min_size=1, max_size=20))), reverse=True)
    edited = text
    for place in chosen:
        edited = edited[:place] + data.draw(st.sampled_from(SEPARATORS)) + edited[place:]
    expected = _without_lines(parse_module(text))
    assert _without_lines(parse_module(edited)) == expected
    assert _without_lines(parse_module(edited, fast_paths=False)) == expected


@pytest.mark.parametrize("path", REAL_FILES + SYNTAX_FILES, ids=lambda p: p.name)
def test_general_route_reads_every_fixture_as_the_fast_paths_do(path: Path):
    text = path.read_text(encoding="utf-8")
    assert parse_module(text, fast_paths=False) == parse_module(text)


def test_generated_benchmark_module_parses_completely():
    text = generate_module(600)
    module = parse_module(text)
    assert sum(len(c.instructions) for c in module.computations) == len(re.findall(r"(?m)^  (?:ROOT )?%\S+ = ", text))
    assert module.entry.name == "main.1"
    fusion = instruction(module, "fusion.3")
    assert fusion.shape.layout == Layout((2, 1, 0), (Tile((8, 128)), Tile((2, 1))))
    assert module.computation("fused_computation.3").is_fusion
    assert json.loads(fusion.backend_config)["flag_configs"] == []


# --- XLA's own parser as the reference (e2e: loads jaxlib) -------------------------


def _xla_structure(text: str) -> dict:
    """{computation: [(opcode, operand count), ...]} and the entry, as XLA's parser reads `text`."""
    from jaxlib import _hlo  # only here: the app never loads XLA's parser

    module = _hlo.hlo_module_from_text(text)
    structure = {}
    for computation in module.computations():
        structure[computation.name] = [(_ASYNC.get(str(i.opcode)) or _xla_opcode(i.to_string()), len(i.operands()))
                                       for i in computation.instructions()]
    entry = re.search(r"(?m)^ENTRY %?([^\s(]+)", module.to_string()).group(1)
    return {"computations": structure, "entry": entry}


# XLA prints an async op by what it wraps (`multiply-start`); the opcode is `async-start`.
_ASYNC = {"HloOpcode.kAsyncStart": "async-start", "HloOpcode.kAsyncUpdate": "async-update",
          "HloOpcode.kAsyncDone": "async-done"}


def _xla_opcode(line: str) -> str:
    """The opcode in one instruction as XLA prints it: `%n = <shape> opcode(...)`."""
    rest = line.split(" = ", 1)[1]
    if rest.startswith("(") or rest.startswith("b("):  # a tuple or buffer shape: skip it whole
        depth, end = 0, 0
        for c in rest:
            depth += c == "("
            depth -= c == ")"
            end += 1
            if depth == 0 and c == ")":
                break
        rest = rest[end:]
    else:
        rest = rest.split(" ", 1)[1]
    return rest.strip().split("(", 1)[0]


def _our_structure(text: str) -> dict:
    module = parse_module(text)
    return {"computations": {c.name: [(i.opcode, len(i.operands)) for i in c.instructions]
                             for c in module.computations},
            "entry": module.entry.name}


# The H200 capture came from a newer XLA (JAX 0.11, `%conv#0` operands) than the
# jaxlib pinned here, whose parser predates that syntax.
XLA_READABLE = [p for p in REAL_FILES if "gpu-local-h200" not in p.name]


@pytest.mark.e2e
@pytest.mark.parametrize("path", SYNTAX_FILES + XLA_READABLE, ids=lambda p: p.name)
def test_xla_reads_the_same_structure(path: Path):
    text = path.read_text(encoding="utf-8")
    assert _our_structure(text) == _xla_structure(text)


@pytest.mark.e2e
def test_xla_reads_the_generated_benchmark_module_the_same():
    text = generate_module(1200)
    assert _our_structure(text) == _xla_structure(text)


@pytest.mark.e2e
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_xla_rejects_what_we_reject_except_the_inference_we_leave_out(case: str):
    try:
        _xla_structure(MALFORMED[case].text)
        accepted = True
    except RuntimeError:
        accepted = False
    assert accepted == MALFORMED[case].xla_accepts
