"""Compare "1 chip vs 2x2 vs 4x4" on recorded real compiles (tests/fixtures/bundles/make_mesh_fixtures.py):
mlp's SGD training step on one v5e chip and on v5e 2x2 and 4x4 meshes, model parallel, batch 8.

The other meshes are found where the capture puts them: the cache, under the key of the same
model and options with only the mesh changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer.model.bundle import Bundle
from explorer.views.compare.mesh import mesh_comparison, mesh_table, sibling_path

FIXTURES = Path(__file__).parent / "fixtures" / "bundles"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache; `fill` puts the recorded 1-chip and 4x4 bundles where a capture would."""
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    bundle = Bundle.open(FIXTURES / "mlp_mesh_2x2")

    def fill():
        for mesh, name in (("", "mlp_one_chip"), ("4x4", "mlp_mesh_4x4")):
            path, _command = sibling_path(bundle, "tpu:v5e", mesh)
            shutil.copytree(FIXTURES / name, path)
    return bundle, fill


def test_one_chip_2x2_and_4x4_side_by_side(cache):
    bundle, fill = cache
    fill()
    one, two, four = mesh_comparison(bundle, "tpu:v5e", "dense")
    assert [c.mesh for c in (one, two, four)] == ["", "2x2", "4x4"] and all(c.captured for c in (one, two, four))
    # dense's 64x128 kernel: whole on one chip, its columns halved on 2x2, quartered on 4x4.
    assert [dict((n, s) for n, s, _ in c.tensors)["kernel"] for c in (one, two, four)] == [
        "f32[64,128]", "f32[64,64]", "f32[64,32]"]
    assert [dict((n, s) for n, s, _ in c.tensors)[""] for c in (one, two, four)] == [
        "f32[8,128]", "f32[4,64]", "f32[2,32]"]
    assert one.layer_bytes > two.layer_bytes > four.layer_bytes
    assert not one.collectives  # one chip talks to no one
    assert four.collectives and all(c.groups == "[4,4]<=[16]" for c in four.collectives)
    assert all(c.seconds is not None and c.seconds > 0 for c in two.collectives + four.collectives)
    assert all(c.fits for c in (one, two, four)) and one.peak_bytes > four.peak_bytes


def test_the_table_in_both_languages(cache):
    bundle, fill = cache
    fill()
    headers, rows = mesh_table(mesh_comparison(bundle, "tpu:v5e", "dense"), "de")
    assert headers[0] == ("1 Chip", "") and headers[2] == ("4x4", "model-parallel")
    cells = dict(rows)
    assert cells["Kollektive"][0].startswith("keine") and "all-gather" in cells["Kollektive"][2]
    assert "passt in 16,0 GiB" in cells["Spitze je Gerät"][1]  # German decimals (issue 39)


def test_a_mesh_not_captured_names_the_command(cache):
    bundle, _fill = cache
    one, _two, four = mesh_comparison(bundle, "tpu:v5e", "dense")
    assert not one.captured and not four.captured
    assert four.capturable
    command = "tensorweg capture mlp --batch 8 --mode train --optimizer sgd"  # the option table's order
    assert four.note == f"{command} --mesh 4x4 --shard model --targets tpu:v5e"
    assert one.note == f"{command} --targets tpu:v5e"
    _headers, rows = mesh_table((one, _two, four))
    assert rows[0][1][2].startswith("not captured: press M, or run: tensorweg capture mlp")
    _headers, rows = mesh_table((one, _two, four), capturing=True)
    assert rows[0][1][2] == "capturing (compile-only)..."


def test_a_mesh_the_batch_cannot_fill_says_why(tmp_path, monkeypatch):
    """Batch 8, data parallel on 4x4: 16 devices, each needs at least one example."""
    import json

    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "data"
    shutil.copytree(FIXTURES / "mlp_mesh_2x2", copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["options"]["shard"] = "data"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    four = mesh_comparison(Bundle.open(copy), "tpu:v5e", "dense")[2]
    assert not four.captured and not four.capturable and "--batch 8 is not a multiple of 16" in four.note
    _headers, rows = mesh_table(mesh_comparison(Bundle.open(copy), "tpu:v5e", "dense"), "de")
    assert rows[0][1][2].startswith("nicht kompilierbar: --shard data on a 4x4 mesh")
    assert four.tensors == ()


def test_compare_json_carries_the_mesh_columns(cache, capsys):
    import json

    from explorer.cli.main import main

    _bundle, fill = cache
    fill()
    assert main(["compare", str(FIXTURES / "mlp_mesh_2x2"), "--layer", "dense_1", "--json"]) == 0
    columns = json.loads(capsys.readouterr().out)["meshes"]["tpu:v5e"]
    assert [c["mesh"] for c in columns] == ["", "2x2", "4x4"] and all(c["captured"] for c in columns)
    assert [c["tensors"][0] for c in columns] == [["kernel", "f32[128,64]", 32768], ["kernel", "f32[128,32]", 16384],
                                                  ["kernel", "f32[128,16]", 8192]]
