"""`tensorweg graph`: each level of the recorded bundles written as DOT and read back with pydot.

The DOT each test reads is the file the command wrote; its nodes and edges are checked against the
bundle's own records (layers and their inbound layers, TF ops and their inputs, HLO instructions and
their operands, a fusion and its fused computation). Rendering with Graphviz is tests/test_graph_e2e.py
(the e2e lane, where CI installs it); here `dot` is hidden (an empty PATH) or a stand-in that must not run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pydot
import pytest

from explorer.cli.main import main as core_main
from explorer.model.bundle import Bundle
from explorer.safe_text import visible
from explorer.views.graphs import files as graph_files
from explorer.views.graphs.parts import MAX_DEPTH
from explorer.views.trace import items_for_layer

from pilot_support import needs_bundle
from tests.conftest import FIXTURES, files_under
from tests.large_bundle import write_large_bundle

pytestmark = needs_bundle

MNIST = FIXTURES / "bundles" / "mnist_cnn"
NESTED = FIXTURES / "bundles" / "nested_block"
# A layer name with everything DOT, HTML and a terminal could misread: quotes, markup, an entity,
# a newline, an escape sequence (ESC ] 0 ; ... BEL sets a window title), a trailing backslash.
HOSTILE = 'conv"2d<b>&x\n\x1b]0;pwned\x07\\'


def unquoted(dot_id: str) -> str:
    """A DOT id as the name it stands for (`"a\\"b"` -> `a"b`)."""
    if dot_id.startswith('"') and dot_id.endswith('"'):
        return dot_id[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return dot_id


def all_nodes(graph: pydot.Dot | pydot.Subgraph) -> dict[str, pydot.Node]:
    found = {unquoted(node.get_name()): node for node in graph.get_nodes()
             if node.get_name() not in ("node", "edge", "graph")}
    for sub in graph.get_subgraphs():
        found.update(all_nodes(sub))
    return found


def all_edges(graph: pydot.Dot | pydot.Subgraph) -> set[tuple[str, str]]:
    found = {(unquoted(edge.get_source()), unquoted(edge.get_destination())) for edge in graph.get_edges()}
    for sub in graph.get_subgraphs():
        found |= all_edges(sub)
    return found


def write_dot(tmp_path: Path, source: Path, *args: str, name: str = "graph") -> pydot.Dot:
    """`tensorweg graph SOURCE ARGS -o NAME.dot`, read back with pydot."""
    out = tmp_path / f"{name}.dot"
    assert core_main(["graph", str(source), *args, "-o", str(out)]) == 0
    graphs = pydot.graph_from_dot_data(out.read_text(encoding="utf-8"))
    assert graphs is not None and len(graphs) == 1
    return graphs[0]


@pytest.mark.parametrize("source", [MNIST, NESTED], ids=["mnist_cnn", "nested_block"])
def test_layers_are_the_nodes_and_inbound_layers_the_edges(tmp_path, source):
    bundle = Bundle.open(source)
    dot = write_dot(tmp_path, source, "--level", "layers")
    nodes = all_nodes(dot)
    named = {layer.name for layer in bundle.layers}
    inbound = {(s, layer.name) for layer in bundle.layers for s in layer.inbound}
    # Every layer is a node; an inbound name no layer has (a nested model's outer input) gets a bare one.
    assert set(nodes) == named | {name for edge in inbound for name in edge}
    assert all_edges(dot) == inbound
    for layer in bundle.layers:  # labelled like the row: name and class
        drawn = nodes[layer.name].get("label")
        assert f"<B>{layer.name}</B>" in drawn and layer.class_name in drawn


def test_tf_ops_are_the_nodes_and_their_inputs_the_edges(tmp_path):
    ops = Bundle.open(MNIST).graph.ops
    dot = write_dot(tmp_path, MNIST, "--level", "graph")
    assert set(all_nodes(dot)) == {op.name for op in ops}
    # TensorFlow names an input `producer:output` and a control input `^producer`.
    assert all_edges(dot) == {(i.lstrip("^").split(":")[0], op.name) for op in ops for i in op.inputs}
    control = [e for e in dot.get_edges() if e.get("style") == "dashed"]
    assert len(control) == sum(i.startswith("^") for op in ops for i in op.inputs) > 0


@pytest.mark.parametrize("target", ["cpu", "tpu:v5e"])
def test_hlo_instructions_are_the_nodes_and_their_operands_the_edges(tmp_path, target):
    entry = Bundle.open(MNIST).hlo_module(target, optimized=False).entry
    dot = write_dot(tmp_path, MNIST, "--level", "hlo", "--target", target)
    assert set(all_nodes(dot)) == {i.name for i in entry.instructions}
    assert all_edges(dot) == {(operand, i.name) for i in entry.instructions for operand in i.operands}
    assert "f32[1,26,26,8]" in {edge.get("label").strip('"') for edge in dot.get_edges() if edge.get("label")}


def test_each_fusion_is_a_cluster_holding_its_fused_computation(tmp_path):
    module = Bundle.open(MNIST).hlo_module("cpu", optimized=True)
    dot = write_dot(tmp_path, MNIST, "--level", "optimized-hlo")
    fusions = [i for i in module.entry.instructions if i.opcode == "fusion"]
    clusters = {unquoted(next(n for n in all_nodes(sub) if n in {f.name for f in fusions})): sub
                for sub in dot.get_subgraphs()}
    assert set(clusters) == {f.name for f in fusions}
    for fusion in fusions:
        called = module.computation(fusion.called_computations[0])
        box = clusters[fusion.name]
        assert box.get_name().startswith("cluster_") and called.name in box.get("label")
        assert set(all_nodes(box)) == {fusion.name} | {i.name for i in called.instructions}
        assert all_edges(box) == ({(o, i.name) for i in called.instructions for o in i.operands}
                                  | {(called.root.name, fusion.name)})
    # Outside the clusters: the entry's data flow.
    assert {(o, i.name) for i in module.entry.instructions for o in i.operands} <= all_edges(dot)


def test_select_a_layer_at_the_optimized_level_highlights_its_items_and_keeps_their_neighbours(tmp_path):
    """The issue's example: `--select conv2d --depth 2` at optimized-hlo draws conv2d's convolution and
    fusion (gold, heavy outline), its weights, and what is two edges around them."""
    bundle = Bundle.open(MNIST)
    dot = write_dot(tmp_path, MNIST, "--level", "optimized-hlo", "--select", "conv2d", "--depth", "2")
    nodes = all_nodes(dot)
    selected = {name for name, node in nodes.items() if node.get("penwidth") == "3"}
    assert selected == set(items_for_layer(bundle, "conv2d", "optimized-hlo", "cpu")) > {"convolution.1"}
    assert {"arg0.1", "broadcast_maximum_fusion", "wrapped_reduce-window", "bitcast"} <= set(nodes)
    assert all(node.get("fillcolor") == "gold" for name, node in nodes.items() if name in selected)
    assert len(nodes) < len(all_nodes(write_dot(tmp_path, MNIST, "--level", "optimized-hlo", name="whole")))


def test_depth_zero_draws_the_selection_alone_and_a_fused_instruction_its_whole_fusion(tmp_path):
    assert set(all_nodes(write_dot(tmp_path, MNIST, "--level", "layers", "--select", "conv2d", "--depth", "0"))) \
        == {"conv2d"}
    dot = write_dot(tmp_path, MNIST, "--level", "optimized-hlo", "--select", "Relu.0", "--depth", "0", name="fused")
    assert "broadcast_maximum_fusion" in all_nodes(dot) and all_nodes(dot)["Relu.0"].get("penwidth") == "3"


@pytest.fixture
def hostile_bundle(tmp_path) -> Path:
    """The recorded mnist_cnn bundle with its layer `conv2d` renamed to HOSTILE."""
    bundle = tmp_path / "hostile"
    shutil.copytree(MNIST, bundle)
    for path in [bundle / "layers.json", bundle / "scopes.json", *bundle.glob("targets/*/scopes.json")]:
        path.write_text(path.read_text().replace('"conv2d"', json.dumps(HOSTILE)))
    assert HOSTILE in [layer.name for layer in Bundle.open(bundle).layers]
    return bundle


def test_hostile_names_are_escaped_for_dot_ids_and_html_labels(tmp_path, hostile_bundle):
    dot = write_dot(tmp_path, hostile_bundle, "--level", "layers")
    text = (tmp_path / "graph.dot").read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x07" not in text  # no control character reaches the file
    shown = visible(HOSTILE)  # conv"2d<b>&x␊␛]0;pwned␇\
    nodes = all_nodes(dot)
    assert shown in nodes  # the id, quoted and escaped, reads back as the shown name
    assert ("image", shown) in all_edges(dot) and (shown, "max_pooling2d") in all_edges(dot)
    assert "<b>" not in nodes[shown].get("label")  # the HTML label holds the name as text
    assert 'conv"2d&lt;b&gt;&amp;x␊␛]0;pwned␇\\' in nodes[shown].get("label")
    assert len(text.splitlines()) == len([line for line in text.splitlines() if line.strip()])  # no broken line


def _refused(capsys, *args: str) -> str:
    assert core_main(["graph", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


M = str(MNIST)
BAD = {
    "unknown-level": (("--level", "kernels"), "invalid choice: 'kernels'"),
    "unknown-item": (("--level", "hlo", "--select", "no_such_item"), "no item or layer of that name"),
    "depth-below-0": (("--level", "layers", "--select", "conv2d", "--depth", "-1"), "expected 0 to"),
    "depth-above-cap": (("--level", "layers", "--select", "conv2d", "--depth", str(MAX_DEPTH + 1)), "expected 0 to"),
    "depth-without-select": (("--level", "layers", "--depth", "2"), "name one with --select"),
    "unknown-target": (("--level", "hlo", "--target", "gpu:nope"), "unknown target"),
    "target-not-captured": (("--level", "hlo", "--target", "gpu:a100"), "not in this bundle"),
    "tvm-has-no-graph": (("--level", "optimized-hlo", "--target", "tvm:cpu"), "not drawn as a graph"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_line_exit_2_and_nothing_written(case, tmp_path, capsys):
    args, fragment = BAD[case]
    source = str(FIXTURES / "bundles" / "mnist_cnn_tvm") if "tvm" in case else M
    assert fragment in _refused(capsys, source, *args, "-o", str(tmp_path / "g.dot"))
    assert files_under(tmp_path) == []


def test_bad_output_files_are_refused_before_any_work(tmp_path, capsys, monkeypatch):
    (tmp_path / "taken.dot").write_text("mine")
    cases = {
        str(tmp_path / "missing" / "g.dot"): "does not exist",
        str(tmp_path / "g.gif"): "-o must end with .dot, .svg, .png, .pdf",
        str(tmp_path / "taken.dot"): "the file exists; --force replaces it",
        str(tmp_path / "a-folder.svg"): "is a folder",
    }
    (tmp_path / "a-folder.svg").mkdir()
    for out, fragment in cases.items():
        assert fragment in _refused(capsys, M, "--level", "layers", "-o", out)
    # A folder nobody may write to; root writes anywhere, so /proc (read-only for root too) stands in.
    locked = Path("/proc") if os.geteuid() == 0 else tmp_path / "locked"
    if locked != Path("/proc"):
        locked.mkdir()
        locked.chmod(0o555)
    line = _refused(capsys, M, "--level", "layers", "-o", str(locked / "g.dot"))
    assert "not writable" in line or "cannot write" in line
    assert not (locked / "g.dot").exists()
    if locked != Path("/proc"):
        locked.chmod(0o755)
        locked.rmdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))  # no `dot` anywhere
    line = _refused(capsys, M, "--level", "layers", "-o", str(tmp_path / "g.svg"))
    assert "apt install graphviz" in line and "g.dot instead" in line
    assert files_under(tmp_path) == ["a-folder.svg", "taken.dot"] and (tmp_path / "taken.dot").read_text() == "mine"
    assert core_main(["graph", M, "--level", "layers", "-o", str(tmp_path / "taken.dot"), "--force"]) == 0
    assert (tmp_path / "taken.dot").read_text().startswith("digraph")


def test_a_graph_too_large_to_render_writes_its_dot_and_says_so(tmp_path, capsys, monkeypatch):
    """3,000 instructions are over the render cap: Graphviz is never started (the stand-in `dot` would
    fail), `big.svg` is not written, `big.dot` is, and the one error line names it (exit 2)."""
    large = write_large_bundle(tmp_path / "large", 3_000)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "dot").write_text("#!/bin/sh\necho 'this dot must not run' >&2\nexit 9\n")
    (tools / "dot").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    out = tmp_path / "out"
    out.mkdir()
    line = _refused(capsys, str(large), "--level", "optimized-hlo", "-o", str(out / "big.svg"))
    assert "too many to render" in line and str(out / "big.dot") in line and "--select" in line
    assert f"at most {graph_files.MAX_RENDER_NODES:,}" in line
    assert files_under(out) == ["big.dot"]  # and no partial file
    assert (out / "big.dot").read_text().count("label=<<B>") > graph_files.MAX_RENDER_NODES  # every box


def test_the_app_export_never_overwrites_and_names_each_file(tmp_path, monkeypatch):
    """The export the app's `e` runs: a fresh stem next to earlier pictures, DOT only without Graphviz."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))
    (tmp_path / "pic.svg").write_text("an earlier picture")
    files, why = graph_files.export_graph(tmp_path, "pic", "digraph { a -> b }", 2)
    assert files == (tmp_path / "pic-2.dot",) and why == "graphviz"
    assert graph_files.export_line(files, why, "en") == "wrote pic-2.dot (SVG needs Graphviz: apt install graphviz)"
    files, _ = graph_files.export_graph(tmp_path, "pic", "digraph { a -> b }", 2)
    assert files == (tmp_path / "pic-3.dot",)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic-2.dot", "pic-3.dot", "pic.svg"]
    assert graph_files.fresh_stem(tmp_path, 'a/b"\x1b c', (".dot",)).name == "a_b_c"
