"""The int8 variant without a compiler: `tensorweg diff` of the recorded plain and `--quantize int8` captures of
mnist_cnn on cpu and arm:cortex-a76 (tests/fixtures/bundles/variants/arm_*, record_arm_variants.py): which layers
Keras quantized, the bytes saved, the s8 dot as traced and what each compiler made of it; and the options a
quantized capture refuses before anything runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from explorer.model.bundle import Bundle
from explorer.views.whatif.quantized import INT8_DOT_INSTRUCTIONS, quantization

from screens.cli import main

from tests.conftest import FIXTURES

PLAIN, INT8 = FIXTURES / "bundles" / "variants" / "arm_float32", FIXTURES / "bundles" / "variants" / "arm_int8"
ARM = "arm:cortex-a76"


def diff_text(capsys, target: str, *extra: str) -> str:
    assert main(["diff", str(PLAIN), str(INT8), "--target", target, *extra]) == 0
    return capsys.readouterr().out


def test_the_diff_says_which_layers_keras_quantized_and_the_bytes_saved(capsys):
    text = diff_text(capsys, ARM)
    quantized = next(line for line in text.splitlines() if line.startswith("quantized (int8) by Keras:"))
    assert "dense (Dense, int8_from_float32, 52.9 KiB -> 13.3 KiB)" in quantized
    assert "stayed as trained: conv2d (Conv2D, float32)" in text


def test_the_diff_shows_the_s8_dot_and_what_xla_made_of_it_on_arm(capsys):
    lines = diff_text(capsys, ARM).splitlines()
    traced = next(i for i, line in enumerate(lines) if "traced:" in line)
    assert lines[traced].startswith("  dense: traced:") and "dot(s8[1,1352], s8[1352,10])" in lines[traced]
    block = "\n".join(lines[traced:traced + 6])
    assert "optimized: dot = s32[10] dot(s32[1352], s32[1352,10])" in block
    assert "XLA widened the s8 operands to s32 before the dot" in block
    assert "the weights are a constant of the program: s32[1352,10]" in block  # frozen, ahead of time
    assert "kernel dot: mla x" in block and "no sdot in the listing: plain widening code" in block


def test_every_instruction_the_diff_names_is_in_the_kernels_listing():
    """Never claim an instruction the listing does not hold: each counted mnemonic is in the kernel's code,
    and each int8 dot-product instruction said to be absent is not."""
    bundle = Bundle.open(INT8)
    for target in ("cpu", ARM):
        (dot,) = quantization(Bundle.open(PLAIN), bundle, target).dots
        asm = next(k.asm for k in bundle.kernels(target) if k.name == dot.kernel)
        mnemonics = [line.split()[1] for line in asm.splitlines() if ":" in line and len(line.split()) > 1]
        assert dot.instructions and all(mnemonics.count(m) == n for m, n in dot.instructions), target
        assert all(m not in mnemonics for m in dot.int8_dot_absent), target
        assert dot.int8_dot_absent == INT8_DOT_INSTRUCTIONS["aarch64" if target == ARM else "x86-64"]


def test_on_x86_the_int8_dot_became_16_bit_multiply_adds_without_vnni(capsys):
    text = diff_text(capsys, "cpu")
    assert "in fusion convert_dot_fusion" in text and "vpmaddwd x" in text
    assert "no vpdpbusd in the listing: plain widening code" in text


def test_json_and_german_carry_the_same_quantization(capsys):
    data = json.loads(diff_text(capsys, ARM, "--json"))
    (dot,) = data["quantization"]["dots"]
    assert dot["traced"].startswith("MatMul") and dot["widened"] and dot["int8_dot_absent"] == ["sdot"]
    assert "whatif:quantize" in data["explanations"]
    german = diff_text(capsys, ARM, "--lang", "de")
    assert "von Keras quantisiert (int8)" in german and "kein sdot im Listing" in german


def test_a_plain_pair_has_no_quantization_lines(capsys):
    assert quantization(Bundle.open(PLAIN), Bundle.open(PLAIN), ARM) is None
    assert main(["diff", str(PLAIN), str(PLAIN), "--target", ARM]) == 0
    assert "quantized" not in capsys.readouterr().out


@pytest.mark.parametrize("words, fragment", [
    (["--quantize", "int8", "--mode", "train", "--targets", "tpu:v5e"], "--quantize int8 compiles the inference call"),
    (["--quantize", "int8", "--targets", "cpu,tvm:cpu"], "--quantize int8: tvm:cpu compiles the float32 model only"),
], ids=["training-step", "tvm"])
def test_what_a_quantized_capture_cannot_be_is_refused_before_a_worker_starts(tmp_path, words, fragment):
    result = subprocess.run([sys.executable, "-m", "screens.cli", "capture", "mnist_cnn", *words],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "TENSORWEG_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and fragment in line
    assert not (tmp_path / "bundles").exists()
