"""End to end: `tensorweg diff mnist_cnn --vary ...` with the real compilers, as a learner types it:
the batch, the dtype policy and a disabled pass on XLA:CPU, and the same questions for the
compile-only TPU v5e and H100."""

from __future__ import annotations

import json
import re

import pytest

from explorer.cli.main import main

pytestmark = pytest.mark.e2e


def diff(capsys, vary: str, target: str = "cpu") -> dict:
    assert main(["diff", "mnist_cnn", "--vary", vary, "--target", target, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def layer(data: dict, name: str) -> dict:
    return next(entry for entry in data["layers"] if entry["layer"] == name)


def test_batch_64_on_cpu_multiplies_the_work_and_the_peak(capsys):
    data = diff(capsys, "batch=1,64")
    conv = layer(data, "conv2d")
    assert conv["after"]["flops"] == pytest.approx(64 * conv["before"]["flops"])
    first, second = data["variants"]
    assert (first["label"], second["label"]) == ("batch=1", "batch=64")
    assert second["peak_bytes"] > first["peak_bytes"]


def test_bfloat16_on_cpu_halves_the_dense_layers_bytes(capsys):
    data = diff(capsys, "dtype=float32,bfloat16")
    dense = layer(data, "dense")
    assert dense["after"]["bytes_accessed"] < 0.6 * dense["before"]["bytes_accessed"]
    assert data["variants"][1]["peak_bytes"] < data["variants"][0]["peak_bytes"]


def test_switching_off_xla_cpu_fusion_keeps_the_flops_and_adds_kernels(capsys):
    data = diff(capsys, "xla-flag=none,xla_disable_hlo_passes=fusion")
    first, second = data["variants"]
    assert second["flops"] == first["flops"]
    assert second["kernels"] > first["kernels"] and second["fusions"] > first["fusions"]
    assert "whatif:fusions" in data["explanations"]


def test_batch_64_on_the_tpu_changes_tiles_and_keeps_memory_analysis(capsys):
    data = diff(capsys, "batch=1,64", "tpu:v5e")
    conv = layer(data, "conv2d")
    assert conv["before"]["tiles"] and conv["after"]["bound"] in ("compute", "memory")
    assert "tiles" in {kind for entry in data["layers"] for kind in entry["changed"]}
    for variant in data["variants"]:
        assert variant["xla_peak_bytes"] > 0 and variant["xla_memory_analysis"]


def test_bfloat16_and_a_disabled_fusion_pass_on_the_h100(capsys):
    data = diff(capsys, "dtype=float32,bfloat16", "gpu:h100")
    assert all(variant["max_registers"] for variant in data["variants"])
    assert layer(data, "dense")["after"]["bytes_accessed"] < layer(data, "dense")["before"]["bytes_accessed"]
    unfused = diff(capsys, "xla-flag=none,xla_disable_hlo_passes=priority-fusion", "gpu:h100")
    assert unfused["variants"][1]["kernels"] > unfused["variants"][0]["kernels"]


def test_remat_of_chosen_layers_on_the_tpu(capsys):
    assert main(["diff", "mnist_cnn", "--vary", "remat-layers=none,conv", "--mode", "train",
                 "--target", "tpu:v5e", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    first, second = data["variants"]
    assert second["flops"] >= first["flops"]  # recomputation adds work (or XLA removes it again)


def test_a_step_that_keeps_its_arguments_aliases_nothing_on_the_tpu(capsys):
    assert main(["diff", "mnist_cnn", "--vary", "donate=on,off", "--mode", "train",
                 "--target", "tpu:v5e", "--json"]) == 0
    donating, keeping = json.loads(capsys.readouterr().out)["variants"]
    assert donating["xla_memory_analysis"]["alias_size_in_bytes"] > 0
    assert keeping["xla_memory_analysis"]["alias_size_in_bytes"] == 0
    assert keeping["xla_peak_bytes"] > donating["xla_peak_bytes"]  # old and new weights both live


# --- the rest of the matrix: batch, dtype, remat and a disabled pass on each of cpu, gpu:h100, tpu:v5e


def test_batch_64_on_the_h100_multiplies_the_work_and_the_peak(capsys):
    data = diff(capsys, "batch=1,64", "gpu:h100")
    conv = layer(data, "conv2d")
    assert conv["after"]["flops"] == pytest.approx(64 * conv["before"]["flops"])
    first, second = data["variants"]
    assert second["peak_bytes"] > first["peak_bytes"] and second["xla_peak_bytes"] > first["xla_peak_bytes"]


def test_bfloat16_on_the_tpu_halves_the_dense_layers_bytes(capsys):
    data = diff(capsys, "dtype=float32,bfloat16", "tpu:v5e")
    dense = layer(data, "dense")
    assert dense["after"]["bytes_accessed"] < 0.6 * dense["before"]["bytes_accessed"]
    first, second = data["variants"]
    assert second["xla_memory_analysis"]["argument_size_in_bytes"] < first["xla_memory_analysis"][
        "argument_size_in_bytes"]  # the weights are bfloat16 too


def test_switching_off_algebraic_simplification_on_the_tpu_keeps_the_work(capsys):
    """XLA:TPU's fusion passes are not on the app's list (its pipeline is not XLA's open one); the
    algebraic simplifier is, and switching it off leaves the model's FLOPs where they were."""
    data = diff(capsys, "xla-flag=none,xla_disable_hlo_passes=algsimp", "tpu:v5e")
    first, second = data["variants"]
    assert (first["label"], second["label"]) == ("xla-flag=none", "xla-flag=xla_disable_hlo_passes=algsimp")
    assert second["flops"] == pytest.approx(first["flops"], rel=0.05)
    assert second["instructions"] >= first["instructions"]


@pytest.mark.parametrize("target", ["cpu", "gpu:h100"])
def test_remat_of_chosen_layers_on_cpu_and_the_h100(capsys, target):
    assert main(["diff", "mnist_cnn", "--vary", "remat-layers=none,conv", "--mode", "train",
                 "--target", target, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    first, second = data["variants"]
    assert (first["label"], second["label"]) == ("remat-layers=none", "remat-layers=conv")
    assert second["flops"] >= first["flops"]  # recomputation adds work (or XLA removes it again)
    assert first["peak_bytes"] and second["peak_bytes"]


def test_at_batch_64_on_the_v5e_conv2d_s_output_is_the_largest_value_at_xla_s_peak(capsys):
    """The what-if lesson's last step (issue 37): at batch 64 conv2d's output is the largest value at the
    peak the memory level shows (XLA's own), the weights a small part; batch 1: tests/test_course_claims.py."""
    from explorer.model.bundle import Bundle
    from explorer.views import trace

    assert main(["capture", "mnist_cnn", "--batch", "64", "--targets", "tpu:v5e"]) == 0
    bundle = Bundle.open(capsys.readouterr().out.strip().splitlines()[-1])
    dump = (bundle.path / "targets" / "tpu-v5e" / "live_range.txt").read_text("utf-8")
    at_peak = re.findall(r"^\s+(\S+)\{[^}]*\}: (\d+) bytes", dump.split("(peak):", 1)[1].split("Stack trace")[0], re.M)
    largest = max(at_peak, key=lambda value: int(value[1]))[0]
    assert trace.layer_of(bundle, "optimized-hlo", largest, "tpu:v5e") == "conv2d"
    weights = sum(int(size) for name, size in at_peak if name.startswith("trainable"))
    assert weights < 0.1 * bundle.memory("tpu:v5e").peak_bytes
