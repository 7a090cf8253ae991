"""The mesh view's model (`D`): XLA's shardings read from real compiles.

Fixtures (tests/fixtures/bundles/make_mesh_fixtures.py): `mlp_mesh_2x2`, mlp's SGD training step
compiled by XLA:TPU for a v5e 2x2 mesh, model parallel; `mesh_slices.json`, every sharding of that
step on 2x2 and 4x4 meshes with the slice JAX itself assigns to each device.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer import view
from explorer.bundle import Bundle
from explorer.mesh_view import device_ranges, grid_cells, mesh_lines, parse_sharding, split_text

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
    layer = view.layer_mesh(bundle, "tpu:v5e", "dense")
    assert (layer.mesh, layer.shard, layer.grid) == ("2x2", "model", (2, 2))
    kernel, bias, output = layer.tensors
    assert (kernel.label, kernel.kind, kernel.shape) == ("kernel", "weight", "f32[64,128]")
    assert kernel.split == (1, 2) and kernel.replicas == 2
    # Row = data index, column = model index: each column holds one half of the 128 columns.
    assert [[cell.split("\n")[1] for cell in row] for row in grid_cells(layer, kernel)] == [
        ["[0:64, 0:64]", "[0:64, 64:128]"], ["[0:64, 0:64]", "[0:64, 64:128]"]]
    assert {s.shape for s in kernel.slices} == {"f32[64,64]"} and kernel.slices[0].bytes == 64 * 64 * 4
    assert bias.label == "bias" and [s.ranges for s in bias.slices][:2] == [((0, 64),), ((64, 128),)]
    # The activation: batch rows over the data axis, features over the model axis.
    assert (output.kind, output.shape, output.split, output.replicas) == ("activation", "f32[8,128]", (2, 2), 1)
    assert grid_cells(layer, output)[1][0].startswith("d2 f32[4,64] 1.0 KiB\n[4:8, 0:64]")


def test_words_in_both_languages(bundle):
    layer = view.layer_mesh(bundle, "tpu:v5e", "dense")
    assert split_text(layer.tensors[0]) == "dim 1 in 2 parts, each part on 2 devices"
    assert split_text(layer.tensors[0], "de") == "Dim. 1 in 2 Teilen, jeder Teil auf 2 Geräten"
    lines = mesh_lines(layer, "de")
    assert lines[0].startswith("tpu:v5e auf einem 2x2-Gitter") and lines[1].startswith("Gewicht kernel f32[64,128]")


def test_the_input_layer_shows_the_batch_split_over_the_data_axis(bundle):
    """Model parallel: each row of the mesh gets half the batch; both devices of a row hold the same half."""
    (features,) = view.layer_mesh(bundle, "tpu:v5e", "features").tensors
    assert (features.kind, features.shape, features.split, features.replicas) == ("activation", "f32[8,64]", (2, 1), 2)
    assert [s.ranges[0] for s in features.slices] == [(0, 4), (0, 4), (4, 8), (4, 8)]


def test_no_mesh_no_view(tmp_path):
    """A bundle compiled for one chip (or before the sharded snapshot was kept) has no mesh view."""
    assert view.layer_mesh(Bundle.open(FIXTURES / "mnist_cnn"), "tpu:v5e", "conv2d") is None
    assert view.layer_mesh(None, "tpu:v5e", "dense") is None
    bundle = Bundle.open(FIXTURES / "mlp_mesh_2x2")
    assert view.layer_mesh(bundle, "cpu", "dense") is None  # a target the bundle lacks


def test_inspect_json_gives_each_layer_its_slices(capsys):
    from explorer.cli import main

    assert main(["inspect", str(FIXTURES / "mlp_mesh_2x2"), "--level", "layers", "--target", "tpu:v5e", "--json"]) == 0
    layers = {layer["name"]: layer for layer in json.loads(capsys.readouterr().out)["layers"]}
    kernel = layers["dense"]["mesh"]["tensors"][0]
    assert kernel["sharding"] == "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"
    assert kernel["slices"][1] == {"device": 1, "ranges": [[0, 64], [64, 128]], "shape": "f32[64,64]", "bytes": 16384}
    # No mesh on a target the bundle lacks: the key is left out, not empty.
    assert main(["inspect", str(FIXTURES / "mnist_cnn"), "--level", "layers", "--target", "tpu:v5e", "--json"]) == 0
    assert all("mesh" not in layer for layer in json.loads(capsys.readouterr().out)["layers"])
