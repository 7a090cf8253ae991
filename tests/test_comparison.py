"""explorer.views.compare on the recorded mnist_cnn bundle (real XLA output for cpu, gpu:h100, tpu:v5e)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.serial import from_jsonable, to_jsonable
from explorer.targets import TARGETS
from explorer.views.compare import (
    LayerComparison,
    TargetSummary,
    comparison_targets,
    layer_comparison,
    target_summary,
)
from explorer.views.compare.text import LAYER_ROWS, as_text, layer_cells

from pilot_support import BUNDLE, needs_bundle

pytestmark = needs_bundle


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(BUNDLE)


@pytest.fixture(scope="module")
def conv(bundle) -> LayerComparison:
    return layer_comparison(bundle, "conv2d")


def _bundle_with(tmp_path: Path, edit) -> Bundle:
    """A copy of the recorded bundle whose manifest `edit(raw)` changed (the data stays real)."""
    copy = tmp_path / "mnist_cnn"
    shutil.copytree(BUNDLE, copy)
    raw = json.loads((copy / "manifest.json").read_text())
    edit(raw)
    (copy / "manifest.json").write_text(json.dumps(raw))
    return Bundle.open(copy)


def test_every_captured_target_gets_a_column_in_bundle_order(bundle, conv):
    assert [t.target for t in conv.targets] == list(bundle.targets) == ["cpu", "gpu:h100", "tpu:v5e"]
    assert all(t.captured and t.status == "ok" for t in conv.targets)
    assert conv.class_name == "Conv2D"


def test_conv_on_cpu_is_a_convolution_plus_a_fusion_without_an_estimate(conv):
    cpu = conv.target("cpu")
    opcodes = [i.opcode for i in cpu.instructions]
    assert "convolution" in opcodes and "fusion" in opcodes
    # XLA:CPU runs the convolution in a runtime library and says so by the kernel's kind only.
    assert any(k.kind == "library" for k in cpu.kernels)
    assert cpu.estimated_seconds is None and "no published peak figures" in cpu.estimate_note
    assert all(i.estimate is None for i in cpu.instructions)


def test_conv_on_h100_is_a_cudnn_custom_call(conv):
    gpu = conv.target("gpu:h100")
    calls = [i for i in gpu.instructions if i.opcode == "custom-call"]
    assert calls and calls[0].custom_call_target.startswith("__cudnn$conv")
    assert any(c.family == "cuDNN" and c.source == "custom-call target" for c in gpu.library_calls)
    # cuDNN's convolution carries its FLOPs in the HLO window: 2 * 26*26*8 outputs * 3*3*1 taps.
    assert calls[0].flops == 2 * 26 * 26 * 8 * 9


def test_conv_on_tpu_v5e_outputs_are_tiled_and_padded(conv):
    tpu = conv.target("tpu:v5e")
    layouts = [o for i in tpu.instructions for o in i.outputs]
    tiled = [o for o in layouts if o.tiles.startswith("T(8,128)")]
    assert tiled, [o.shape for o in layouts]
    assert all(o.padded_bytes > o.bytes for o in tiled)
    assert tpu.padded_bytes > tpu.bytes
    assert any(o.memory_space == 1 for o in layouts)  # placed in VMEM by XLA:TPU


def test_output_shapes_are_written_as_in_the_optimized_hlo_text(bundle, conv):
    for target in conv.targets:
        text = bundle.hlo_text(target.target, optimized=True)
        for instruction in target.instructions:
            for output in instruction.outputs:
                assert output.shape in text, (target.target, output.shape)


def test_views_and_constants_are_listed_but_not_counted_as_new_bytes(conv):
    gpu = conv.target("gpu:h100")
    views = [i for i in gpu.instructions if i.opcode == "get-tuple-element"]
    assert views and all(i.plumbing and i.estimate is None for i in views)
    assert gpu.bytes == 1 * 26 * 26 * 8 * 4  # cuDNN's f32[1,26,26,8] output (+ its u8[0] scratch)
    assert [i.name for i in gpu.working] == ["cudnn-conv-bias-activation.3"]


def test_triton_and_launch_shapes_for_the_dense_layer_on_h100(bundle):
    gpu = layer_comparison(bundle, "dense").target("gpu:h100")
    assert any(c.family == "Triton" and c.source == "fusion backend_config" for c in gpu.library_calls)
    launched = [k for k in gpu.kernels if k.launch is not None]
    assert launched and all(k.launch.block[0] > 0 for k in launched)


def test_estimates_name_the_published_figures_they_use(conv):
    for target in ("gpu:h100", "tpu:v5e"):
        column = conv.target(target)
        spec = TARGETS[target]
        estimated = [i.estimate for i in column.instructions if i.estimate is not None]
        assert estimated
        for e in estimated:
            assert e.bandwidth == spec.memory_bandwidth
            assert e.seconds == max(e.flops / e.peak_flops, e.bytes / e.bandwidth)
        assert column.estimate_note.startswith("ESTIMATE")
        assert all(spec.roofline_source(e.peak_dtype) in column.estimate_note for e in estimated)
        assert column.estimated_seconds == pytest.approx(sum(e.seconds for e in estimated))


def test_a_fusion_shared_with_another_layer_says_so(conv):
    tpu = conv.target("tpu:v5e")
    shared = [i for i in tpu.instructions if i.also_layers]
    assert shared and all("conv2d" not in i.also_layers for i in shared)


def test_unknown_layer_is_a_one_line_error(bundle):
    with pytest.raises(TensorwegError, match="no layer 'conv9'.*conv2d"):
        layer_comparison(bundle, "conv9")


def test_summary_takes_flops_from_cost_analysis_where_captured_else_from_shapes(bundle):
    tpu, gpu, cpu = (target_summary(bundle, t) for t in ("tpu:v5e", "gpu:h100", "cpu"))
    assert tpu.flops == bundle.cost("tpu:v5e").flops and tpu.flops_source == "XLA cost analysis"
    assert tpu.xla_optimal_seconds == dict(bundle.cost("tpu:v5e").extras)["optimal_seconds"]
    assert gpu.flops_source.startswith("summed from shapes") and gpu.flops > 0
    assert cpu.flops_source.startswith("summed from shapes") and cpu.flops > 0
    assert cpu.estimated_seconds is None and gpu.estimated_seconds > 0 and tpu.estimated_seconds > 0
    assert gpu.compute_bound + gpu.memory_bound > 0


def test_summary_counts_match_the_bundle(bundle):
    for target in bundle.targets:
        summary = target_summary(bundle, target)
        assert summary.kernel_count == len(bundle.kernels(target))
        assert summary.peak_memory_bytes == bundle.memory(target).peak_bytes
        entry = bundle.hlo_module(target, optimized=True).entry
        assert summary.fusion_count == sum(i.opcode == "fusion" for i in entry.instructions)
    assert "no inspectable machine code" in target_summary(bundle, "tpu:v5e").kernels_note


def test_targets_not_in_the_bundle_say_how_to_capture_them(tmp_path):
    only_cpu = _bundle_with(tmp_path, lambda raw: raw["options"].update(targets=["cpu"]))
    assert comparison_targets(only_cpu) == ("cpu", "gpu:h100", "tpu:v5e")
    column = layer_comparison(only_cpu, "conv2d").target("gpu:h100")
    assert not column.captured and column.status == "not captured" and not column.instructions
    assert "tensorweg capture mnist_cnn --targets cpu,gpu:h100" in column.capture_hint
    assert "press c" in column.capture_hint
    summary = target_summary(only_cpu, "tpu:v5e")
    assert not summary.captured and summary.flops is None and summary.kernel_count is None
    assert summary.flops_source == "not captured"


def test_a_failed_level_is_reported_not_shown(tmp_path):
    def fail_tpu(raw):
        for entry in raw["levels"]:
            if entry[0] == "tpu:v5e" and entry[1] == "optimized-hlo":
                entry[2] = {"status": "failed", "error": "boom from XLA", "seconds": 0.0}
    failed = _bundle_with(tmp_path, fail_tpu)
    column = layer_comparison(failed, "conv2d").target("tpu:v5e")
    assert not column.captured and column.status == "optimized-hlo failed: boom from XLA"
    assert target_summary(failed, "tpu:v5e").estimated_seconds is None


def test_comparisons_round_trip_through_json(bundle, conv):
    assert from_jsonable(LayerComparison, json.loads(json.dumps(to_jsonable(conv)))) == conv
    summary = target_summary(bundle, "tpu:v5e")
    assert from_jsonable(TargetSummary, json.loads(json.dumps(to_jsonable(summary)))) == summary


# --- `tensorweg compare` -------------------------------------------------------------------------


def run_compare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", "compare", str(BUNDLE), *args],
                          capture_output=True, text=True, timeout=600)


def test_compare_json_carries_the_documented_fields(bundle):
    result = run_compare("--layer", "conv2d", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema_version"] == 1 and data["model"] == "mnist_cnn"
    assert data["targets"] == ["cpu", "gpu:h100", "tpu:v5e"]
    assert [s["target"] for s in data["summaries"]] == data["targets"]
    for summary in data["summaries"]:
        for key in ("kernel_count", "fusion_count", "peak_memory_bytes", "flops", "flops_source",
                    "bytes_accessed", "estimated_seconds", "estimate_note", "captured", "status"):
            assert key in summary
    layer = data["layer"]
    assert layer["layer"] == "conv2d"
    gpu = next(t for t in layer["targets"] if t["target"] == "gpu:h100")
    assert any(c["family"] == "cuDNN" for c in gpu["library_calls"])
    cuda = next(i for i in gpu["instructions"] if i["opcode"] == "custom-call")
    for key in ("name", "opcode", "fusion_kind", "custom_call_target", "also_layers", "outputs",
                "kernels", "flops", "bytes_accessed", "estimate"):
        assert key in cuda
    assert set(cuda["outputs"][0]) >= {"shape", "minor_to_major", "tiles", "memory_space", "bytes",
                                       "padded_bytes"}
    assert cuda["estimate"]["note"].startswith("ESTIMATE")
    assert from_jsonable(LayerComparison, layer) == layer_comparison(bundle, "conv2d")


def test_compare_text_puts_targets_side_by_side_and_names_its_figures():
    result = run_compare("--layer", "conv2d")
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[1].split()
    assert header == ["cpu", "gpu:h100", "tpu:v5e"]
    assert "__cudnn$convBiasActivationForward" in result.stdout
    assert "T(8,128)S(1)" in result.stdout
    assert "ESTIMATE from published peaks, not a measurement" in result.stdout


def test_compare_without_layer_prints_the_summary_only():
    result = run_compare()
    assert result.returncode == 0, result.stderr
    assert "peak memory" in result.stdout and "conv2d" not in result.stdout


def test_compare_unknown_layer_is_a_one_line_error():
    result = run_compare("--layer", "nope")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: no layer 'nope' in mnist_cnn (layers: image, conv2d, max_pooling2d, flatten, dense)"]


@pytest.mark.e2e
def test_a_freshly_captured_transformer_compares_its_matmuls(tmp_path):
    """Real compilers: tiny_transformer's ffn_up Dense on every default target."""
    out = tmp_path / "tt"
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "tiny_transformer", "-o", str(out)],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    ffn = layer_comparison(Bundle.open(out), "ffn_up")
    assert all(column.captured for column in ffn.targets)
    assert any(i.opcode == "dot" for i in ffn.target("cpu").instructions)
    gpu = ffn.target("gpu:h100")
    # XLA:GPU hands the matmul to a library or to Triton; whichever, the comparison names it.
    assert any(c.family in ("Triton", "cuBLAS", "cuBLASLt") for c in gpu.library_calls)
    tpu = ffn.target("tpu:v5e")
    assert any(o.tiles for i in tpu.instructions for o in i.outputs)
    assert tpu.padded_bytes >= tpu.bytes


@pytest.mark.parametrize("reported", [-9.2, 0.0, float("nan")])
def test_an_optimal_time_that_is_not_physical_is_dropped_with_a_note(tmp_path, reported):
    """libtpu's compile-only cost analysis reports negative `optimal_seconds` for most real models."""
    from explorer.views.compare.text import summary_rows

    copy = tmp_path / "mnist_cnn"
    shutil.copytree(BUNDLE, copy)
    cost_file = copy / "targets" / "tpu-v5e" / "cost.json"
    cost = json.loads(cost_file.read_text())
    cost["extras"] = [[k, reported if k == "optimal_seconds" else v] for k, v in cost["extras"]]
    cost_file.write_text(json.dumps(cost))
    summary = target_summary(Bundle.open(copy), "tpu:v5e")
    assert summary.xla_optimal_seconds is None
    assert summary.xla_optimal_note.startswith("dropped: XLA reported")
    assert "not a possible run time" in summary.xla_optimal_note
    optimal_row = dict(summary_rows([summary]))["XLA optimal time"]
    assert optimal_row == [summary.xla_optimal_note]


def test_the_command_and_the_screen_word_a_layer_alike(bundle, conv):
    """`tensorweg compare --layer` prints the compare screen's cells (explorer.views.compare.text.layer_cells)
    beside its per-instruction table: the same words for the decision, kernels, bytes, FLOPs and estimate."""
    text = as_text(bundle, "conv2d")
    gpu = text.split("on gpu:h100 ", 1)[1].split("on tpu:v5e ", 1)[0]
    assert "  est. time: 7.49 ns (1 memory-bound)\n" in gpu  # 21.1 KiB over the datasheet's 3.35 TB/s
    assert "  bytes / padded: 21.1 KiB / 21.1 KiB\n" in gpu
    assert "  kernels: cudnn-conv-bias-activation.3 (library)\n" in gpu
    assert "  est. time: no peak figures\n" in text.split("on gpu:h100 ", 1)[0]  # cpu: no published peaks
    assert "fusion (also max_pooling2d)" in text  # a fusion shared with the next layer says so, as on screen
    cells = dict(zip(LAYER_ROWS, layer_cells(conv.target("tpu:v5e")), strict=True))
    assert cells["fusions_ops"].splitlines()[-2:] == ["fusion: fusion kOutput (also max_pooling2d)",
                                                      "+3 constant/parameter"]
    assert f"  kernels: {'; '.join(cells['kernels'].splitlines())}\n" in text
    assert "  no optimized-HLO instruction carries this layer's ops\n" in as_text(bundle, "flatten")
