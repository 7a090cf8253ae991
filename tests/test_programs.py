"""The seam between the views and the compilers (`explorer.views.programs`): XLA's program (HLO modules,
the cross-level index, kernel records) and TVM's (Relax bindings, TIR functions) answer the same
questions, checked alike on the recorded bundles (tests/fixtures/bundles/mnist_cnn for cpu, gpu:h100
and tpu:v5e; mnist_cnn_tvm for tvm:cpu and its cpu twin). What the views make of the answers is
checked in tests/test_view.py and tests/test_tvm_levels.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.model.bundle import Bundle
from explorer.views.programs import TargetProgram, program_for
from explorer.views.programs.target_layer import TargetLayer
from explorer.views.programs.tvm import TvmTargetProgram
from explorer.views.programs.xla import XlaTargetProgram

BUNDLES = Path(__file__).parent / "fixtures" / "bundles"
PROGRAMS = [("mnist_cnn", "cpu"), ("mnist_cnn", "gpu:h100"), ("mnist_cnn", "tpu:v5e"), ("mnist_cnn_tvm", "tvm:cpu")]
LEVELS = ("hlo", "optimized-hlo", "kernels")
BELOW = {"hlo": "optimized-hlo", "optimized-hlo": "kernels"}


@pytest.fixture(scope="module")
def bundles() -> dict[str, Bundle]:
    return {name: Bundle.open(BUNDLES / name) for name in ("mnist_cnn", "mnist_cnn_tvm")}


@pytest.fixture(params=PROGRAMS, ids=[target for _, target in PROGRAMS])
def opened(request, bundles) -> tuple[Bundle, TargetProgram]:
    name, target = request.param
    return bundles[name], program_for(bundles[name], target)


def test_both_compilers_implement_every_question_of_the_interface(bundles):
    asked = {name for name in vars(TargetProgram) if not name.startswith("_")} | set(TargetProgram.__annotations__)
    assert {"rows", "layer_of", "items_for_layer", "kind", "work", "counterpart", "target_layer"} <= asked
    for target in ("cpu", "tvm:cpu"):
        program = program_for(bundles["mnist_cnn_tvm"], target)
        assert not [name for name in asked if not hasattr(program, name)], target
        assert program.target == target


def test_the_factory_chooses_by_the_targets_compiler_once_per_bundle_and_target(bundles):
    tvm = bundles["mnist_cnn_tvm"]
    assert isinstance(program_for(tvm, "tvm:cpu"), TvmTargetProgram)
    assert isinstance(program_for(tvm, "cpu"), XlaTargetProgram)
    assert isinstance(program_for(bundles["mnist_cnn"], "tpu:v5e"), XlaTargetProgram)
    assert program_for(tvm, "tvm:cpu") is program_for(tvm, "tvm:cpu")
    assert program_for(tvm, "cpu") is not program_for(bundles["mnist_cnn"], "cpu")


def test_rows_name_each_item_once_and_point_at_its_line_of_the_levels_text(opened):
    bundle, program = opened
    for level in LEVELS:
        names = [item.name for item in program.rows(level, "en")]
        assert names and len(names) == len(set(names)), level
    for level in ("hlo", "optimized-hlo"):
        text = bundle.hlo_text(program.target, optimized=level == "optimized-hlo").splitlines()
        assert all(item.name in text[item.line - 1] for item in program.rows(level, "en")), level
        assert all(name in program.level_text(level) for name in (item.name for item in program.rows(level, "en")))
        assert program.level_data(level)


def test_a_layers_items_are_rows_owned_by_layers_of_the_model(opened):
    bundle, program = opened
    layers = {layer.name for layer in bundle.layers}
    for level in LEVELS:
        listed = {item.name for item in program.rows(level, "en")}
        for layer in layers:
            items = program.items_for_layer(layer, level)
            assert set(items) <= listed, (level, layer)
            assert {program.layer_of(level, name) for name in items} <= layers, (level, layer)


def test_down_and_back_up_returns_to_the_item(opened):
    _, program = opened
    for level, below in BELOW.items():
        names = [item.name for item in program.rows(level, "en")]
        assert any(program.down(level, name) for name in names), level
        for name in names:
            found = program.down(level, name)
            assert all(name in program.up(below, lower) for lower in found), (level, name)
            assert set(program.same_shape_below(level, name, below, found)) <= set(found)


def test_both_compilers_name_the_layers_work_in_one_vocabulary(opened):
    """`work` is what `t` compares across compilers: the convolution is a convolution on every target."""
    _, program = opened

    def work_of(layer: str, level: str) -> frozenset[str]:
        return frozenset().union(*(program.work(level, name) for name in program.items_for_layer(layer, level)))

    for level in LEVELS:
        assert "convolution" in work_of("conv2d", level), level
        if level != "kernels":  # on H100 pooling shares a fusion with dense, whose kernel is listed under dense
            assert "reduce-window" in work_of("max_pooling2d", level), level
        assert "reduce" in work_of("dense", level), level
        assert not [name for name in program.items_for_layer("conv2d", level)
                    if program.work(level, name) and program.does_no_work(level, name)]
        assert all(program.kind(level, name) for name in program.items_for_layer("conv2d", level))


@pytest.mark.parametrize(("bundle_name", "one", "other"), [
    ("mnist_cnn_tvm", "cpu", "tvm:cpu"), ("mnist_cnn_tvm", "tvm:cpu", "cpu"), ("mnist_cnn", "cpu", "gpu:h100"),
], ids=["xla-to-tvm", "tvm-to-xla", "xla-to-xla"])
def test_t_lands_on_an_item_of_the_same_layer(bundles, bundle_name, one, other):
    bundle = bundles[bundle_name]
    source, here = program_for(bundle, one), program_for(bundle, other)
    for level in LEVELS:
        landed = 0
        for item in source.rows(level, "en"):
            layer = source.layer_of(level, item.name)
            choices = here.items_for_layer(layer, level) if layer else ()
            if choices:
                assert here.counterpart(level, item.name, source, "") in choices, (level, item.name)
                landed += 1
        assert landed, level


def test_every_item_is_explained_and_every_layer_has_a_column(opened):
    bundle, program = opened
    for level in LEVELS:
        for item in program.rows(level, "en"):
            groups = program.explanation_keys(level, item.name)
            assert groups and all(":" in key for group in groups for key in group), (level, item.name)
    assert program.optimized_captured(bundle.status("optimized-hlo", program.target))
    for layer in bundle.layers:
        column = program.target_layer(layer.name)
        assert isinstance(column, TargetLayer) and column.captured
        assert tuple(i.name for i in column.instructions) == program.items_for_layer(layer.name, "optimized-hlo")
    assert isinstance(program.summary_figures(from_shapes=True)["fusion_count"], int)
    assert program.no_layer_text


def test_tour_selectors_pick_rows_by_their_kinds(opened):
    _, program = opened
    for level in LEVELS:
        listed = {item.name for item in program.rows(level, "en")}
        picked = program.selector_items(level)
        assert picked and all(name in listed and kinds for name, kinds in picked), level


def test_graph_is_the_levels_rows_with_their_data_flow_or_one_line_saying_why_not(opened):
    """XLA draws every row of the entry and its fusions' computations (`tensorweg graph`); TVM's capture
    records no data flow between its functions, so it refuses in one line instead of drawing boxes alone."""
    from explorer.errors import TensorwegError

    bundle, program = opened
    for level in ("hlo", "optimized-hlo"):
        if isinstance(program, TvmTargetProgram):
            with pytest.raises(TensorwegError, match="not drawn as a graph"):
                program.graph(level)
            continue
        graph = program.graph(level)
        drawn = {n.name for n in graph.nodes} | {n.name for c in graph.clusters for n in c.nodes}
        assert drawn <= {item.name for item in program.rows(level, "en")} and len(drawn) == graph.node_count()
        assert all(edge.source in drawn and edge.sink in drawn for edge in graph.edges)
        assert {c.fusion for c in graph.clusters} == {n.name for n in graph.nodes if n.kind.startswith("fusion")}
