"""Layout arithmetic against XLA's tiled-layout document and XLA's own buffer sizes.

Worked examples come from openxla/xla docs/tiled_layout.md; the byte sizes
come from a real TPU v5e buffer assignment (tests/fixtures/hlo/README.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.hlo import layout_math as L
from explorer.hlo.parser import parse_module, parse_shape

FIXTURES = Path(__file__).parent / "fixtures" / "hlo"
BUFFER_VALUE = re.compile(r"\(size=(\d+),offset=\d+\): (\S+)$")


def test_doc_figure_1_element_2_3_lands_at_17():
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    assert L.tiled_dims(shape) == (2, 3, 2, 2)  # 2x3 tiles of 2x2
    assert L.linear_index(shape, (2, 3)) == 17
    assert L.padded_dims(shape) == (4, 6)
    assert (L.unpadded_byte_size(shape), L.padded_byte_size(shape)) == (60, 96)


def test_doc_figure_1_covers_every_padded_slot_once():
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    positions = {L.linear_index(shape, (i, j)) for i in range(3) for j in range(5)}
    assert len(positions) == 15 and max(positions) < L.padded_element_count(shape)


def test_doc_figure_2_bf16_style_pairs_rows():
    """(2,4)(2,1): one element of an even row and one of the odd row below sit together."""
    shape = parse_shape("f32[4,8]{1,0:T(2,4)(2,1)}")
    assert [L.linear_index(shape, (0, j)) for j in range(4)] == [0, 2, 4, 6]
    assert [L.linear_index(shape, (1, j)) for j in range(4)] == [1, 3, 5, 7]
    assert L.linear_index(shape, (0, 4)) == 8  # the next 2x4 tile along the row


def test_doc_alternative_bf16_packing_red_dot_is_51():
    shape = parse_shape("f32[8,8]{1,0:T(2,4)(2,1,1,1)}")
    assert L.tiled_dims(shape) == (2, 2, 2, 4, 2, 1, 1, 1)
    assert L.linear_index(shape, (6, 5)) == 51


def test_doc_alternative_bf16_packing_shape():
    shape = parse_shape("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}")
    assert L.tiled_dims(shape) == (2, 2, 8, 128, 2, 1, 1, 1)
    assert L.padded_byte_size(shape) == L.unpadded_byte_size(shape) == 32 * 256 * 2


def test_doc_combining_dimensions():
    """F32[2,7,8,11,10] with (*,*,2,*,3) is F32[112,110] tiled by (2,3)."""
    combined = parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    plain = parse_shape("f32[112,110]{1,0:T(2,3)}")
    assert L.tiled_dims(combined) == L.tiled_dims(plain) == (56, 37, 2, 3)
    assert L.padded_element_count(combined) == 112 * 111
    index = (1, 3, 5, 7, 9)
    flat = ((1 * 7 + 3) * 8 + 5, 7 * 10 + 9)
    assert L.linear_index(combined, index) == L.linear_index(plain, flat)


def test_strides_follow_minor_to_major():
    shape = parse_shape("f32[2,3,4]{0,2,1}")  # dim 0 fastest, then 2, then 1
    assert L.strides(shape) == (1, 8, 2)
    assert L.byte_strides(shape) == (4, 32, 8)
    assert L.strides(parse_shape("s8[2,3,4]")) == (12, 4, 1)  # no layout: row major
    assert L.physical_order(shape) == (1, 2, 0)


def test_untiled_layout_has_no_padding():
    shape = parse_shape("f32[2,26,26,8]{3,2,1,0}")
    assert L.padded_dims(shape) == shape.dims
    assert L.padded_byte_size(shape) == shape.byte_size == 2 * 26 * 26 * 8 * 4


def test_element_size_attribute_and_sub_byte_types():
    assert L.element_bits(parse_shape("s4[16]{0:E(4)}")) == 4
    assert L.padded_byte_size(parse_shape("s4[16]{0:E(4)}")) == 8
    assert L.padded_byte_size(parse_shape("s4[16]{0}")) == 16  # unpacked: a byte each


def test_bf16_vector_pads_to_a_whole_tile():
    shape = parse_shape("bf16[2,13]{1,0:T(8,128)(2,1)}")
    assert L.padded_dims(shape) == (8, 128)
    assert L.padded_byte_size(shape) == 8 * 128 * 2
    assert L.unpadded_byte_size(shape) == 52


def test_bad_inputs_raise_value_error():
    with pytest.raises(ValueError):
        L.strides(parse_shape("(f32[], f32[])"))
    with pytest.raises(ValueError):
        L.padded_byte_size(parse_shape("f32[?,3]"))
    with pytest.raises(ValueError):
        L.linear_index(parse_shape("f32[3,5]{1,0:T(2,2)}"), (3, 0))
    with pytest.raises(ValueError):
        L.tiled_dims(parse_shape("f32[3,5]{1,0:T(2,*)}"))


def _buffer_values():
    text = (FIXTURES / "tpu-v5e_buffer_values.txt").read_text(encoding="utf-8")
    return [(int(m.group(1)), m.group(2)) for m in map(BUFFER_VALUE.search, text.splitlines()) if m]


def test_buffer_value_fixture_is_substantial():
    values = _buffer_values()
    assert len(values) >= 40
    assert any("(2,1)" in shape for _, shape in values)  # bf16 packing is covered
    assert any(shape.startswith("f32[]{:T(128)") for _, shape in values)  # scalars too


@pytest.mark.parametrize("size, text", _buffer_values(), ids=lambda v: str(v))
def test_padded_byte_size_matches_xla_tpu_buffer_assignment(size: int, text: str):
    assert L.padded_byte_size(parse_shape(text)) == size


def test_every_array_in_the_real_tpu_modules_has_a_consistent_layout():
    for name in ("mnist_cnn_tpu-v5e_optimized_hlo.txt", "tiny_lstm_tpu-v5e_optimized_hlo.txt"):
        module = parse_module((FIXTURES / name).read_text(encoding="utf-8"))
        for _, inst in module.all_instructions():
            for shape in inst.shape.tuple_shapes or (inst.shape,):
                if shape.is_tuple or shape.element_type in ("token", "opaque"):
                    continue
                padded = L.padded_dims(shape)
                assert all(p >= d for p, d in zip(padded, shape.dims, strict=True))
                assert L.padded_byte_size(shape) >= L.unpadded_byte_size(shape)
