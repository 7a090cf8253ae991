"""End to end: `mlp`'s training step compiled for real by XLA:TPU (compile-only v5e) on 2x2 and 4x4
meshes, read back through what the memory pane, the mesh view (`D`) and `tensorweg inspect` show."""

from __future__ import annotations

import pytest
from test_train_e2e import _parameter_shapes

from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.model.sharding import collectives
from explorer.views import panes
from explorer.views.mesh import grid_cells, mesh_lines, slice_cells
from explorer.views.mesh import layer as mesh_layer

pytestmark = pytest.mark.e2e


def _bundle(tmp_path, mesh: str, shard: str, batch: int) -> Bundle:
    options = CaptureOptions(targets=("tpu:v5e",), batch=batch, mode="train", optimizer="sgd", mesh=mesh, shard=shard)
    return Bundle.open(capture("mlp", options, out_dir=tmp_path / f"{mesh}-{shard}", use_cache=False))


def test_4x4_data_parallel_gives_each_of_16_chips_one_example_and_all_reduces_the_gradients(tmp_path):
    bundle = _bundle(tmp_path, "4x4", "data", 16)
    shapes = _parameter_shapes(bundle)
    assert shapes["features"] == "f32[1, 64]"  # batch 16 over 16 chips
    assert shapes["dense/kernel"] == "f32[64, 128]"  # every chip holds every weight
    reduces = [c for c in collectives(bundle.hlo_text("tpu:v5e", optimized=True)) if c.opcode == "all-reduce"]
    assert reduces and reduces[-1].group_size == 16  # the gradients, summed over every chip
    lines = panes.step_lines(bundle, "tpu:v5e")
    assert lines[0].startswith("train (sgd) on 4x4, data parallel")
    assert any(line.startswith("fits in one chip's 16.0 GiB") for line in lines)
    # The mesh view: the kernel is replicated on all 16, the output split over the batch only.
    kernel, _bias, output = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense").tensors
    assert kernel.replicas == 16 and {s.ranges for s in kernel.slices} == {((0, 64), (0, 128))}
    assert output.split == (16, 1) and {s.shape for s in output.slices} == {"f32[1,128]"}


def test_4x4_model_parallel_splits_kernels_in_four_and_gathers_over_groups_of_four(tmp_path):
    bundle = _bundle(tmp_path, "4x4", "model", 16)
    shapes = _parameter_shapes(bundle)
    assert shapes["dense/kernel"] == "f32[64, 32]"  # 128 columns over the 4 chips of the model axis
    assert shapes["dense_1/kernel"] == "f32[128, 16]"
    assert shapes["features"] == "f32[4, 64]"  # batch 16 over the 4 rows of the data axis
    found = collectives(bundle.hlo_text("tpu:v5e", optimized=True))
    assert {c.opcode for c in found} >= {"all-gather", "all-reduce"}
    assert any(c.replica_groups == "[4,4]<=[16]" and c.group_size == 4 for c in found)
    layer = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense")
    kernel = layer.tensors[0]
    assert layer.grid == (4, 4) and kernel.split == (1, 4) and kernel.replicas == 4
    # Column j of the mesh holds columns 32j..32j+32 of the kernel, in every row.
    for row in grid_cells(layer, kernel):
        assert [cell.split("\n")[-1] for cell in row] == [f"[0:64, {32 * j}:{32 * j + 32}]" for j in range(4)]


def test_2x2_mesh_view_shows_dense_kernel_halves_on_the_devices(tmp_path):
    bundle = _bundle(tmp_path, "2x2", "model", 8)
    layer = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense")
    kernel, bias, output = layer.tensors
    assert (kernel.shape, kernel.sharding) == ("f32[64,128]", "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}")
    halves = {s.device: s.ranges[1] for s in kernel.slices}
    assert halves == {0: (0, 64), 1: (64, 128), 2: (0, 64), 3: (64, 128)}
    assert {s.shape for s in kernel.slices} == {"f32[64,64]"} and bias.split == (2,)
    assert (output.shape, output.split) == ("f32[8,128]", (2, 2))
    # The capture recorded which chip each d<n> is, from the compile-only v5e:2x2 topology.
    assert [(d.logical, d.id, d.coords) for d in layer.devices] == [
        (0, 0, (0, 0, 0)), (1, 1, (1, 0, 0)), (2, 2, (0, 1, 0)), (3, 3, (1, 1, 0))]
    assert grid_cells(layer, kernel)[1][1].startswith("d3 = chip (1,1), id 3\nf32[64,64]")
    assert slice_cells(layer)[1] == (("y=0", ("d0", "d1")), ("y=1", ("d2", "d3")))


def test_m_on_the_compare_screen_captures_the_missing_meshes(tmp_path, monkeypatch):
    """From a 2x2 bundle: M compiles the 1-chip and 4x4 steps into the cache and the table fills in."""
    import shutil
    from pathlib import Path

    from screens.app import create_app
    from screens.compare import CompareScreen
    from screens.screenshot import workers_done

    from tests.pilot_support import sync

    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    bundle = tmp_path / "mlp_mesh_2x2"
    shutil.copytree(Path(__file__).parent / "fixtures" / "bundles" / "mlp_mesh_2x2", bundle)

    @sync
    async def run():
        app = create_app(bundle, level="layers", target="tpu:v5e", select="dense")
        async with app.run_test(size=(160, 60)) as pilot:
            for _ in range(200):
                await pilot.pause()
                if app.bundle is not None and app.trace.index.entries:
                    break
            await pilot.press("x")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, CompareScreen) and not screen.mesh_columns[0].captured
            await pilot.press("M")
            assert screen.capturing_meshes
            await workers_done(app)
            await pilot.pause()
            assert not screen.capturing_meshes
            assert [c.captured for c in screen.mesh_columns] == [True, True, True]
            kernels = [dict((n, s) for n, s, _ in c.tensors)["kernel"] for c in screen.mesh_columns]
            assert kernels == ["f32[64,128]", "f32[64,64]", "f32[64,32]"]

    run()


def test_the_mesh_view_of_a_four_gpu_box_and_of_an_inference_call(tmp_path):
    """XLA's compile-only CUDA client runs the same sharding propagation; an inference call on a
    mesh (no --mode train) keeps its snapshot too."""
    options = CaptureOptions(targets=("gpu:h100",), batch=8, mode="train", optimizer="sgd", mesh="2x2", shard="model")
    gpu = Bundle.open(capture("mlp", options, out_dir=tmp_path / "gpu", use_cache=False))
    layer = mesh_layer.layer_mesh(gpu, "gpu:h100", "dense")
    kernel = layer.tensors[0]
    assert {s.device: s.ranges[1] for s in kernel.slices} == {0: (0, 64), 1: (64, 128), 2: (0, 64), 3: (64, 128)}
    # Ids, and a (slice, host, GPU) index that is no place on a board: the view says so plainly.
    assert [(d.id, d.coords) for d in layer.devices] == [(n, (0, 0, n)) for n in range(4)]
    assert grid_cells(layer, kernel)[0][1].startswith("d1 = device id 1\n") and slice_cells(layer) == ((), ())
    assert "where each GPU sits is NOT known" in mesh_lines(layer)[-1]
    options = CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="data")
    call = Bundle.open(capture("mlp", options, out_dir=tmp_path / "call", use_cache=False))
    kernel, _bias, output = mesh_layer.layer_mesh(call, "tpu:v5e", "dense_1").tensors
    assert kernel.replicas == 4 and output.split == (4, 1) and output.slices[3].ranges == ((6, 8), (0, 64))


def test_attention_shows_the_weights_of_its_sub_layers(tmp_path):
    """tiny_transformer's MultiHeadAttention owns query/key/value/output Dense layers: the mesh view
    of `attention` lists their kernels, each split over the model axis."""
    options = CaptureOptions(targets=("tpu:v5e",), batch=4, mode="train", optimizer="adam", mesh="2x2", shard="model")
    bundle = Bundle.open(capture("tiny_transformer", options, out_dir=tmp_path / "tt", use_cache=False))
    tensors = {t.label: t for t in mesh_layer.layer_mesh(bundle, "tpu:v5e", "attention").tensors}
    assert {"query/kernel", "key/kernel", "value/kernel", "attention_output/kernel", ""} <= set(tensors)
    assert tensors["query/kernel"].shape == "f32[32,2,16]" and tensors["query/kernel"].split == (1, 1, 2)
    assert tensors[""].shape == "f32[4,16,32]"  # the layer's output, batch over data, features over model
