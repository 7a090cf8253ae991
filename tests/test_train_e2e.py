"""End to end: `mlp`'s training step compiled for real by XLA:TPU, XLA:GPU (compile-only) and XLA:CPU
through Keras on JAX, read back through what the memory pane and `tensorweg inspect` show."""

from __future__ import annotations

import json

import pytest

from explorer.capture.orchestrator import capture
from explorer.cli.main import main
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.model.sharding import collectives
from explorer.model.training import GRADIENTS, OPTIMIZER_STATE, SAVED_ACTIVATIONS, peak_of, step_memory
from explorer.views import explain, panes, session, trace

pytestmark = pytest.mark.e2e

TRAIN = CaptureOptions(targets=("tpu:v5e", "gpu:h100", "cpu"), batch=8, mode="train", optimizer="adam")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return Bundle.open(capture("mlp", TRAIN, out_dir=tmp_path_factory.mktemp("b") / "mlp"))


@pytest.mark.parametrize("target", TRAIN.targets)
def test_training_step_has_gradients_optimizer_state_and_a_higher_peak(bundle, target):
    for level in ("hlo", "optimized-hlo", "memory", "kernels"):
        assert bundle.status(level, target).status == "ok", (target, level, bundle.status(level, target).error)
    layout = panes.step_layout(bundle, target)
    memory = step_memory(layout, bundle.hlo_text(target, optimized=True), bundle.memory(target).analysis)
    assert memory.bytes_of(GRADIENTS) > 0
    assert memory.bytes_of(OPTIMIZER_STATE) > 0
    assert memory.bytes_of(SAVED_ACTIVATIONS) > 0
    assert memory.peak_bytes > memory.inference_peak_bytes > 0
    assert memory.aliases, "weights and optimizer state are donated"
    compiler = {"tpu:v5e": "XLA:TPU", "gpu:h100": "XLA:GPU", "cpu": "XLA:CPU"}[target]
    assert panes.step_lines(bundle, target)[0].startswith(f"train (adam), compiled by {compiler}")


def test_title_says_train_mode(bundle):
    assert session.mode_text(bundle) == "train (adam)"


def test_backward_instructions_name_their_layer(bundle):
    """The memory pane of a backward dot says whose gradient it is; the index links it to the layer."""
    module = bundle.hlo_module("tpu:v5e", optimized=False)
    backward = [i for _, i in module.all_instructions()
                if "transpose(jvp(dense_1))" in i.metadata.op_name and i.opcode == "dot"]
    assert backward
    facts = panes.memory_facts(bundle, "hlo", "tpu:v5e", backward[0].name)
    assert any(line.startswith("pass   dense_1, backward") for line in facts)
    # dense_1's kernel is 128x64: the backward dot computes its transpose, a transpose finishes it.
    kernel_gradient = [panes.memory_facts(bundle, "hlo", "tpu:v5e", i.name)[0] for _, i in module.all_instructions()
                       if "transpose(jvp(dense_1))" in i.metadata.op_name and list(i.shape.dims) == [128, 64]]
    assert "pass   dense_1, backward: gradient w.r.t. the kernel" in kernel_gradient
    assert trace.layer_of(bundle, "hlo", backward[0].name, "tpu:v5e") == "dense_1"


def test_inspect_prints_the_buffer_classes(bundle, capsys):
    assert main(["inspect", str(bundle.path), "--level", "memory", "--target", "gpu:h100", "--json"]) == 0
    step = json.loads(capsys.readouterr().out)["step"]
    roles = {line.split()[0] for line in step if line.startswith("  ")}
    assert {"weights", "optimizer", "gradients", "saved"} <= roles


# --- 2x2 TPU slices -----------------------------------------------------------------------


def _mesh_bundle(tmp_path, shard: str) -> Bundle:
    options = CaptureOptions(targets=("tpu:v5e",), batch=8, mode="train", optimizer="sgd", mesh="2x2", shard=shard)
    return Bundle.open(capture("mlp", options, out_dir=tmp_path / shard))


def _parameter_shapes(bundle: Bundle) -> dict[str, str]:
    """Per-device shapes of the optimized entry's parameters, by the role step.json gives them."""
    module = bundle.hlo_module("tpu:v5e", optimized=True)
    entry = next(c for c in module.computations if c.is_entry)
    by_number = {int(dict(i.attributes)["parameter_number"]): f"{i.shape.element_type}{list(i.shape.dims)}"
                 for i in entry.instructions if i.opcode == "parameter"}
    layout = panes.step_layout(bundle, "tpu:v5e")
    return {name: by_number[group.first + offset]
            for group in layout.arguments for offset, name in enumerate(group.names)}


def test_data_parallel_splits_the_batch_and_all_reduces_over_four_chips(tmp_path):
    bundle = _mesh_bundle(tmp_path, "data")
    shapes = _parameter_shapes(bundle)
    assert shapes["features"] == "f32[2, 64]"  # batch 8 over 4 chips
    assert shapes["dense/kernel"] == "f32[64, 128]"  # every chip holds every weight
    lines = panes.step_lines(bundle, "tpu:v5e")
    assert lines[0].startswith("train (sgd) on 2x2, data parallel")
    reduces = [line for line in lines if line.strip().startswith("all-reduce")]
    assert reduces and any("'axis_0'=4" in line or "{0,1,2,3}" in line for line in reduces)
    assert any(line.startswith("fits in one chip's 16.0 GiB") for line in lines)
    assert session.mode_text(bundle) == "train (sgd) on 2x2, data parallel"


def test_model_parallel_splits_the_weights(tmp_path):
    bundle = _mesh_bundle(tmp_path, "model")
    shapes = _parameter_shapes(bundle)
    assert shapes["dense/kernel"] == "f32[64, 64]"  # dense's 64x128 kernel, its columns over 2 chips
    assert shapes["features"] == "f32[4, 64]"  # the batch over the data axis only
    lines = panes.step_lines(bundle, "tpu:v5e")
    assert any(line.strip().startswith(("all-gather", "all-reduce")) and "[2,2]<=[4]" in line for line in lines)
    # Each kernel is credited to its own layer at both levels, though its per-device shape no
    # longer adds up to the layer's parameter count (it was credited to the next layer).
    credited = _kernel_owners(bundle)
    assert credited == {layer: (layer, layer) for layer in ("dense", "dense_1", "logits")}


def _kernel_owners(bundle: Bundle) -> dict[str, tuple[str, str]]:
    """`<layer>/kernel` -> the layer the index credits its entry parameter to, before and after optimisation."""
    layout = panes.step_layout(bundle, "tpu:v5e")
    numbers = {name: group.first + offset for group in layout.arguments for offset, name in enumerate(group.names)}
    owners = {}
    for path, number in numbers.items():
        if not path.endswith("/kernel"):
            continue
        layers = []
        for optimized, level in ((False, "hlo"), (True, "optimized-hlo")):
            entry = next(c for c in bundle.hlo_module("tpu:v5e", optimized=optimized).computations if c.is_entry)
            name = next(i.name for i in entry.instructions
                        if i.opcode == "parameter" and dict(i.attributes)["parameter_number"] == str(number))
            layers.append(bundle.index.layer_of(level, name, "tpu:v5e"))
        owners[path.removesuffix("/kernel")] = tuple(layers)
    return owners


def test_explanations_follow_the_buffer_class(bundle):
    """A gradient buffer gets the gradients text; a donated weight the donation text (both languages)."""
    members = panes.step_members(bundle, "gpu:h100")
    gradient = next(name for name, role in members.items() if role == "gradients")
    keys = [key for group in explain.explanation_keys(bundle, "optimized-hlo", "gpu:h100", gradient) for key in group]
    assert "training:gradients" in keys
    weight = next(name for name, role in members.items() if role == "weights")
    texts = explain.explanations(bundle, "optimized-hlo", "gpu:h100", weight, "de")
    assert any(text.key == "training:donation" for text in texts)


def test_the_title_line_says_train_mode(bundle):
    """What the title bar shows once the bundle is open (the app reads the same `session.mode_text`)."""
    from screens.app import create_app

    from tests.pilot_support import opened, sync

    @sync
    async def run():
        app = create_app(bundle.path)
        async with app.run_test(size=(120, 40)) as pilot:
            await opened(pilot)
            assert app.session.now.title_line("optimized-hlo").endswith("| train (adam)")

    run()


def test_a_gpu_box_is_compiled_as_four_h100s_with_one_all_reduce(tmp_path):
    """XLA's compile-only CUDA client accepts a one-host, four-GPU topology (`1x1x4`)."""
    options = CaptureOptions(targets=("gpu:h100",), batch=8, mode="train", optimizer="sgd", mesh="2x2", shard="data")
    bundle = Bundle.open(capture("mlp", options, out_dir=tmp_path / "gpu"))
    found = collectives(bundle.hlo_text("gpu:h100", optimized=True))
    assert [c.group_size for c in found if c.opcode == "all-reduce"][-1] == 4
    assert any("NVLink" in line for line in panes.step_lines(bundle, "gpu:h100"))


def test_remat_on_h100_lowers_the_peak_and_says_by_how_much(tmp_path):
    """Per-layer jax.checkpoint: the step is compiled with and without it in one worker."""
    options = CaptureOptions(targets=("gpu:h100",), batch=4096, mode="train", optimizer="adam", remat=True)
    bundle = Bundle.open(capture("mlp", options, out_dir=tmp_path / "remat"))
    layout = panes.step_layout(bundle, "gpu:h100")
    memory = step_memory(layout, bundle.hlo_text("gpu:h100", optimized=True), bundle.memory("gpu:h100").analysis)
    kept = peak_of(layout.without_remat_analysis)
    assert memory.peak_bytes < kept
    assert any(line.startswith("remat saves ") for line in panes.step_lines(bundle, "gpu:h100"))
    assert session.mode_text(bundle) == "train (adam), rematerialised"


def test_tiny_transformer_training_step_on_v5e(tmp_path):
    """Attention, layer norm and embeddings differentiate too; the step needs far more than inference."""
    options = CaptureOptions(targets=("tpu:v5e",), mode="train", optimizer="adam")
    bundle = Bundle.open(capture("tiny_transformer", options, out_dir=tmp_path / "tt"))
    layout = panes.step_layout(bundle, "tpu:v5e")
    memory = step_memory(layout, bundle.hlo_text("tpu:v5e", optimized=True), bundle.memory("tpu:v5e").analysis)
    assert memory.bytes_of(OPTIMIZER_STATE) == 2 * memory.bytes_of("weights") + 8  # Adam: two moments per weight
    assert memory.bytes_of(SAVED_ACTIVATIONS) > 0
    assert memory.peak_bytes > 2 * memory.inference_peak_bytes
