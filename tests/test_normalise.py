"""explorer.model.normalise on real XLA:CPU dump text (tests/fixtures/xla_dump_cpu) and path forms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.model.normalise import normalise_module_name, normalise_paths, normalise_text

RAW_NAME = (
    "a_inference__lambda__72__XlaMustCompile_true_config_proto_13561319589895757934"
    "_executor_type_11160318154034397263_.5"
)
FIXTURE = Path(__file__).parent / "fixtures" / "xla_dump_cpu"


def test_module_name_loses_config_hashes_and_trace_counter():
    assert normalise_module_name(RAW_NAME) == "a_inference__lambda___XlaMustCompile_true_.5"


def test_same_function_traced_at_different_counters_normalises_equal():
    # TF's counter was 72 in a fresh process and 82 after tracing one other function first.
    assert normalise_module_name(RAW_NAME) == normalise_module_name(RAW_NAME.replace("__72__", "__82__"))


def test_instruction_names_with_numbers_are_kept():
    text = "%dot_add_fusion.1 = f32[4]{0} fusion(%arg5.1), calls=%fused_computation.5"
    assert normalise_text(text) == text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('source_file="/work/main/.venv/lib/python3.11/site-packages/keras/src/ops/nn.py" source_line=12',
         'source_file="keras/src/ops/nn.py" source_line=12'),
        ('source_file="/usr/lib/python3/dist-packages/tensorflow/python/ops.py"',
         'source_file="tensorflow/python/ops.py"'),
        ('source_file="/home/alice/project/model.py" source_line=7', 'source_file="<path>/model.py" source_line=7'),
        ("f32[8,64]{1,0}, /*index=5*/f32[16,64]{1,0}", "f32[8,64]{1,0}, /*index=5*/f32[16,64]{1,0}"),
        ('source_file="keras/src/layers/core/dense.py"', 'source_file="keras/src/layers/core/dense.py"'),
    ],
    ids=["site-packages", "dist-packages", "user-file", "index-comment", "already-relative"],
)
def test_paths(raw, expected):
    assert normalise_paths(raw) == expected


def test_idempotent_on_every_fixture_text():
    texts = [p.read_text(encoding="utf-8") for p in FIXTURE.rglob("*") if p.suffix in (".txt", ".ll")]
    assert texts
    for text in texts:
        once = normalise_text(text)
        assert normalise_text(once) == once


def test_fixture_has_no_absolute_paths_or_hashes():
    for path in FIXTURE.rglob("*.txt"):
        text = path.read_text(encoding="utf-8")
        assert "config_proto_" not in text and "executor_type_" not in text, path.name
        assert not re.search(r'source_file="/', text), path.name


def test_jax_op_names_are_not_taken_for_paths():
    """`jit(fwd)/conv2d/add` is a JAX name stack, not an absolute path: it links HLO to layers."""
    text = ('metadata={op_name="jit(fwd)/conv2d/conv_general_dilated" '
            'source_file="/opt/venv/lib/python3.11/site-packages/keras/src/ops/nn.py"}')
    assert normalise_text(text) == (
        'metadata={op_name="jit(fwd)/conv2d/conv_general_dilated" source_file="keras/src/ops/nn.py"}'
    )
