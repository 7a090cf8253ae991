"""`--layout-map FILE`: a Keras LayoutMap read from untrusted TOML or JSON. Every bad file is one
`error:` line naming the file (and the key), exit 2, nothing written or cached; a good one
is compiled through keras.distribution.ModelParallel (e2e on `mlp`, 2x2 v5e)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture.layout_map import LayoutMapError, assign, load_layout_map
from explorer.cli.main import main

MESH = ["--targets", "tpu:v5e", "--mesh", "2x2", "--batch", "8", "--mode", "train", "--optimizer", "sgd"]
MLP_WEIGHTS = [("dense/kernel", (64, 128)), ("dense/bias", (128,)), ("dense_1/kernel", (128, 64)),
               ("dense_1/bias", (64,)), ("logits/kernel", (64, 10)), ("logits/bias", (10,))]
SIZES = {"data": 2, "model": 2}


def _cli(*argv: str) -> subprocess.CompletedProcess:
    """The command a learner types, in its own process (the capture prints progress on stderr)."""
    return subprocess.run([sys.executable, "-m", "explorer.cli", *argv], capture_output=True, text=True,
                          timeout=600, check=False)


def _nothing_cached() -> bool:
    root = Path(os.environ["TENSORWEG_CACHE_DIR"]) / "bundles"
    return not root.exists() or not any(root.iterdir())


def _refused(capsys, tmp_path, layout: Path, *extra: str) -> str:
    code = main(["capture", "mlp", "-o", str(tmp_path / "b"), *MESH, "--layout-map", str(layout), *extra])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "b").exists() and _nothing_cached()
    return err


@pytest.mark.parametrize(("name", "text", "message"), [
    ("map.json", "dense/kernel: [null, model", "map.json: not valid JSON (line 1"),
    ("map.toml", '"dense/kernel" = [', "map.toml: not valid TOML"),
    ("map.txt", "<layout>dense</layout>", "map.txt: neither JSON nor TOML"),
    ("map.json", '{"dense/kernel": [null, "tensor"]}', "key 'dense/kernel': unknown mesh axis 'tensor'"),
    ("map.json", '{"dense/kernel": [1, "model"]}', "key 'dense/kernel': unknown mesh axis '1'"),
    ("map.json", '{"dense/kernel": ["model", "model"]}', "axis 'model' used twice"),
    ("map.json", '{"dense(/kernel": [null, "model"]}', "key 'dense(/kernel' is not a regular expression"),
    ("map.json", '{"dense/kernel": "model"}', "key 'dense/kernel': expected a list"),
    ("map.toml", "dense.kernel = [\"\", \"model\"]", "quote a key with dots"),
    ("map.json", '[["dense/kernel", [null, "model"]]]', "map.json: expected a table"),
    ("map.json", "{}", "map.json: expected a table"),
], ids=["json", "toml", "neither", "unknown-axis", "number-axis", "axis-twice", "bad-regex", "not-a-list",
        "toml-dotted-key", "a-list", "empty"])
def test_a_bad_file_is_one_line_naming_the_file_and_key(name, text, message, capsys, tmp_path):
    layout = tmp_path / name
    layout.write_text(text, encoding="utf-8")
    assert message in _refused(capsys, tmp_path, layout)


def test_a_missing_file_and_a_directory_are_refused(capsys, tmp_path):
    assert "bad --layout-map gone.json: no such file" in _refused(capsys, tmp_path, tmp_path / "gone.json")
    (tmp_path / "maps").mkdir()
    assert "bad --layout-map maps: not a file" in _refused(capsys, tmp_path, tmp_path / "maps")


def test_a_huge_or_binary_file_is_refused(capsys, tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"a": [null]}' + " " * 70_000, encoding="utf-8")
    assert "larger than 64 KiB" in _refused(capsys, tmp_path, big)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    assert "not UTF-8" in _refused(capsys, tmp_path, binary)


def test_layout_map_replaces_shard_and_needs_a_mesh(capsys, tmp_path):
    layout = tmp_path / "map.json"
    layout.write_text('{"dense/kernel": [null, "model"]}', encoding="utf-8")
    assert "--layout-map replaces --shard" in _refused(capsys, tmp_path, layout, "--shard", "data")
    code = main(["capture", "mlp", "-o", str(tmp_path / "b"), "--layout-map", str(layout)])
    assert code == 2 and "--layout-map needs --mesh" in capsys.readouterr().err


def test_toml_and_json_give_the_same_rules_null_or_empty_string_for_unsplit(tmp_path):
    (tmp_path / "a.toml").write_text('"dense/kernel" = ["", "model"]\n"logits/.*" = ["data"]\n', encoding="utf-8")
    (tmp_path / "a.json").write_text('{"dense/kernel": [null, "model"], "logits/.*": ["data"]}', encoding="utf-8")
    rules = load_layout_map(tmp_path / "a.toml")
    assert rules == load_layout_map(tmp_path / "a.json") == (("dense/kernel", (None, "model")),
                                                             ("logits/.*", ("data",)))


# --- checked against the model's weights (what the JAX worker runs before it builds the LayoutMap) --


@pytest.mark.parametrize(("rules", "sizes", "message"), [
    ((("dense/kernel", ("model",)),), SIZES, "key 'dense/kernel' has 1 entries but weight 'dense/kernel' has 2"),
    ((("conv.*", (None, "model")),), SIZES, "key 'conv.*' matches no weight (weights: dense/kernel"),
    ((("dense", (None, "model")), ("kernel", (None, "model"))), SIZES, "matches both 'dense' and 'kernel'"),
    ((("logits/kernel", (None, "model")),), {"data": 2, "model": 4},
     "dimension 1 of 'logits/kernel' (10) does not divide over the 4 chips of 'model'"),
], ids=["wrong-rank", "matches-nothing", "two-keys", "uneven"])
def test_rules_that_do_not_fit_the_model_name_the_file_and_key(rules, sizes, message):
    with pytest.raises(LayoutMapError) as caught:
        assign("map.json", rules, MLP_WEIGHTS, sizes)
    assert str(caught.value).startswith("bad --layout-map map.json: ") and message in str(caught.value)


def test_exact_keys_win_and_regexes_search_like_keras():
    found = assign("m.json", (("dense.*kernel", (None, "model")), ("dense/bias", ("model",))), MLP_WEIGHTS, SIZES)
    assert found == {"dense/kernel": (None, "model"), "dense/bias": ("model",), "dense_1/kernel": (None, "model")}


def test_the_rules_are_part_of_the_cache_key(tmp_path):
    from explorer.capture.cache import cache_key
    from explorer.capture.model_source import ModelSource
    from explorer.model.records import CaptureOptions

    source = ModelSource(spec="mlp", kind="sample", display="mlp", content_hash="0" * 64)
    base = CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="model")
    first = CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="model",
                           layout_map=(("dense/kernel", (None, "model")),), layout_map_file="m.json")
    other = CaptureOptions(targets=("tpu:v5e",), batch=8, mesh="2x2", shard="model",
                           layout_map=(("dense/kernel", ("model", None)),), layout_map_file="m.json")
    assert len({cache_key(source, o) for o in (base, first, other)}) == 3


# --- e2e: a real Keras LayoutMap compiled by XLA:TPU for a 2x2 v5e slice ----------------------


@pytest.mark.e2e
def test_splitting_the_first_kernel_gives_half_columns_per_chip_and_an_all_reduce(tmp_path):
    from explorer.model.bundle import Bundle
    from explorer.views import panes

    layout = tmp_path / "first.toml"
    layout.write_text('# split the first kernel\'s columns over the model axis\n"dense/kernel" = ["", "model"]\n',
                      encoding="utf-8")
    done = _cli("capture", "mlp", "-o", str(tmp_path / "b"), *MESH, "--layout-map", str(layout))
    assert done.returncode == 0, done.stderr
    bundle = Bundle.open(tmp_path / "b")
    step = panes.step_layout(bundle, "tpu:v5e")
    specs = {name: spec for group in step.arguments for name, spec in zip(group.names, group.shardings, strict=True)}
    assert specs["dense/kernel"] == "P(None, 'model')" and specs["dense_1/kernel"] == "P(None, None)"
    assert specs["features"] == "P('data', None)"  # ModelParallel splits the batch over the data axis
    module = bundle.hlo_module("tpu:v5e", optimized=True)
    entry = next(c for c in module.computations if c.is_entry)
    shapes = {int(dict(i.attributes)["parameter_number"]): list(i.shape.dims)
              for i in entry.instructions if i.opcode == "parameter"}
    assert shapes[0] == [64, 64]  # dense's 64x128 kernel: 64 columns on each chip of the model axis
    assert shapes[2] == [128, 64]  # dense_1's kernel is whole on every chip
    # The split kernel is still dense's (its per-device size once credited it to dense_1).
    assert bundle.index.layer_of("optimized-hlo", next(i.name for i in entry.instructions if i.opcode == "parameter"
                                 and dict(i.attributes)["parameter_number"] == "0"), "tpu:v5e") == "dense"
    lines = panes.step_lines(bundle, "tpu:v5e")
    assert lines[0].startswith("train (sgd) on 2x2, model parallel by layout map first.toml")
    # dense_1 contracts over the split columns: its partial sums are added over the model axis.
    assert any(line.strip().startswith("all-reduce") and "[2,2]<=[4]" in line and "[dense_1, forward]" in line
               for line in lines)


@pytest.mark.e2e
@pytest.mark.parametrize(("text", "message"), [
    ('{"dense/kernel": ["model"]}', "key 'dense/kernel' has 1 entries but weight 'dense/kernel' has 2 dimensions"),
    ('{"conv2d/kernel": [null, "model"]}', "key 'conv2d/kernel' matches no weight"),
], ids=["wrong-rank", "matches-nothing"])
def test_a_key_that_does_not_fit_the_model_stops_the_capture(text, message, tmp_path):
    layout = tmp_path / "bad.json"
    layout.write_text(text, encoding="utf-8")
    done = _cli("capture", "mlp", "-o", str(tmp_path / "b"), *MESH, "--layout-map", str(layout))
    err = done.stderr
    assert done.returncode == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: bad --layout-map bad.json: ") and message in last, err
    assert "Traceback" not in err
    assert not (tmp_path / "b").exists() and _nothing_cached()
