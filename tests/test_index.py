"""The cross-level index on real TF/XLA:CPU and Keras-on-JAX TPU/GPU output.

Graph op names and layer scopes come from the real TF trace of the same CNN
(tests/fixtures/hlo/mnist_cnn_graph.json). JAX scopes are written the way the
JAX worker records them (`jit(fwd)/<layer>`). Expected links are derived from
the parsed modules, so every assertion checks the index against the
compiler's own op_name metadata.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.hlo.parser import parse_module
from explorer.model.index import CrossIndex
from explorer.model.index_build import build_index
from explorer.model.records import GraphLevel, GraphOp, KernelRecord, LayerRecord
from explorer.model.serial import from_jsonable, to_jsonable

FIXTURES = Path(__file__).parent / "fixtures" / "hlo"
GRAPH = json.loads((FIXTURES / "mnist_cnn_graph.json").read_text(encoding="utf-8"))
LAYERS = GRAPH["layers"]
TARGET_FILES = {"cpu": "cpu", "tpu:v5e": "tpu-v5e", "gpu:h100": "gpu-h100"}


def layer(name: str) -> LayerRecord:
    return LayerRecord(name, name, "", (), (), "float32", 0, 0, 0, 0)


def modules(model: str = "mnist_cnn"):
    found = {}
    for target, stem in TARGET_FILES.items():
        for level, suffix in (("hlo", "hlo"), ("optimized-hlo", "optimized_hlo")):
            text = (FIXTURES / f"{model}_{stem}_{suffix}.txt").read_text(encoding="utf-8")
            found[(target, level)] = parse_module(text)
    return found


MODULES = modules()
SCOPES = {**GRAPH["scopes"], **{t: {f"jit(fwd)/{n}": n for n in LAYERS} for t in ("tpu:v5e", "gpu:h100")}}
GRAPH_LEVEL = GraphLevel(tuple(GraphOp(op["name"], op["op"], (), ()) for op in GRAPH["ops"]))
# XLA:CPU dumps one kernel module per fusion, named after it (`<fusion>_kernel_module.*`,
# /work/shared/reference/compilers.md); records shaped like that exercise the last link.
CPU_FUSIONS = [i.name for i in MODULES[("cpu", "optimized-hlo")].entry.instructions if i.opcode == "fusion"]
KERNELS = {"cpu": [KernelRecord(name, (name,)) for name in CPU_FUSIONS]}


@pytest.fixture(scope="module")
def index() -> CrossIndex:
    return build_index([layer(n) for n in LAYERS], GRAPH_LEVEL, SCOPES, MODULES, KERNELS)


def top_level(module):
    return [i for c in module.computations if not c.is_fusion for i in c.instructions]


def op_names_inside(module, inst) -> set[str]:
    """The op_names of what a top-level instruction computes: its own and its fusion body's.
    Fused constants and reducers (`to_apply`) do not count: XLA keeps one of identical
    constants and clones reducers, both named after the first layer that used them."""
    names = {inst.metadata.op_name}
    pending = list(inst.called_computations) if inst.opcode == "fusion" else []
    while pending:
        computation = module.computation(pending.pop())
        for inner in computation.instructions:
            if inner.opcode != "constant":
                names.add(inner.metadata.op_name)
            if inner.opcode == "fusion":
                pending.extend(inner.called_computations)
    return names - {""}


# --- layers and the TF graph ----------------------------------------------------


def test_graph_ops_belong_to_their_layer_scope(index: CrossIndex):
    for op in GRAPH["ops"]:
        owner = index.layer_of("graph", op["name"])
        scope = op["name"].split("/")[:2]
        if len(scope) == 2 and scope[1].rsplit("_", 1)[0] in LAYERS:
            assert owner == scope[1].rsplit("_", 1)[0], op["name"]
        else:
            assert owner == "", op["name"]
    assert "x" in index.created_by_compiler("graph")
    assert "mnist_cnn_1/conv2d_1/convolution" in index.down("layers", "conv2d")
    assert index.up("graph", "mnist_cnn_1/conv2d_1/convolution") == ("conv2d",)


def test_graph_op_to_hlo_follows_op_name(index: CrossIndex):
    hlo = MODULES[("cpu", "hlo")]
    for op in GRAPH["ops"]:
        expected = {i.name for _, i in hlo.all_instructions()
                    if i.metadata.op_name == op["name"] and not hlo.computation(_home(hlo, i)).is_fusion}
        nested = _nested_names(hlo)
        assert set(index.down("graph", op["name"])) == expected - nested
    assert index.down("graph", "mnist_cnn_1/conv2d_1/convolution") == ("convolution.1",)
    assert index.up("hlo", "convolution.1") == ("mnist_cnn_1/conv2d_1/convolution",)


def _home(module, inst) -> str:
    for computation in module.computations:
        if inst in computation.instructions:
            return computation.name
    raise AssertionError(inst.name)


def _nested_names(module) -> set[str]:
    """Instructions of computations reached only through to_apply/fusion calls."""
    top = {module.entry.name}
    pending = [module.entry.name]
    while pending:
        for inst in module.computation(pending.pop()).instructions:
            if inst.opcode in ("while", "conditional", "call"):
                for callee in inst.called_computations:
                    if callee not in top:
                        top.add(callee)
                        pending.append(callee)
    return {i.name for c in module.computations if c.name not in top for i in c.instructions}


# --- HLO -> optimized HLO -> kernels --------------------------------------------


@pytest.mark.parametrize("target", list(TARGET_FILES))
def test_hlo_links_to_top_level_optimized_instructions_carrying_its_op_name(index, target):
    hlo, optimized = MODULES[(target, "hlo")], MODULES[(target, "optimized-hlo")]
    nested = _nested_names(optimized)
    carried = {i.name: op_names_inside(optimized, i) for i in top_level(optimized) if i.name not in nested}
    linked = 0
    for computation, inst in hlo.all_instructions():
        if computation.is_entry and inst.opcode == "parameter":
            continue  # linked by parameter number (test below)
        expected = {name for name, names in carried.items() if inst.metadata.op_name in names}
        assert set(index.down("hlo", inst.name, target)) == expected, inst.name
        linked += bool(expected)
    assert linked > 10
    for name in carried:  # and back up again
        for up in index.up("optimized-hlo", name, target):
            assert name in index.down("hlo", up, target)


@pytest.mark.parametrize("target", list(TARGET_FILES))
def test_entry_parameters_link_to_the_parameter_with_the_same_number(index, target):
    """TF names every argument `XLA_Args`: the op_name cannot say which is which, the number can."""
    def numbered(module):
        return {dict(i.attributes)["parameter_number"]: i.name
                for i in module.entry.instructions if i.opcode == "parameter"}

    before, after = numbered(MODULES[(target, "hlo")]), numbered(MODULES[(target, "optimized-hlo")])
    assert before and before.keys() == after.keys()
    for number, name in before.items():
        down = index.down("hlo", name, target)
        assert after[number] in down, name
        assert not set(down) & (set(after.values()) - {after[number]}), name


def test_cpu_fusion_counts_for_what_is_fused_inside(index: CrossIndex):
    optimized = MODULES[("cpu", "optimized-hlo")]
    fusion = next(i for i in optimized.entry.instructions if i.name == "broadcast_maximum_fusion")
    inside = op_names_inside(optimized, fusion)
    assert {"mnist_cnn_1/conv2d_1/BiasAdd", "mnist_cnn_1/conv2d_1/Relu"} <= inside
    hlo = MODULES[("cpu", "hlo")]
    ups = index.up("optimized-hlo", "broadcast_maximum_fusion")
    assert ups and {h.metadata.op_name for _, h in hlo.all_instructions() if h.name in ups} <= inside
    assert index.layer_of("optimized-hlo", "broadcast_maximum_fusion") == "conv2d"


def test_kernels_link_to_their_fusion_and_inherit_its_layer(index: CrossIndex):
    for name in CPU_FUSIONS:
        assert index.down("optimized-hlo", name) == (name,)
        assert index.up("kernels", name) == (name,)
        assert index.layer_of("kernels", name) == index.layer_of("optimized-hlo", name)


# --- GPU / TPU: no graph level ----------------------------------------------------


@pytest.mark.parametrize("target", ["tpu:v5e", "gpu:h100"])
def test_jax_targets_link_layers_straight_to_hlo(index: CrossIndex, target: str):
    assert index.lower_level("layers", target) == "hlo"
    assert index.upper_level("hlo", target) == "layers"
    hlo = MODULES[(target, "hlo")]
    nested = _nested_names(hlo)
    for name in LAYERS:
        expected = [i.name for _, i in hlo.all_instructions()
                    if i.metadata.op_name.startswith(f"jit(fwd)/{name}/") and i.name not in nested]
        assert index.down("layers", name, target) == tuple(expected)
    assert index.down("layers", "conv2d", "tpu:v5e")  # the real op_names do carry the layer


def test_tpu_prefetch_copies_are_created_by_the_compiler(index: CrossIndex):
    created = index.created_by_compiler("optimized-hlo", "tpu:v5e")
    opcodes = {index.entry("optimized-hlo", n, "tpu:v5e").opcode for n in created}
    assert {"copy-start", "copy-done"} <= opcodes


@pytest.mark.parametrize("target", list(TARGET_FILES))
def test_no_top_level_instruction_is_dropped(index: CrossIndex, target: str):
    for level in ("hlo", "optimized-hlo"):
        module = MODULES[(target, level)]
        nested = _nested_names(module)
        shown = set(index.created_by_compiler(level, target))
        for name in LAYERS:
            shown |= set(index.items_for_layer(name, level, target))
        for _, inst in module.all_instructions():
            if inst.name in nested or inst.opcode == "parameter":
                continue
            assert inst.name in shown, (level, inst.name)
            if inst.name in index.created_by_compiler(level, target):
                assert index.layer_of(level, inst.name, target) == ""


def test_lstm_while_body_belongs_to_the_lstm_layer():
    lstm = modules("tiny_lstm")
    graph_free = {t: {f"jit(fwd)/{n}": n for n in ("lstm", "dense")} for t in ("tpu:v5e", "gpu:h100")}
    index = build_index([layer("lstm"), layer("dense")], None, graph_free,
                        {k: v for k, v in lstm.items() if k[0] != "cpu"}, {})
    optimized = lstm[("tpu:v5e", "optimized-hlo")]
    loop = next(i for _, i in optimized.all_instructions() if i.opcode == "while")
    body = optimized.computation(loop.attribute("body").lstrip("%"))
    in_lstm = set(index.items_for_layer("lstm", "optimized-hlo", "tpu:v5e"))
    assert any(i.name in in_lstm for i in body.instructions)  # loop body is top level, not nested
    assert index.layer_of("optimized-hlo", loop.name, "tpu:v5e") == "lstm"


# --- scopes, serialisation -----------------------------------------------------------


def test_longest_scope_wins_at_slash_boundaries():
    text = ("HloModule m\nENTRY e {\n"
            '  a = f32[] parameter(0), metadata={op_name="m/block/dense_1/MatMul"}\n'
            '  b = f32[] negate(a), metadata={op_name="m/block/denseX"}\n'
            '  ROOT c = f32[] negate(b), metadata={op_name="m/block/dense/add"}\n}\n')
    scopes = {"t": {"m/block": "block", "m/block/dense": "dense", "m/block/dense_1": "dense_1"}}
    index = build_index([layer("block"), layer("dense"), layer("dense_1")], None, scopes,
                        {("t", "hlo"): parse_module(text)}, {})
    assert [index.layer_of("hlo", n, "t") for n in "abc"] == ["dense_1", "block", "dense"]


def test_without_recorded_scopes_a_layer_named_segment_still_links():
    only_hlo = {("tpu:v5e", "hlo"): MODULES[("tpu:v5e", "hlo")]}
    index = build_index([layer(n) for n in LAYERS], None, {}, only_hlo, {})
    assert index.layer_of("hlo", "conv_general_dilated.1", "tpu:v5e") == "conv2d"


def test_index_round_trips_through_json(index: CrossIndex):
    again = from_jsonable(CrossIndex, json.loads(json.dumps(to_jsonable(index))))
    assert again == index
    assert again.down("hlo", "convolution.1") == index.down("hlo", "convolution.1")
    assert again.items_for_layer("dense", "optimized-hlo", "gpu:h100") == \
        index.items_for_layer("dense", "optimized-hlo", "gpu:h100")


# --- attribution: what an instruction computes, never a shared constant -------------------------


def test_a_constant_merged_by_xla_does_not_pull_a_fusion_into_its_first_layer(index: CrossIndex):
    """XLA:CPU kept one `-inf` for the max pooling window and the softmax's max reduction,
    named after max_pooling2d; the softmax fusion reading it is dense's alone."""
    optimized = MODULES[("cpu", "optimized-hlo")]
    shared = next(i for i in optimized.entry.instructions if i.name == "MaxPool2d.2")
    assert shared.opcode == "constant" and "max_pooling2d" in shared.metadata.op_name
    assert index.layer_of("optimized-hlo", "add_reduce_fusion") == "dense"
    assert index.entry("optimized-hlo", "add_reduce_fusion").also_layers == ()
    assert "add_reduce_fusion" not in index.items_for_layer("max_pooling2d", "optimized-hlo")
    pooling = [i.name for _, i in MODULES[("cpu", "hlo")].all_instructions()
               if i.metadata.op_name == shared.metadata.op_name]
    assert pooling and not any("add_reduce_fusion" in index.down("hlo", name) for name in pooling)


def test_a_bundles_lazy_index_answers_as_the_whole_index(index: CrossIndex):
    """`LazyIndex` (what `Bundle.index` is) links one target, or only its optimized level,
    when first asked; every answer equals the index built at once."""
    from explorer.model.index_build import LazyIndex

    lazy = LazyIndex([layer(n) for n in LAYERS], lambda: GRAPH_LEVEL, SCOPES, tuple(TARGET_FILES),
                     lambda target, optimized: MODULES[(target, "optimized-hlo" if optimized else "hlo")],
                     lambda target: KERNELS.get(target, []))
    for target in TARGET_FILES:  # the optimized level first: answered before the whole target is built
        for level in ("kernels", "optimized-hlo", "hlo", "graph", "layers"):
            assert lazy.created_by_compiler(level, target) == index.created_by_compiler(level, target)
            assert lazy.top_level(level, target) == index.top_level(level, target)
            for name in LAYERS:
                assert lazy.items_for_layer(name, level, target) == index.items_for_layer(name, level, target)
            for entry in index.top_level(level, target):
                assert lazy.entry(level, entry.name, target) == entry
                assert lazy.down(level, entry.name, target) == index.down(level, entry.name, target)
                assert lazy.up(level, entry.name, target) == index.up(level, entry.name, target)
            assert lazy.lower_level(level, target) == index.lower_level(level, target)


def test_a_layers_optimized_instructions_read_only_that_targets_optimized_module():
    from explorer.model.index_build import LazyIndex

    read = []

    def module(target, optimized):
        read.append((target, optimized))
        return MODULES[(target, "optimized-hlo" if optimized else "hlo")]

    lazy = LazyIndex([layer(n) for n in LAYERS], lambda: GRAPH_LEVEL, SCOPES, tuple(TARGET_FILES), module,
                     lambda target: KERNELS.get(target, []))
    assert lazy.items_for_layer("conv2d", "optimized-hlo", "tpu:v5e")
    assert read == [("tpu:v5e", True)]
    assert lazy.down("layers", "conv2d", "tpu:v5e")  # the trace needs the whole target
    assert read == [("tpu:v5e", True), ("tpu:v5e", False), ("tpu:v5e", True)]
