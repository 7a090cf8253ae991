"""Training steps read from recorded modules: which pass an op belongs to, what each buffer is,
and the checks the command line makes before any compiler starts (no compiler runs here).

Fixtures (tests/fixtures/train) are `tensorweg capture mlp --mode train --batch 8` for tpu:v5e
and gpu:h100, and the 2x2 data- and model-parallel tpu:v5e compiles, as the JAX worker wrote them.
"""

from __future__ import annotations

import pytest

from explorer.cli.main import main
from explorer.hlo.scan import group_size
from explorer.model.serial import load_json
from explorer.model.sharding import collectives
from explorer.model.training import (
    GRADIENTS,
    OPTIMIZER_STATE,
    SAVED_ACTIVATIONS,
    WEIGHTS,
    StepLayout,
    gradient_of,
    input_output_aliases,
    op_phase,
    step_memory,
)
from explorer.views.step_text import step_lines

from tests.conftest import FIXTURES

TRAIN = FIXTURES / "train"
# memory_analysis() of the recorded compiles (the bundle's memory.json keeps them).
TPU_ANALYSIS = (("argument_size_in_bytes", 235008), ("output_size_in_bytes", 227840),
                ("alias_size_in_bytes", 226816), ("temp_size_in_bytes", 786432))
GPU_ANALYSIS = (("argument_size_in_bytes", 209088), ("output_size_in_bytes", 206892),
                ("alias_size_in_bytes", 206720), ("temp_size_in_bytes", 47128))


def _recorded(name: str) -> tuple[StepLayout, str]:
    layout = load_json(StepLayout, TRAIN / f"{name}.step.json")
    return layout, (TRAIN / f"{name}.hlo.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(("op_name", "label"), [
    ("jit(train_step)/transpose(jvp(conv2d))/conv_general_dilated", "conv2d, backward"),
    ("jit(train_step)/jvp(dense)/dot_general", "dense, forward"),
    ("jit(train_step)/jvp(dense)/jit(relu)/max", "dense, forward"),
    ("jit(train_step)/transpose(jvp(outer))/inner/dot_general", "outer/inner, backward"),
    ("jit(train_step)/jvp(loss)/reduce_sum", "loss"),
    ("jit(train_step)/transpose(jvp(loss))/mul", "loss, backward"),
    ("jit(train_step)/adam/sqrt", "optimizer update"),
    ("jit(train_step)/transpose(jvp(dense))/dot_general;jit(train_step)/adam/sub", "dense, backward"),
    ("trainable[0]", ""),
    ("jit(train_step)/transpose(jvp(jvp()))/checkpoint/dense_1/dot_general", "dense_1, backward"),
    ("jit(train_step)/transpose(jvp(jvp()))/checkpoint/loss/div", "loss, backward"),
    ("jit(train_step)/jvp(jvp())/checkpoint/dense/jit(relu)/max", "dense, forward"),
])
def test_op_names_say_layer_and_pass(op_name, label):
    assert op_phase(op_name, "adam").label() == label


def test_a_backward_result_shaped_like_its_layers_kernel_is_that_kernels_gradient():
    weights = {"dense/kernel": "f32[64, 128]", "dense/bias": "f32[128]", "dense_1/kernel": "f32[128, 64]"}
    backward = op_phase("jit(train_step)/transpose(jvp(dense))/dot_general")
    assert gradient_of(backward, "f32[64, 128]", weights) == "kernel"
    assert gradient_of(backward, "f32[128]", weights) == "bias"
    assert gradient_of(backward, "f32[128, 64]", weights) == ""  # dense_1's shape, not dense's
    assert gradient_of(op_phase("jit(train_step)/jvp(dense)/dot_general"), "f32[64, 128]", weights) == ""


def test_optimizer_ops_need_the_optimizer_named():
    assert op_phase("jit(train_step)/sgd/mul", "sgd").phase == "optimizer update"
    assert op_phase("jit(train_step)/sgd/mul", "adam").phase == ""


@pytest.mark.parametrize(("name", "analysis"), [("mlp_train_tpu_v5e", TPU_ANALYSIS),
                                                ("mlp_train_gpu_h100", GPU_ANALYSIS)])
def test_buffers_of_a_training_step_are_classified(name, analysis):
    layout, text = _recorded(name)
    memory = step_memory(layout, text, analysis)
    # mlp: 3 dense layers, kernel + bias each; Adam keeps two moments per weight plus 2 scalars.
    assert memory.bytes_of(WEIGHTS) == 4 * (64 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10)
    assert memory.bytes_of(OPTIMIZER_STATE) == 2 * memory.bytes_of(WEIGHTS) + 8
    assert memory.bytes_of(GRADIENTS) > 0
    # Each gradient is stored or computed inside the update's fusion: never both, never neither.
    gradients = next(c for c in memory.classes if c.role == GRADIENTS)
    assert gradients.count + memory.fused_gradients >= 6
    assert memory.bytes_of(SAVED_ACTIVATIONS) > 0
    assert memory.peak_bytes > memory.inference_peak_bytes > 0
    # Weights and optimizer state are donated: 6 weights + 14 Adam variables come back in place.
    assert len(memory.aliases) == 20
    assert {param for _out, param in memory.aliases} <= set(layout.donated)


def test_the_saved_activations_are_what_the_backward_pass_reads():
    layout, text = _recorded("mlp_train_tpu_v5e")
    members = dict(step_memory(layout, text, TPU_ANALYSIS).members)
    saved = [name for name, role in members.items() if role == SAVED_ACTIVATIONS]
    lines = {line.split(" = ", 1)[0].strip().lstrip("%"): line for line in text.splitlines() if " = " in line}
    assert saved and all("jvp(dense" in lines[name] for name in saved)  # the hidden layers' outputs


def test_input_output_alias_is_read_from_the_header():
    header = "HloModule m, input_output_alias={ {0}: (7, {}, may-alias), {12}: (3, {}, must-alias) }, entry"
    assert input_output_aliases(header) == (("{0}", 7), ("{12}", 3))
    assert input_output_aliases("HloModule m, entry_computation_layout={()->f32[]}") == ()


def test_summary_compares_with_inference_and_names_the_compiler():
    layout, text = _recorded("mlp_train_gpu_h100")
    lines = step_lines(layout, text, GPU_ANALYSIS, "gpu:h100")
    assert lines[0] == "train (adam), compiled by XLA:GPU (Keras on JAX)"
    assert any(line.strip().startswith("gradients") for line in lines)
    assert any(line.startswith("peak ") and "inference" in line for line in lines)


# --- meshes ---------------------------------------------------------------------------------


def test_data_parallel_training_all_reduces_the_gradients_over_all_four_chips():
    found = collectives((TRAIN / "mlp_train_tpu_v5e_2x2_data.hlo.txt").read_text(encoding="utf-8"))
    reduces = [c for c in found if c.opcode == "all-reduce"]
    assert reduces and all(c.group_size == 4 for c in reduces)
    # The combined all-reduce carries every gradient: dense's kernel among them.
    assert any("f32[64,128]" in c.shape for c in reduces)
    assert sum(c.bytes_per_device for c in reduces) >= 4 * (64 * 128 + 128 * 64 + 64 * 10)


def test_model_parallel_training_gathers_activations_and_reduces_partial_sums():
    found = collectives((TRAIN / "mlp_train_tpu_v5e_2x2_model.hlo.txt").read_text(encoding="utf-8"))
    kinds = {c.opcode for c in found}
    assert {"all-gather", "all-reduce"} <= kinds
    assert any(c.replica_groups == "[2,2]<=[4]" and c.group_size == 2 for c in found)


@pytest.mark.parametrize(("groups", "size"), [
    ("[2,2]<=[4]", 2), ("[1,4]<=[4]", 4), ("[2,2]<=[2,2]T(1,0)", 2), ("{{0,1,2,3}}", 4), ("{{0,2},{1,3}}", 2),
    ("mesh['axis_0'=4] {'axis_0'}", 4), ("mesh['axis_0'=2,'axis_1'=2] {'axis_1'}", 2),
    ("mesh['axis_0'=2,'axis_1'=2] {'axis_0','axis_1'}", 4),
])
def test_replica_group_sizes(groups, size):
    assert group_size(groups) == size


# --- the command line refuses what no compiler could do ------------------------------------


@pytest.mark.parametrize(("argv", "message"), [
    (["--shard", "data", "--targets", "tpu:v5e"], "--shard data needs --mesh"),
    (["--mesh", "2x2", "--targets", "tpu:v5e"], "--mesh needs --shard"),
    (["--mesh", "two", "--shard", "data", "--targets", "tpu:v5e"], "bad --mesh 'two'"),
    (["--mesh", "0x2", "--shard", "data", "--targets", "tpu:v5e"], "bad --mesh '0x2'"),
    (["--mesh", "32x32", "--shard", "data", "--targets", "tpu:v5e"], "at most 256"),
    (["--mesh", "2x2", "--shard", "data"], "cpu is one device"),
    (["--mesh", "2x2", "--shard", "data", "--targets", "gpu:local"], "gpu:local is one device"),
    (["--mesh", "2x2", "--shard", "data", "--targets", "tpu:v5e", "--batch", "6"], "not a multiple of 4"),
    (["--mesh", "2x2", "--shard", "model", "--targets", "tpu:v5e", "--batch", "3"], "not a multiple of 2"),
    (["--optimizer", "sgd"], "--optimizer sgd needs --mode train"),
    (["--remat"], "--remat needs --mode train"),
    (["--mode", "serve"], "invalid choice: 'serve'"),
    (["--mode", "train", "--optimizer", "lion"], "invalid choice: 'lion'"),
])
def test_bad_mode_and_mesh_options_are_one_line_errors(argv, message, capsys, tmp_path):
    code = main(["capture", "mlp", "-o", str(tmp_path / "b"), *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "b").exists()


def test_the_hlo_parser_reads_mesh_replica_groups():
    """jax 0.10 prints `replica_groups=mesh['axis_0'=4] {'axis_0'}` (a space inside the value)."""
    from explorer.hlo.parser import parse_module

    module = parse_module((TRAIN / "mlp_train_tpu_v5e_2x2_data.hlo.txt").read_text(encoding="utf-8"))
    groups = [dict(i.attributes)["replica_groups"] for _, i in module.all_instructions() if i.opcode == "all-reduce"]
    assert groups == ["mesh['axis_0'=4] {'axis_0'}"]


# --- which worker compiles what; the cache key ------------------------------------------------


def test_train_mode_sends_cpu_to_the_jax_worker():
    from explorer.capture.growth import plan
    from explorer.model.records import CaptureOptions

    train = plan(None, CaptureOptions(targets=("cpu", "tpu:v5e"), mode="train", optimizer="adam"))
    assert train.tensorflow and not train.cpu  # layers and graph still come from TensorFlow
    assert train.accelerators == ("cpu", "tpu:v5e")
    inference = plan(None, CaptureOptions(targets=("cpu", "tpu:v5e")))
    assert inference.cpu and inference.accelerators == ("tpu:v5e",)


def test_mode_optimizer_and_mesh_are_part_of_the_cache_key(tmp_path):
    from explorer.capture.cache import cache_key
    from explorer.capture.model_source import ModelSource
    from explorer.model.records import CaptureOptions

    source = ModelSource(spec="mlp", kind="sample", display="mlp", content_hash="0" * 64)
    keys = {cache_key(source, options) for options in (
        CaptureOptions(targets=("tpu:v5e",)),
        CaptureOptions(targets=("tpu:v5e",), mode="train", optimizer="adam"),
        CaptureOptions(targets=("tpu:v5e",), mode="train", optimizer="sgd"),
        CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="data"),
        CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="model"),
        CaptureOptions(targets=("tpu:v5e",), mode="train", optimizer="adam", remat=True),
    )}
    assert len(keys) == 6
    # ... and the targets are not: one bundle grows by targets.
    assert cache_key(source, CaptureOptions(targets=("cpu",), mode="train", optimizer="adam")) in keys


def test_the_jax_worker_takes_cpu_only_for_a_training_step():
    from explorer.capture.jax_worker import check_request

    request = {"model_file": "m.json", "signature": [], "target": "cpu", "out_dir": "o"}
    with pytest.raises(ValueError, match="only in train mode"):
        check_request(request)
    assert check_request({**request, "mode": "train"})["target"] == "cpu"
