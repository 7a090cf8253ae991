"""ARM targets through the real compilers: XLA's ahead-of-time compiler for arm:cortex-a76 (and TVM's LLVM
backend for tvm:arm), each capture in its own cache; what `inspect`, `passport` and `compare` print of it;
and the bad input the path refuses (a signature it cannot fix, a model it cannot compile)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

MODELS = Path(__file__).parent / "fixtures" / "aot_models"


def tensorweg(*args: str, cache: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "screens.cli", *args], capture_output=True, text=True, timeout=900,
                          cwd=cwd, env={**os.environ, "TENSORWEG_CACHE_DIR": str(cache),
                                        "PYTHONPATH": str(Path(__file__).resolve().parents[1])})


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """One capture of mnist_cnn for the host, the Raspberry Pi 5's Cortex-A76 (XLA) and TVM for the same core."""
    folder = tmp_path_factory.mktemp("arm-cache")
    result = tensorweg("capture", "mnist_cnn", "--targets", "cpu,arm:cortex-a76,tvm:arm", cache=folder)
    assert result.returncode == 0, result.stderr
    return folder


def test_the_kernels_level_lists_aarch64_kernels_with_neon_registers(cache):
    result = tensorweg("inspect", "mnist_cnn", "--level", "kernels", "--target", "arm:cortex-a76", "--json",
                       cache=cache)
    assert result.returncode == 0, result.stderr
    kernels = {k["name"]: k for k in json.loads(result.stdout)["kernels"]}
    dot = kernels["dot"]  # the dense layer's dot: XLA's gemv emitter, NEON's four f32 lanes per FMLA
    assert dot["layer"] == "dense" and "fmla v" in dot["asm"] and dot["vector_width_bits"] == 128
    assert all(r.startswith("v") and "." in r for r in dot["vector_registers"])
    (conv,) = [k for k in kernels.values() if k["layer"] == "conv2d" and k["kind"] == "library"]
    assert not conv["asm"]  # the convolution is a runtime call on ARM as on x86: no code of XLA's own
    text = tensorweg("inspect", "mnist_cnn", "--level", "kernels", "--target", "arm:cortex-a76", cache=cache).stdout
    assert "v0.4s" in text or "v1.4s" in text  # the table's registers column names NEON registers


def test_the_passport_of_dense_ends_in_neon_registers(cache):
    result = tensorweg("passport", "mnist_cnn", "--layer", "dense", "--target", "arm:cortex-a76", "--json", cache=cache)
    assert result.returncode == 0, result.stderr
    hops = json.loads(result.stdout)["hops"]
    machine = next(h for h in hops if h["level"] == "machine-code")
    assert machine["kind"] == "aarch64" and machine["registers"]
    assert all(r.startswith("v") for r in machine["registers"])


def test_compare_sets_x86_beside_arm_with_lanes_and_instructions(cache):
    result = tensorweg("compare", "mnist_cnn", "--layer", "dense", "--json", cache=cache)
    assert result.returncode == 0, result.stderr
    decisions = {d["target"]: d for d in json.loads(result.stdout)["decisions"]}
    assert "zmm" not in decisions["arm:cortex-a76"]["vector_code"]
    assert "128-bit (4 x 32-bit lanes" in decisions["arm:cortex-a76"]["vector_code"]
    assert all("instructions" in decisions[target]["vector_code"] for target in ("cpu", "arm:cortex-a76"))
    assert "TVM made" in decisions["tvm:arm"]["decided"]


def test_tvm_arm_compiles_aarch64_code(cache):
    result = tensorweg("inspect", "mnist_cnn", "--level", "kernels", "--target", "tvm:arm", "--json", cache=cache)
    kernels = json.loads(result.stdout)["kernels"]
    conv = next(k for k in kernels if k["layer"] == "conv2d" and k["kind"] == "fusion")
    assert "fmla\tv" in conv["asm"] and all(r.startswith("v") for r in conv["vector_registers"])


def test_a_model_the_path_cannot_compile_names_the_layer_and_why(tmp_path):
    result = tensorweg("capture", "python_step:build", "--targets", "arm:cortex-a76", cache=tmp_path, cwd=MODELS)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "layer 'python_step'" in last and "PyFunc" in last
    assert not (tmp_path / "bundles").exists() or not any((tmp_path / "bundles").iterdir())


def test_a_signature_that_cannot_be_fixed_is_one_error_line_and_nothing_cached(tmp_path):
    result = tensorweg("capture", "dynamic_length:build", "--targets", "arm:cortex-a76", cache=tmp_path, cwd=MODELS)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: input 'tokens'") and "--input-shape tokens=" in line
    assert not (tmp_path / "bundles").exists() or not any((tmp_path / "bundles").iterdir())


def test_nothing_to_quantize_is_one_error_line_and_nothing_cached(tmp_path):
    result = tensorweg("capture", "conv_only:build", "--targets", "cpu", "--quantize", "int8", cache=tmp_path,
                       cwd=MODELS)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: --quantize int8: nothing to quantize in 'conv_only'") and "Conv2D" in line
    assert not (tmp_path / "bundles").exists() or not any((tmp_path / "bundles").iterdir())


def test_diff_of_the_int8_variant_on_arm_shows_the_s8_dot_and_what_it_became(cache):
    result = tensorweg("diff", "mnist_cnn", "--vary", "quantize=none,int8", "--target", "arm:cortex-a76", cache=cache)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "dense (Dense, int8_from_float32" in text and "dot(s8[" in text
    assert "optimized: " in text and "kernel dot: " in text
    data = json.loads(tensorweg("diff", "mnist_cnn", "--vary", "quantize=none,int8", "--target", "arm:cortex-a76",
                                "--json", cache=cache).stdout)
    (dot,) = data["quantization"]["dots"]
    assert dot["layer"] == "dense" and "s8" in dot["traced"] and dot["kernel"]
