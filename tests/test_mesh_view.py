"""The mesh view's model (`D`): XLA's shardings read from real compiles.

Fixtures (tests/fixtures/bundles/make_mesh_fixtures.py): `mlp_mesh_2x2`, mlp's SGD training step
compiled by XLA:TPU for a v5e 2x2 mesh, model parallel; `mesh_slices.json`, every sharding of that
step on 2x2 and 4x4 meshes with the slice JAX itself assigns to each device.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.model.bundle import Bundle
from explorer.model.sharding import MESH_DEVICES
from explorer.views.mesh import (
    device_name,
    device_ranges,
    grid_cells,
    mesh_lines,
    parse_sharding,
    slice_cells,
    split_text,
)
from explorer.views.mesh import layer as mesh_layer

FIXTURES = Path(__file__).parent / "fixtures" / "bundles"
SLICES = json.loads((FIXTURES / "mesh_slices.json").read_text())


@pytest.fixture(scope="module")
def bundle():
    return Bundle.open(FIXTURES / "mlp_mesh_2x2")


@pytest.mark.parametrize("record", SLICES, ids=lambda r: f"{r['mesh']} {r['sharding']} {r['dims']}")
def test_each_device_holds_the_slice_jax_assigns(record):
    devices = 4 if record["mesh"] == "2x2" else 16
    sharding = parse_sharding(record["sharding"], len(record["dims"]), devices)
    held = device_ranges(tuple(record["dims"]), sharding)
    assert {str(d): [list(r) for r in ranges] for d, ranges in held.items()} == record["devices"]


def test_the_recorded_shardings_cover_transposed_iota_replicated_and_4x4():
    """The cases the parser must read are in the recorded data, not only the easy ones."""
    texts = {r["sharding"] for r in SLICES}
    assert any("T(1,0)" in t for t in texts) and "{replicated}" in texts
    assert any(r["mesh"] == "4x4" and "[4,4]<=[16]" in r["sharding"] for r in SLICES)


def test_dense_kernel_columns_are_split_over_the_model_axis(bundle):
    layer = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense")
    assert (layer.mesh, layer.shard, layer.grid) == ("2x2", "model", (2, 2))
    kernel, bias, output = layer.tensors
    assert (kernel.label, kernel.kind, kernel.shape) == ("kernel", "weight", "f32[64,128]")
    assert kernel.split == (1, 2) and kernel.replicas == 2
    # Row = data index, column = model index: each column holds one half of the 128 columns.
    assert [[cell.split("\n")[-1] for cell in row] for row in grid_cells(layer, kernel)] == [
        ["[0:64, 0:64]", "[0:64, 64:128]"], ["[0:64, 0:64]", "[0:64, 64:128]"]]
    assert {s.shape for s in kernel.slices} == {"f32[64,64]"} and kernel.slices[0].bytes == 64 * 64 * 4
    assert bias.label == "bias" and [s.ranges for s in bias.slices][:2] == [((0, 64),), ((64, 128),)]
    # The activation: batch rows over the data axis, features over the model axis.
    assert (output.kind, output.shape, output.split, output.replicas) == ("activation", "f32[8,128]", (2, 2), 1)
    assert grid_cells(layer, output)[1][0] == "d2 = chip (0,1), id 2\nf32[4,64] 1.0 KiB\n[4:8, 0:64]"


def test_words_in_both_languages(bundle):
    layer = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense")
    assert split_text(layer.tensors[0]) == "dim 1 in 2 parts, each part on 2 devices"
    assert split_text(layer.tensors[0], "de") == "Dim. 1 in 2 Teilen, jeder Teil auf 2 Geräten"
    lines = mesh_lines(layer, "de")
    assert lines[0].startswith("tpu:v5e auf einem 2x2-Gitter") and lines[1].startswith("Gewicht kernel f32[64,128]")


def test_the_input_layer_shows_the_batch_split_over_the_data_axis(bundle):
    """Model parallel: each row of the mesh gets half the batch; both devices of a row hold the same half."""
    (features,) = mesh_layer.layer_mesh(bundle, "tpu:v5e", "features").tensors
    assert (features.kind, features.shape, features.split, features.replicas) == ("activation", "f32[8,64]", (2, 1), 2)
    assert [s.ranges[0] for s in features.slices] == [(0, 4), (0, 4), (4, 8), (4, 8)]


def test_no_mesh_no_view(tmp_path):
    """A bundle compiled for one chip (or before the sharded snapshot was kept) has no mesh view."""
    assert mesh_layer.layer_mesh(Bundle.open(FIXTURES / "mnist_cnn"), "tpu:v5e", "conv2d") is None
    assert mesh_layer.layer_mesh(None, "tpu:v5e", "dense") is None
    bundle = Bundle.open(FIXTURES / "mlp_mesh_2x2")
    assert mesh_layer.layer_mesh(bundle, "cpu", "dense") is None  # a target the bundle lacks


def test_inspect_json_gives_each_layer_its_slices(capsys):
    from explorer.cli.main import main

    assert main(["inspect", str(FIXTURES / "mlp_mesh_2x2"), "--level", "layers", "--target", "tpu:v5e", "--json"]) == 0
    layers = {layer["name"]: layer for layer in json.loads(capsys.readouterr().out)["layers"]}
    kernel = layers["dense"]["mesh"]["tensors"][0]
    assert kernel["sharding"] == "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"
    assert kernel["slices"][1] == {"device": 1, "ranges": [[0, 64], [64, 128]], "shape": "f32[64,64]", "bytes": 16384}
    # No mesh on a target the bundle lacks: the key is left out, not empty.
    assert main(["inspect", str(FIXTURES / "mnist_cnn"), "--level", "layers", "--target", "tpu:v5e", "--json"]) == 0
    assert all("mesh" not in layer for layer in json.loads(capsys.readouterr().out)["layers"])


# --- which chip each d<n> is (mesh_devices.json, recorded by the capture) --------------------


def test_on_a_4x4_slice_each_d_names_its_chip_and_the_slice_map_shows_where_it_sits():
    """v5e:4x4's compile-only devices come in 2x2 blocks (ids 0,1,4,5 first): the mesh's first row
    d0..d3 is the chips (0,0) (1,0) (0,1) (1,1), not a row of the slice."""
    layer = mesh_layer.layer_mesh(Bundle.open(FIXTURES / "mlp_mesh_4x4"), "tpu:v5e", "dense")
    assert len(layer.devices) == 16 and {d.kind for d in layer.devices} == {"TPU v5 lite"}
    assert [device_name(layer, n) for n in range(4)] == [
        "d0 = chip (0,0), id 0", "d1 = chip (1,0), id 1", "d2 = chip (0,1), id 4", "d3 = chip (1,1), id 5"]
    assert device_name(layer, 4, "de") == "d4 = Chip (2,0), ID 2"
    assert grid_cells(layer, layer.tensors[0])[0][2].startswith("d2 = chip (0,1), id 4\nf32[64,32]")
    columns, rows = slice_cells(layer)
    assert columns == ("x=0", "x=1", "x=2", "x=3")
    assert rows == (("y=0", ("d0", "d1", "d4", "d5")), ("y=1", ("d2", "d3", "d6", "d7")),
                    ("y=2", ("d8", "d9", "d12", "d13")), ("y=3", ("d10", "d11", "d14", "d15")))
    assert mesh_lines(layer)[-1].startswith("d<n>: XLA's logical device number")


def test_on_a_2x2_slice_the_mesh_grid_is_the_slice(bundle):
    layer = mesh_layer.layer_mesh(bundle, "tpu:v5e", "dense")
    assert slice_cells(layer) == (("x=0", "x=1"), (("y=0", ("d0", "d1")), ("y=1", ("d2", "d3"))))


def test_a_capture_that_did_not_record_its_devices_says_so(tmp_path):
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(FIXTURES / "mlp_mesh_2x2", copy)
    (copy / "targets" / "tpu-v5e" / MESH_DEVICES).unlink()
    layer = mesh_layer.layer_mesh(Bundle.open(copy), "tpu:v5e", "dense")
    assert layer.devices == () and slice_cells(layer) == ((), ())
    assert grid_cells(layer, layer.tensors[0])[0][1].startswith("d1\nf32[64,64]")
    assert "did not record its devices" in mesh_lines(layer)[-1]
    assert "nicht festgehalten" in mesh_lines(layer, "de")[-1]
