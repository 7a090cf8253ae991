"""Unit tests of the UI's pure pieces, on real compiler output from tests/fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.hlo.parser import parse_module
from explorer.model.buffer_assignment import parse_buffer_assignment, peak_from_live_ranges, value_sizes
from explorer.views.graphs.parts import neighbourhood
from explorer.views.memory_map import allocation_rows, live_range_rows, peak_position
from explorer.views.panes import shape_lines

from screens.widgets.code_view import _highlighted, highlight_line
from screens.widgets.graph_drawing import draw
from screens.widgets.hlo_lexer import HloLexer

FIXTURES = Path(__file__).parent / "fixtures"
CPU_OPTIMIZED = FIXTURES / "hlo" / "mnist_cnn_cpu_optimized_hlo.txt"
CPU_DUMP = FIXTURES / "xla_dump_cpu" / "cnn"


@pytest.fixture(scope="module")
def optimized_module():
    return parse_module(CPU_OPTIMIZED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def memory():
    path = next(CPU_DUMP.glob("*cpu_after_optimizations-buffer-assignment.txt"))
    return parse_buffer_assignment(path.read_text(encoding="utf-8"))


def test_hlo_lexer_marks_names_opcodes_and_shapes():
    line = next(text for text in CPU_OPTIMIZED.read_text().splitlines() if " convolution(" in text)
    tokens = [(str(t), v) for t, v in HloLexer().get_tokens(line) if v.strip()]
    kinds = dict((v, t) for t, v in tokens)
    name = line.split("=")[0].strip().removeprefix("ROOT ").strip()
    assert kinds[name] == "Token.Name.Variable"
    assert kinds["convolution"] == "Token.Name.Function"
    assert kinds["f32"] == "Token.Keyword.Type"
    assert any(t == "Token.Comment" and v.startswith("{op_type=") for t, v in tokens)


def highlight_lines(code: str, language: str) -> list:
    """`code` lexed whole, then cut into lines: what the code view's line-by-line lexing must equal."""
    text = _highlighted(code, language)
    text.rstrip()
    return text.split("\n", allow_blank=True)


def test_lexing_whole_keeps_one_text_per_source_line():
    code = CPU_OPTIMIZED.read_text()
    lines = highlight_lines(code, "hlo")
    assert [text.plain for text in lines] == code.rstrip().split("\n")
    assert any(span.style for span in lines[2].spans)


def test_memory_lines_show_byte_strides_in_minor_to_major_order(optimized_module):
    conv = next(i for _, i in optimized_module.all_instructions() if i.opcode == "convolution")
    n, h, w, c = conv.shape.dims  # NHWC with layout {3,2,1,0}: C fastest, 4-byte f32
    text = "\n".join(shape_lines(conv.shape))
    assert f"d0:{h * w * c * 4}, d1:{w * c * 4}, d2:{c * 4}, d3:4" in text
    assert f"{conv.shape.byte_size:,} B" in text and "minor-to-major {3,2,1,0}" in text
    assert "untiled: no padding" in text


def test_memory_lines_show_tile_padding_on_tpu():
    from explorer.model.bundle import Bundle

    bundle = Bundle.open(FIXTURES / "bundles" / "mnist_cnn")
    module = bundle.hlo_module("tpu:v5e", optimized=True)
    tiled = next(i for _, i in module.all_instructions()
                 if not i.shape.is_tuple and i.shape.layout and i.shape.layout.tiles and i.shape.dims
                 and i.shape.dims[-1] % 128)
    text = "\n".join(shape_lines(tiled.shape))
    assert "tiles  T(" in text and "with (+" in text  # a last dim not a multiple of 128 is padded


def test_neighbourhood_grows_with_radius():
    edges = [("a", "b"), ("b", "c"), ("c", "d")]
    assert neighbourhood("b", edges, 1) == {"a", "b", "c"}
    assert neighbourhood("b", edges, 2) == {"a", "b", "c", "d"}


def test_drawing_has_a_box_per_node_and_an_arrow_per_edge():
    lines = draw(["input", "conv2d", "dense"], [("input", "conv2d"), ("conv2d", "dense")], center="conv2d")
    picture = "\n".join(lines)
    assert "║ conv2d ║" in picture  # the selection, double-lined
    assert "│ input │" in picture and "│ dense │" in picture
    assert picture.count("▼") == 2
    rows = {name: next(i for i, text in enumerate(lines) if name in text) for name in ("input", "conv2d", "dense")}
    assert rows["input"] < rows["conv2d"] < rows["dense"]  # producers above consumers


def test_memory_map_draws_every_allocation_and_marks_the_peak(memory):
    rows = allocation_rows(memory, 40)
    assert len(rows) == len(memory.allocations)
    largest = max(memory.allocations, key=lambda a: a.size)
    assert rows[largest.index].count("█") + rows[largest.index].count("·") + rows[largest.index].count("▓") >= 30
    position, peak_bytes = peak_position(memory)
    assert (peak_bytes, position) == peak_from_live_ranges(memory.live_ranges, value_sizes(memory))
    live = live_range_rows(memory, 60)
    assert live[-1].strip().startswith(f"^ peak at position {position}")


def test_every_module_names_the_levels_from_the_one_level_definition():
    from explorer import levels
    from explorer.model import bundle
    from explorer.texts import lookup
    from explorer.views import session

    assert lookup.LEVELS is levels.LEVELS
    # The session decides what `t` moves on the per-target levels (it was the app's rule).
    assert bundle.TARGET_LEVELS is levels.TARGET_LEVELS and session.TARGET_LEVELS is levels.TARGET_LEVELS
    assert levels.NEXT_DOWN["optimized-hlo"] == "kernels" and levels.NEXT_UP["hlo"] == "graph"


def test_highlighting_hlo_one_line_at_a_time_matches_lexing_the_whole_module():
    """The code view lexes HLO lines lazily as they scroll into view; same colours as lexing it whole."""
    code = CPU_OPTIMIZED.read_text()
    whole = highlight_lines(code, "hlo")
    for number, line in enumerate(code.rstrip().split("\n")):
        single = highlight_line(line, "hlo")
        assert single.plain == whole[number].plain
        assert [(s.start, s.end, s.style) for s in single.spans] == \
               [(s.start, s.end, s.style) for s in whole[number].spans], number



def _spans(text) -> tuple:
    return text.plain, [(s.start, s.end, s.style) for s in text.spans]


def test_highlighting_kernel_code_one_line_at_a_time_matches_lexing_it_whole():
    """The code view lexes kernel code lazily too (a deep model's one XLA:CPU kernel holds megabytes of
    assembly and LLVM IR): every recorded kernel's every code (asm, PTX, SASS, LLVM IR) colours the same."""
    from explorer.model.bundle import Bundle
    from explorer.views.kernel_code import recorded_codes

    seen = set()
    for path in sorted((FIXTURES / "bundles").glob("*/manifest.json")):
        bundle = Bundle.open(path.parent)
        for target in bundle.targets:
            for kernel in bundle.kernels(target):
                for code in recorded_codes(kernel):
                    text = code.text.rstrip()
                    whole = highlight_lines(text, code.language)
                    assert [_spans(line) for line in whole] == \
                           [_spans(highlight_line(line, code.language)) for line in text.split("\n")], kernel.name
                    seen.add(code.language)
    assert seen == {"asm", "ptx", "sass", "llvm"}


def test_gpu_registers_are_highlighted_as_the_cpu_view_highlights_x86_registers():
    """SASS's registers (R, UR, P, SR_) take the style nasm gives `xmm0`; PTX gets Pygments' PTX lexer."""
    x86 = highlight_line("vaddps ymm0, ymm1, ymm2", "asm")
    register_style = next(span.style for span in x86.spans if x86.plain[span.start:span.end] == "ymm0")
    sass = highlight_line("/*0010*/  @!P0 IMAD.MOV.U32 R3, RZ, RZ, UR5 ;  S2R R0, SR_TID.X", "sass")
    styles = {sass.plain[span.start:span.end]: span.style for span in sass.spans}
    for register in ("R3", "RZ", "UR5", "R0", "SR_TID.X", "@!P0"):
        assert styles[register] == register_style, register
    assert styles["IMAD.MOV.U32"] != register_style
    ptx = highlight_line("mov.u32 %r1, %tid.x;", "ptx")
    assert len({span.style for span in ptx.spans}) > 1  # not one plain colour
