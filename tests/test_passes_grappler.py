"""Grappler's film: reading the recorded frames (real TF 2.21 captures, tests/fixtures/grappler/README.md),
the diff of an optimizer's run, following a node, narration, and `tensorweg passes --grappler`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_passes import assert_one_line_error, run_cli

from explorer.model.bundle import Bundle
from explorer.model.passes import diff, follow
from explorer.model.passes_dump import BEFORE, read_pass_texts
from explorer.model.passes_grappler import (
    GRAPPLER,
    GRAPPLER_DIR,
    count_nodes,
    read_graph_frame,
    read_grappler_filmstrip,
    write_grappler_frames,
)
from explorer.views import passes as pass_view
from explorer.views.passes import unified_text

from pilot_support import BUNDLE

TINY_TRANSFORMER = Path(__file__).parent / "fixtures" / "grappler" / "tiny_transformer"


def _strip(bundle_dir: Path = BUNDLE):
    """The recorded bundle's film through the bundle, as the screen gets it; the tiny_transformer
    fixture is a `grappler/` folder only."""
    if bundle_dir == TINY_TRANSFORMER:
        return read_grappler_filmstrip(bundle_dir)
    return pass_view.filmstrip(Bundle.open(bundle_dir), GRAPPLER)


def test_the_recorded_film_lists_grapplers_optimizers_in_the_meta_optimizers_order():
    rows = _strip().rows()
    assert [(r.pass_name, r.pipeline) for r in rows] == [
        (BEFORE, ""), ("model_pruner", "iteration 1"), ("constant_folding", "iteration 1"),
        ("arithmetic_optimizer", "iteration 1"), ("dependency_optimizer", "iteration 1")]
    assert [(r.instructions_before, r.instructions_after) for r in rows] == [(24, 24), (24, 23), (23, 17), (17, 16),
                                                                            (16, 11)]
    assert all(r.narration_key == f"grappler:{r.pass_name}" for r in rows[1:])
    tiny = _strip(TINY_TRANSFORMER)
    assert [f.pass_name for f in tiny.frames].count("common_subgraph_elimination") == 2
    assert tiny.frames[-1].pipeline == "iteration 2"  # the meta optimizer's second iteration changed it again


def test_the_frame_reader_counts_what_the_index_says():
    strip = _strip(TINY_TRANSFORMER)
    for number, frame in enumerate(strip.frames):
        nodes = strip.frame(number).computations["graph"]
        assert (len(nodes), 0) == count_nodes(strip.text(number)) == (frame.instructions, frame.fusions)
    conv = read_graph_frame(_strip().text(0)).find("mnist_cnn_1/conv2d_1/convolution")[1]
    assert conv.opcode == "Conv2D" and "data_format=NHWC" in conv.text and "padding=VALID" in conv.text


def test_the_last_frame_is_grapplers_own_result():
    """The optimizers run one by one end where one default OptimizeGraph call ends (graph.json)."""
    bundle = Bundle.open(BUNDLE)
    strip = pass_view.filmstrip(bundle, GRAPPLER)
    last = strip.frame(len(strip) - 1).computations["graph"]
    assert sorted(node.name for node in last) == sorted(op.name for op in bundle.graph.optimized_ops)
    assert sorted(node.opcode for node in last) == sorted(op.op for op in bundle.graph.optimized_ops)


def test_constant_folding_turns_weight_reads_into_constants():
    strip = _strip()
    result = diff(strip, 2)
    assert "mnist_cnn_1/conv2d_1/convolution/ReadVariableOp/resource" in result.removed
    assert {"mnist_cnn_1/conv2d_1/convolution/ReadVariableOp", "mnist_cnn_1/conv2d_1/BiasAdd"} <= set(result.changed)
    text = unified_text(result)
    assert "+ mnist_cnn_1/conv2d_1/BiasAdd = Identity(mnist_cnn_1/conv2d_1/convolution" in text
    assert result.computations == ("graph",)


def test_a_run_that_only_reorders_nodes_is_no_frame():
    """Grappler sorts the graph after each run; the film keeps each node's place, so only real changes count."""
    strip = _strip()
    for number in range(1, len(strip)):
        result = diff(strip, number)
        assert result.added or result.removed or result.changed
    # Both sides of the arithmetic optimizer's MaxPool/Relu swap stay where they were: two changed lines each.
    swap = diff(strip, 3)
    assert {"mnist_cnn_1/conv2d_1/Relu", "mnist_cnn_1/max_pooling2d_1/MaxPool2d"} <= set(swap.changed)
    assert not swap.added


def test_common_subgraph_elimination_removes_duplicates_only():
    strip = _strip(TINY_TRANSFORMER)
    number = next(n for n, f in enumerate(strip.frames) if f.pass_name == "common_subgraph_elimination")
    result = diff(strip, number)
    assert len(result.removed) == strip.frames[number - 1].instructions - strip.frames[number].instructions
    assert not result.added


def test_writing_keeps_only_runs_that_changed_the_graph(tmp_path):
    texts = read_pass_texts(BUNDLE / GRAPPLER_DIR)
    runs = [("iteration 1", "model_pruner", texts[1]), ("iteration 1", "function_optimizer", texts[1]),
            ("iteration 1", "constant_folding", texts[2]), ("iteration 2", "model_pruner", texts[2])]
    index = write_grappler_frames(texts[0], runs, tmp_path)
    assert [(f.sequence, f.pass_name) for f in index.frames] == [(-1, BEFORE), (1, "model_pruner"),
                                                                 (3, "constant_folding")]
    assert index.snapshots_dumped == 4 and index.film == GRAPPLER
    assert read_pass_texts(tmp_path / GRAPPLER_DIR) == texts[:3]


def test_follow_a_node_through_grappler():
    steps = follow(_strip(), "mnist_cnn_1/conv2d_1/BiasAdd")
    assert [(s.frame, s.kind) for s in steps] == [(2, "rewritten"), (3, "changed"), (4, "removed")]
    assert steps[0].sentence == ("mnist_cnn_1/conv2d_1/BiasAdd (BiasAdd) became Identity by constant_folding "
                                 "in iteration 1 (frame 2 of 4)")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_optimizer_that_changed_a_sample_is_narrated(lang):
    for strip in (_strip(), _strip(TINY_TRANSFORMER)):
        for frame in strip.frames[1:]:
            title, body, source = pass_view.narration(frame.pass_name, lang, GRAPPLER)
            assert "Grappler" in title and "graph_optimization" in source and body, frame.pass_name
    # XLA's pass of the same name keeps its own text.
    assert pass_view.narration("constant_folding", "en", GRAPPLER)[0] != pass_view.narration("constant_folding")[0]


def test_passes_grappler_command():
    result = run_cli("passes", str(BUNDLE), "--grappler", "--frame", "2", "--follow", "mnist_cnn_1/conv2d_1/BiasAdd")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("mnist_cnn on Grappler (TensorFlow graph): 5 frames (21 optimizer runs")
    assert "optimizer             nodes before" in out and "per-optimizer time: not recorded" in out
    assert "frame 2: constant_folding in iteration 1 (frame 2 of 4): +0 -6 ~7 in 1 computation" in out
    assert "became Identity by constant_folding" in out
    data = json.loads(run_cli("passes", str(BUNDLE), "--grappler", "--json", "--frame", "4").stdout)
    assert data["film"] == GRAPPLER and data["frames"][4]["pass"] == "dependency_optimizer"
    assert "NoOp" in data["diff"]["removed"]


def test_passes_grappler_bad_input_is_one_line_and_exit_2(tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / GRAPPLER_DIR)
    assert_one_line_error(run_cli("passes", str(copy), "--grappler"), "no Grappler frames in this bundle")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--grappler", "--frame", "5"), "frames 0 to 4")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--grappler", "--follow", "nothing"),
                          "no instruction 'nothing'")
    shutil.copytree(BUNDLE / GRAPPLER_DIR, copy / GRAPPLER_DIR)
    (copy / GRAPPLER_DIR / "frames.json.gz").write_bytes(b"not gzip")
    assert_one_line_error(run_cli("passes", str(copy), "--grappler", "--frame", "1"), "frames.json.gz: unreadable")
