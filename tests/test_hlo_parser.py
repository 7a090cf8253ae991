"""The HLO parser on real XLA output (CPU, TPU v5e, GPU H100) and on broken text.

Fixture facts asserted here were read from the fixture files, which the real
compilers printed (see tests/fixtures/hlo/README.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.errors import ParseError
from explorer.hlo import parser as hlo_parser
from explorer.hlo.model import HloModule, Layout, Shape, Tile
from explorer.hlo.parser import entry_parameter_shapes, format_shape, parse_module, parse_shape
from explorer.model.serial import from_jsonable, to_jsonable

FIXTURES = Path(__file__).parent / "fixtures" / "hlo"
HLO_FILES = sorted(FIXTURES.glob("*_hlo.txt"))
# An instruction line as XLA prints it: indented `[ROOT] [%]name = `.
INSTRUCTION_LINE = re.compile(r"(?m)^\s+(?:ROOT )?%?([\w.\-]+) = ")


def load(name: str) -> HloModule:
    return parse_module((FIXTURES / name).read_text(encoding="utf-8"), name)


def instruction(module: HloModule, name: str):
    for _, inst in module.all_instructions():
        if inst.name == name:
            return inst
    raise AssertionError(f"{name} not in {module.name}")


# --- every fixture ------------------------------------------------------------


def test_fixtures_cover_three_targets_and_both_stages():
    names = {p.name for p in HLO_FILES}
    for stem in ("mnist_cnn", "tiny_lstm"):
        for target in ("cpu", "tpu-v5e", "gpu-h100"):
            assert f"{stem}_{target}_hlo.txt" in names
            assert f"{stem}_{target}_optimized_hlo.txt" in names


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.stem)
def test_every_fixture_parses_completely(path: Path):
    text = path.read_text(encoding="utf-8")
    module = parse_module(text, path.name)
    parsed = [inst.name for _, inst in module.all_instructions()]
    assert parsed == INSTRUCTION_LINE.findall(text)
    assert module.entry is not None
    lines = text.splitlines()
    for computation in module.computations:
        assert sum(i.is_root for i in computation.instructions) == 1, computation.name
        assert computation.name in lines[computation.line - 1]
        for inst in computation.instructions:
            assert re.search(rf"%?{re.escape(inst.name)} = ", lines[inst.line - 1])
            for callee in inst.called_computations:
                assert module.computation(callee) is not None, (inst.name, callee)


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.stem)
def test_parsed_module_survives_json(path: Path):
    module = parse_module(path.read_text(encoding="utf-8"))
    assert from_jsonable(HloModule, json.loads(json.dumps(to_jsonable(module)))) == module


# --- facts from the real output -------------------------------------------------


def test_cpu_optimized_convolution_and_fusion():
    module = load("mnist_cnn_cpu_optimized_hlo.txt")
    assert module.name == "a_inference_forward_72__.5"
    assert ("is_scheduled", "true") in module.attributes
    assert module.entry_computation_layout.endswith("->f32[2,10]{1,0}")
    conv = instruction(module, "convolution.1")
    assert conv.opcode == "convolution"
    assert conv.shape == Shape("f32", (2, 26, 26, 8), (), Layout((3, 2, 1, 0)))
    assert conv.operands == ("arg0.1", "arg1.1")
    assert conv.attribute("window") == "{size=3x3}"
    assert conv.attribute("dim_labels") == "b01f_01io->b01f"
    assert conv.metadata.op_type == "Conv2D"
    assert conv.metadata.op_name == "mnist_cnn_1/conv2d_1/convolution"
    assert conv.metadata.source_file == "tensorflow/python/framework/ops.py"
    assert conv.metadata.source_line == 1221
    fusion = instruction(module, "broadcast_maximum_fusion")
    assert (fusion.opcode, fusion.fusion_kind) == ("fusion", "kLoop")
    assert fusion.called_computations == ("fused_computation.3",)
    assert module.computation("fused_computation.3").is_fusion
    # to_apply computations of reduces are not fusion computations
    assert not module.computation("region_0.3").is_fusion
    assert module.entry.root.name == "broadcast_divide_fusion"
    dot = instruction(module, "MatMul.2")
    assert dot.attribute("frontend_attributes") == '{grad_x="false",grad_y="false"}'


def test_cpu_unoptimized_operands_with_inline_shapes():
    module = load("mnist_cnn_cpu_hlo.txt")
    inst = instruction(module, "Softmax.7")
    assert inst.operands == ("Softmax.5", "Softmax.6")
    assert inst.shape == Shape("f32", (), (), None)
    assert instruction(module, "arg1.1").attribute("parameter_number") == "1"
    assert instruction(module, "arg1.1").attribute("parameter_replication") == "{false}"


def test_tpu_tiles_and_memory_spaces():
    module = load("mnist_cnn_tpu-v5e_optimized_hlo.txt")
    fusion = instruction(module, "select_maximum_fusion")
    assert fusion.shape.element_type == "bf16"
    assert fusion.shape.dims == (28, 2, 8, 6, 1)
    assert fusion.shape.layout == Layout((0, 3, 2, 1, 4), (Tile((8, 128)), Tile((2, 1))), 1)
    assert fusion.metadata.op_name == "jit(fwd)/conv2d/conv_general_dilated"
    assert ("stack_frame_id", "30") in fusion.metadata.extras
    copy = instruction(module, "copy-start")
    vmem, hbm, sync = copy.shape.tuple_shapes
    assert vmem.layout == Layout((0, 1), (Tile((8, 128)),), 1)
    assert hbm.layout == Layout((0, 1), (Tile((8, 128)),), 0)
    assert sync == Shape("u32", (), (), Layout((), (), 2))
    assert copy.attribute("cross_program_prefetch_index") == "0"
    assert json.loads(copy.backend_config)["dma_priority"] == 1


def test_gpu_cudnn_custom_call_and_triton_fusions():
    module = load("mnist_cnn_gpu-h100_optimized_hlo.txt")
    conv = instruction(module, "cudnn-conv-bias-activation.3")
    assert conv.opcode == "custom-call"
    assert conv.custom_call_target == "__cudnn$convBiasActivationForward"
    assert conv.operands == ("x.1", "wrapped_transpose", "tv_1_.1")
    assert [s.element_type for s in conv.shape.tuple_shapes] == ["f32", "u8"]
    gemm = instruction(module, "gemm_fusion_dot_general.1")
    assert gemm.fusion_kind == "kCustom"
    config = json.loads(gemm.backend_config)
    assert config["fusion_backend_config"]["kind"] == "__triton_nested_gemm_fusion"
    assert module.entry.root.name == "triton_softmax.2"
    assert module.computation("triton_softmax_computation.2").is_fusion


@pytest.mark.parametrize("target", ["cpu", "tpu-v5e", "gpu-h100"])
def test_lstm_while_loop(target: str):
    module = load(f"tiny_lstm_{target}_optimized_hlo.txt")
    loops = [i for _, i in module.all_instructions() if i.opcode == "while"]
    assert len(loops) == 1
    loop = loops[0]
    condition, body = loop.attribute("condition"), loop.attribute("body")
    assert loop.called_computations == (condition.lstrip("%"), body.lstrip("%"))
    # The loop state's shape (printed with `/*index=5*/` comments inside) is
    # also the parameter shape of both the condition and the body.
    assert loop.shape.is_tuple and len(loop.shape.tuple_shapes) > 5
    for name in loop.called_computations:
        (parameter,) = [i for i in module.computation(name).instructions if i.opcode == "parameter"]
        assert parameter.shape == loop.shape


def test_jax_unoptimized_names_without_percent_and_debug_metadata():
    module = load("mnist_cnn_tpu-v5e_hlo.txt")
    conv = instruction(module, "conv_general_dilated.1")
    assert conv.operands == ("x.1", "tv_0_.1")
    assert conv.metadata.op_name == "jit(fwd)/conv2d/conv_general_dilated"
    assert module.computation("relu.1") is not None
    assert module.entry.name == "main.5"


# --- malformed text -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, line, column",
    [
        ("", 1, 1),
        ("HloModule m\n", 2, 1),
        ("HloModule m\nENTRY e {\n  x = f32[2 parameter(0)\n}\n", 3, 13),
        ("HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n", 4, 1),
        ("HloModule m\nENTRY e {\n  ROOT x f32[] parameter(0)\n}\n", 3, 10),
        ("HloModule m\nENTRY e {\n  ROOT x = f32[] add(a b)\n}\n", 3, 24),
        ("HloModule m\nENTRY e {\n  ROOT x = f32[] add(a), metadata={op_name=\"x}\n}\n", 3, 44),
        ("HloModule m\nENTRY e {\n  ROOT x = f32[2]{0:T(8,x)} parameter(0)\n}\n", 3, 21),
    ],
    ids=["empty", "no-computation", "bad-dims", "unclosed", "no-equals", "operand-comma",
         "unterminated-string", "bad-tile"],
)
def test_malformed_text_names_line_and_column(text: str, line: int, column: int):
    with pytest.raises(ParseError) as caught:
        parse_module(text, "broken.txt")
    assert (caught.value.line, caught.value.column) == (line, column)
    assert str(caught.value).startswith(f"broken.txt:{line}:{column}: ")


def test_deeply_nested_tuple_is_a_parse_error():
    shape = "(" * 5000 + "f32[]" + ")" * 5000
    with pytest.raises(ParseError, match="nested too deeply"):
        parse_module(f"HloModule m\nENTRY e {{\n  ROOT x = {shape} parameter(0)\n}}\n")


def _parse_or_parse_error(text: str) -> None:
    try:
        parse_module(text)
    except ParseError as error:
        assert "internal parser error" not in str(error)


SMALL_FIXTURE = (FIXTURES / "mnist_cnn_gpu-h100_optimized_hlo.txt").read_text(encoding="utf-8")
HLO_PIECES = st.sampled_from(list('%{}()[]<>=,:;"\\/*.-_ \n\t0123456789abfsuTSE') + ["ROOT ", "ENTRY ", "/*"])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_random_text_only_ever_raises_parse_error(text: str):
    _parse_or_parse_error(text)
    _parse_or_parse_error("HloModule m\nENTRY e {\n" + text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(SMALL_FIXTURE)), st.integers(0, 2),
                          st.lists(HLO_PIECES, max_size=3).map("".join)), min_size=1, max_size=6))
def test_mutated_fixture_only_ever_raises_parse_error(edits):
    text = SMALL_FIXTURE
    for position, action, chars in edits:
        position = min(position, len(text))
        if action == 0:  # delete a few characters
            text = text[:position] + text[position + 1 + len(chars):]
        elif action == 1:  # insert
            text = text[:position] + chars + text[position:]
        else:  # replace
            text = text[:position] + chars + text[position + len(chars):]
    _parse_or_parse_error(text)


# --- shapes round-trip ------------------------------------------------------------

ELEMENT_TYPES = st.sampled_from(["f32", "bf16", "s32", "pred", "u8", "f16", "s4", "c64"])


@st.composite
def array_shapes(draw) -> Shape:
    rank = draw(st.integers(0, 5))
    dims = tuple(draw(st.integers(0, 4096)) for _ in range(rank))
    dynamic = tuple(draw(st.booleans()) for _ in range(rank))
    dynamic = dynamic if any(dynamic) else ()
    layout = None
    if draw(st.booleans()):
        minor_to_major = tuple(draw(st.permutations(range(rank))))
        tiles = tuple(
            Tile(tuple(draw(st.sampled_from([1, 2, 4, 8, 128, -1])) for _ in range(draw(st.integers(1, 3)))))
            for _ in range(draw(st.integers(0, 2)))
        )
        extras = tuple(draw(st.lists(st.sampled_from(["E(4)", "P(s32)", "D(D,C)"]), max_size=2)))
        layout = Layout(minor_to_major, tiles, draw(st.integers(0, 5)), extras)
    return Shape(draw(ELEMENT_TYPES), dims, dynamic, layout)


shapes = st.recursive(array_shapes(), lambda inner: st.lists(inner, max_size=4).map(
    lambda parts: Shape("tuple", tuple_shapes=tuple(parts))), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(shapes)
def test_printed_shapes_parse_back(shape: Shape):
    text = format_shape(shape)
    assert parse_shape(text) == shape
    module = parse_module(f"HloModule m\nENTRY e {{\n  ROOT p = {text} parameter(0)\n}}\n")
    assert module.entry.root.shape == shape


def test_shape_printing_matches_xla_text():
    for text in ["bf16[28,2,8,6,1]{0,3,2,1,4:T(8,128)(2,1)S(1)}", "u32[]{:S(2)}", "f32[<=4,?,3]{2,1,0}",
                 "(f32[2,26,26,8]{3,2,1,0}, u8[0]{0})", "token[]", "()"]:
        assert format_shape(parse_shape(text)) == text


# --- speed ------------------------------------------------------------------------


def test_three_thousand_lines_take_the_fast_path_and_read_each_distinct_text_once(monkeypatch):
    """Seven copies of the real TPU LSTM module's computations: ~3,000 lines.

    What keeps a big module's parse fast is counted here (bench/bench_parser.py times it): nearly
    every instruction is read by the one-regex fast path, and a shape or metadata text is read in
    full once however often it recurs, so seven copies cost no more full reads than one.
    """
    text = (FIXTURES / "tiny_lstm_tpu-v5e_optimized_hlo.txt").read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    big = header + "\n" + "\n".join([body] * 7)
    assert len(big.splitlines()) >= 3000
    one, seven = _parse_counting(monkeypatch, header + "\n" + body), _parse_counting(monkeypatch, big)
    assert seven["instructions"] == 7 * one["instructions"]
    assert seven["fast"] >= 0.95 * seven["instructions"], seven
    assert seven["shapes read"] == one["shapes read"] > 0
    assert seven["metadata read"] == one["metadata read"] > 0


def _parse_counting(monkeypatch, text: str) -> dict[str, int]:
    """Parses `text` with an empty shape cache, counting the parser's work by kind."""
    counts = dict.fromkeys(("fast", "shapes read", "metadata read"), 0)

    class CountingCache(dict):
        def __setitem__(self, key, value):
            counts["shapes read"] += 1  # a shape text not seen before, read in full
            super().__setitem__(key, value)

    def counting(method, kind, counts_result=lambda result: True):
        def wrapper(self, *args):
            result = method(self, *args)
            counts[kind] += counts_result(result)
            return result
        return wrapper

    monkeypatch.setattr(hlo_parser, "_SHAPE_CACHE", CountingCache())
    parser = hlo_parser._Parser
    monkeypatch.setattr(parser, "fast_instruction", counting(parser.fast_instruction, "fast",
                                                             lambda result: result is not None))
    monkeypatch.setattr(parser, "metadata_from", counting(parser.metadata_from, "metadata read"))
    module = parse_module(text)
    monkeypatch.undo()
    return {**counts, "instructions": sum(1 for _ in module.all_instructions())}


def test_real_h200_module_with_output_index_operands():
    """A real H200 (gpu:local, JAX 0.11) module: operands like `%conv#0` name one output."""
    text = (FIXTURES / "mnist_cnn_gpu-local-h200_optimized_hlo.txt").read_text()
    module = parse_module(text)
    fusion = next(i for _, i in module.all_instructions() if i.name == "loop_multiply_fusion")
    assert fusion.operands == ("trainable_2_.1", "cudnn-conv-bias-activation.3")
    conv = next(i for _, i in module.all_instructions() if i.name == "cudnn-conv-bias-activation.3")
    assert conv.custom_call_target == "__cudnn$convBiasActivationForward"


def test_multi_level_tiles_print_as_xla_writes_them():
    """One `T` for the whole tiling: `T(8,128)(2,1)`, never `T(8,128)T(2,1)`."""
    text = "bf16[16,256]{0,1:T(8,128)(2,1)S(1)}"
    assert format_shape(parse_shape(text)) == text


# --- the entry parameters from the header line alone -----------------------------------------------

HEADER_SOURCES = [*HLO_FILES, *sorted(path for path in (Path(__file__).parent / "fixtures" / "bundles").glob(
    "*/targets/*/*hlo.txt") if not path.parent.name.startswith("tvm-"))]  # TVM's Relax text is not HLO


@pytest.mark.parametrize("path", HEADER_SOURCES, ids=lambda path: str(path.relative_to(FIXTURES.parent)))
def test_entry_parameter_shapes_from_the_header_are_the_parsed_parameters(path):
    text = path.read_text(encoding="utf-8")
    module = parse_module(text, path.name)
    parameters = sorted((int(dict(i.attributes)["parameter_number"]), i.shape)
                        for i in module.entry.instructions if i.opcode == "parameter")
    found = entry_parameter_shapes(text)
    if "entry_computation_layout" not in text.split("\n", 1)[0]:
        assert found is None
        return
    assert found is not None and len(found) == len(parameters)
    # Layouts may differ (the header is the caller's layout); the dims and types must not.
    assert [(s.element_type, s.dims) for s in found] == [(s.element_type, s.dims) for _, s in parameters]


@pytest.mark.parametrize("header", [
    "HloModule m\n\nENTRY e { ROOT p = f32[2]{0} parameter(0) }\n",  # no layout in the header
    "HloModule m, entry_computation_layout={f32[2]{0}}\n",  # no arrow: not a computation layout
    "HloModule m, entry_computation_layout={(f32[2]{0}, f32[)->f32[2]{0}}\n",  # a broken shape
    "not a module\n",
])
def test_entry_parameter_shapes_say_none_when_the_header_does_not_tell(header):
    assert entry_parameter_shapes(header) is None
