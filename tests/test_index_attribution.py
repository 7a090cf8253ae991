"""Attribution rules of the cross-level index on small HLO modules written the way XLA prints them.

What these pin down (issue 12): an instruction belongs to the layer of what it
computes (its own op_name and its non-constant operands); a constant XLA merged
across layers, a broadcast of it, or a fused copy of it never pulls a fusion
into a layer; sub-layers that are not in the layer list resolve to the listed
layer that contains them; a nested model's layers count for it; entry
parameters link by number, never by their shared `XLA_Args` op_name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.hlo.parser import parse_module
from explorer.model.bundle import Bundle
from explorer.model.index_build import build_index
from explorer.model.records import KernelRecord, LayerRecord
from explorer.views import trace
from explorer.views.tables import cross_index, instruction, kernel

from tests.conftest import committed


def layer(name: str, path: str = "", params: int = 0) -> LayerRecord:
    return LayerRecord(name, path or name, "", (), (), "float32", params, 0, 0, 0)


def meta(op_name: str) -> str:
    return f'metadata={{op_name="{op_name}"}}'


# A 2-D dot's contracting dimensions as XLA prints them.
DOT_DIMS = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"


# Two ReLUs after each other; XLA:CPU kept one zero (named after relu_1) for both,
# once as a top-level constant operand and once fused.
SHARED_ZERO = f"""HloModule m

fused_relu_1 {{
  p0 = f32[4]{{0}} parameter(0)
  zero = f32[] constant(0), {meta("m/relu_1/Relu")}
  zeros = f32[4]{{0}} broadcast(zero), dimensions={{}}, {meta("m/relu_1/Relu")}
  ROOT max = f32[4]{{0}} maximum(p0, zeros), {meta("m/relu_1/Relu")}
}}

fused_relu_2 {{
  p0 = f32[4]{{0}} parameter(0)
  zero = f32[] constant(0), {meta("m/relu_1/Relu")}
  zeros = f32[4]{{0}} broadcast(zero), dimensions={{}}, {meta("m/relu_1/Relu")}
  ROOT max = f32[4]{{0}} maximum(p0, zeros), {meta("m/relu_2/Relu")}
}}

fused_scale {{
  p0 = f32[4]{{0}} parameter(0)
  p1 = f32[] parameter(1)
  scale = f32[4]{{0}} broadcast(p1), dimensions={{}}, {meta("m/relu_1/Relu")}
  ROOT mul = f32[4]{{0}} multiply(p0, scale), {meta("m/scale/mul")}
}}

ENTRY main {{
  x = f32[4]{{0}} parameter(0), {meta("XLA_Args")}
  relu_1 = f32[4]{{0}} fusion(x), kind=kLoop, calls=fused_relu_1, {meta("m/relu_1/Relu")}
  relu_2 = f32[4]{{0}} fusion(relu_1), kind=kLoop, calls=fused_relu_2, {meta("m/relu_2/Relu")}
  one = f32[] constant(1), {meta("m/relu_1/Relu")}
  ROOT scaled = f32[4]{{0}} fusion(relu_2, one), kind=kLoop, calls=fused_scale, {meta("m/scale/mul")}
}}
"""

SHARED_ZERO_BEFORE = f"""HloModule m

ENTRY main {{
  x = f32[4]{{0}} parameter(0), {meta("XLA_Args")}
  zero = f32[] constant(0), {meta("m/relu_1/Relu")}
  zeros = f32[4]{{0}} broadcast(zero), dimensions={{}}, {meta("m/relu_1/Relu")}
  max = f32[4]{{0}} maximum(x, zeros), {meta("m/relu_1/Relu")}
  zero.2 = f32[] constant(0), {meta("m/relu_2/Relu")}
  zeros.2 = f32[4]{{0}} broadcast(zero.2), dimensions={{}}, {meta("m/relu_2/Relu")}
  max.2 = f32[4]{{0}} maximum(max, zeros.2), {meta("m/relu_2/Relu")}
  one = f32[] constant(1), {meta("m/scale/Const")}
  ones = f32[4]{{0}} broadcast(one), dimensions={{}}, {meta("m/scale/Const")}
  ROOT mul = f32[4]{{0}} multiply(max.2, ones), {meta("m/scale/mul")}
}}
"""

RELU_SCOPES = {"cpu": {"m/relu_1": "relu_1", "m/relu_2": "relu_2", "m/scale": "scale"}}


def relu_index():
    modules = {("cpu", "hlo"): parse_module(SHARED_ZERO_BEFORE), ("cpu", "optimized-hlo"): parse_module(SHARED_ZERO)}
    return build_index([layer("x"), layer("relu_1"), layer("relu_2"), layer("scale")], None, RELU_SCOPES, modules, {})


def test_a_fused_copy_of_a_merged_constant_does_not_pull_a_fusion_into_the_first_layer():
    index = relu_index()
    assert index.items_for_layer("relu_1", "optimized-hlo") == ("relu_1",)
    second = index.entry("optimized-hlo", "relu_2")
    assert (second.layer, second.also_layers) == ("relu_2", ())


def test_a_fused_parameter_bound_to_a_constant_operand_counts_as_the_constant():
    """`scaled` broadcasts the top-level constant `one` (named after relu_1) through its parameter 1."""
    entry = relu_index().entry("optimized-hlo", "scaled")
    assert (entry.layer, entry.also_layers) == ("scale", ())


def test_a_top_level_constant_read_only_by_other_layers_is_the_compilers():
    index = relu_index()
    assert index.layer_of("optimized-hlo", "one") == ""
    assert "one" in index.created_by_compiler("optimized-hlo")


def test_the_unfused_relu_links_down_only_to_its_own_fusion():
    """Before optimisation every layer has its own zero; after it relu_1's op_name survives in
    relu_2's fusion only on a constant, which links nothing."""
    index = relu_index()
    for name in ("zero", "zeros", "max"):
        assert index.down("hlo", name) == ("relu_1",), name
    assert index.down("hlo", "max.2") == ("relu_2",)


# --- sub-layers and nested models ----------------------------------------------------------------

# Keras-on-JAX op_names: MultiHeadAttention's projections run under its own sub-layers
# (`query`, `key`...), whose names every block shares.
ATTENTION = f"""HloModule jit_fwd

ENTRY main {{
  x = f32[2,4]{{1,0}} parameter(0), {meta("x")}
  q0 = f32[2,4]{{1,0}} dot(x, x), {DOT_DIMS}, {meta("jit(fwd)/mha_0/query/einsum")}
  o0 = f32[2,4]{{1,0}} add(q0, x), {meta("jit(fwd)/mha_0/attention_output/add")}
  q1 = f32[2,4]{{1,0}} dot(o0, o0), {DOT_DIMS}, {meta("jit(fwd)/mha_1/query/einsum")}
  s1 = f32[2,4]{{1,0}} exponential(q1), {meta("jit(fwd)/mha_1/softmax/exp")}
  f1 = f32[2,4]{{1,0}} negate(s1), {meta("jit(fwd)/enc_bilstm/forward_lstm/while/body/neg")}
  ROOT b1 = f32[2,4]{{1,0}} negate(f1), {meta("jit(fwd)/enc_bilstm/backward_lstm/neg")}
}}
"""
ATTENTION_LAYERS = [layer("x"), layer("mha_0"), layer("mha_1"), layer("enc_bilstm")]


def test_sub_layers_recorded_in_old_bundles_resolve_to_the_listed_layer_that_contains_them():
    """Bundles captured before the JAX worker stopped recording sub-layer scopes map `query` to `query`."""
    scopes = {"tpu:v5e": {"jit(fwd)/mha_0": "mha_0", "jit(fwd)/mha_0/query": "query",
                          "jit(fwd)/mha_0/attention_output": "attention_output",
                          "jit(fwd)/mha_1": "mha_1", "jit(fwd)/mha_1/query": "query",
                          "jit(fwd)/enc_bilstm": "enc_bilstm", "jit(fwd)/enc_bilstm/forward_lstm": "forward_lstm"}}
    index = build_index(ATTENTION_LAYERS, None, scopes, {("tpu:v5e", "hlo"): parse_module(ATTENTION)}, {})
    assert index.items_for_layer("mha_0", "hlo", "tpu:v5e") == ("q0", "o0")
    assert index.items_for_layer("mha_1", "hlo", "tpu:v5e") == ("q1", "s1")
    assert index.items_for_layer("enc_bilstm", "hlo", "tpu:v5e") == ("f1", "b1")
    assert index.items_for_layer("query", "hlo", "tpu:v5e") == ()


def test_without_scopes_sub_layer_names_still_fall_to_the_listed_layer():
    index = build_index(ATTENTION_LAYERS, None, {}, {("tpu:v5e", "hlo"): parse_module(ATTENTION)}, {})
    assert index.items_for_layer("mha_1", "hlo", "tpu:v5e") == ("q1", "s1")


STEM = f"""HloModule jit_fwd

ENTRY main {{
  x = f32[2,4]{{1,0}} parameter(0), {meta("x")}
  c = f32[2,4]{{1,0}} dot(x, x), {DOT_DIMS}, {meta("jit(fwd)/stem/stem_conv/conv")}
  n = f32[2,4]{{1,0}} negate(c), {meta("jit(fwd)/stem/stem_norm/neg")}
  ROOT h = f32[2,4]{{1,0}} add(n, x), {meta("jit(fwd)/head/add")}
}}
"""


def test_a_nested_model_holds_its_inner_layers_items():
    """ConvNeXt's stem is a Sequential inside the model: it computes nothing itself."""
    layers = [layer("x"), layer("stem"), layer("stem_conv", "stem/stem_conv"), layer("stem_norm", "stem/stem_norm"),
              layer("head")]
    scopes = {"gpu:h100": {"jit(fwd)/stem": "stem", "jit(fwd)/stem/stem_conv": "stem_conv",
                           "jit(fwd)/stem/stem_norm": "stem_norm", "jit(fwd)/head": "head"}}
    index = build_index(layers, None, scopes, {("gpu:h100", "hlo"): parse_module(STEM)}, {})
    assert index.items_for_layer("stem", "hlo", "gpu:h100") == ("c", "n")
    assert index.layer_of("hlo", "c", "gpu:h100") == "stem_conv"
    assert index.items_for_layer("stem_conv", "hlo", "gpu:h100") == ("c",)
    assert index.inner_layers("stem") == ("stem_conv", "stem_norm")
    assert index.inner_layers("stem_conv") == ()


# GPU XLA cloned the softmax's max reducer of mha_0 into mha_1's softmax fusion, op_names and all.
CLONED_REDUCER = f"""HloModule jit_fwd

region_max.clone {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b), {meta("jit(fwd)/mha_0/reduce_max")}
}}

softmax_1 {{
  p = f32[2,4]{{1,0}} parameter(0)
  low = f32[] constant(-inf)
  ROOT r = f32[2]{{0}} reduce(p, low), dimensions={{1}}, to_apply=region_max.clone, {meta("jit(fwd)/mha_1/reduce_max")}
}}

ENTRY main {{
  x = f32[2,4]{{1,0}} parameter(0), {meta("x")}
  ROOT s1 = f32[2]{{0}} fusion(x), kind=kCustom, calls=softmax_1, {meta("jit(fwd)/mha_1/reduce_max")}
}}
"""


def test_a_cloned_reducer_does_not_pull_a_fusion_into_the_layer_it_was_cloned_from():
    scopes = {"gpu:h100": {"jit(fwd)/mha_0": "mha_0", "jit(fwd)/mha_1": "mha_1"}}
    index = build_index([layer("x"), layer("mha_0"), layer("mha_1")], None, scopes,
                        {("gpu:h100", "optimized-hlo"): parse_module(CLONED_REDUCER)}, {})
    entry = index.entry("optimized-hlo", "s1", "gpu:h100")
    assert (entry.layer, entry.also_layers) == ("mha_1", ())
    assert index.items_for_layer("mha_0", "optimized-hlo", "gpu:h100") == ()


# --- recurrent and transposed layers (issue 39, item 4) ------------------------------------------

# XLA:CPU's shape of a recurrent layer: the time loop's body runs the cell's dot, a loop inside it
# runs another; kernels name the instructions they implement, never the `while` running them.
LOOPS = f"""HloModule m

inner_body {{
  p = (s32[], f32[4]{{0}}) parameter(0)
  v = f32[4]{{0}} get-tuple-element(p), index=1
  n = f32[4]{{0}} negate(v), {meta("m/rnn/while/inner/neg")}
  i = s32[] get-tuple-element(p), index=0
  ROOT t = (s32[], f32[4]{{0}}) tuple(i, n)
}}

inner_cond {{
  p = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT, {meta("m/rnn/while/inner/Less")}
}}

body {{
  p = (s32[], f32[4]{{0}}) parameter(0)
  v = f32[4]{{0}} get-tuple-element(p), index=1
  w = f32[4,4]{{1,0}} constant({{...}})
  cell = f32[4]{{0}} dot(w, v), {DOT_DIMS}, {meta("m/rnn/while/cell/MatMul")}
  i = s32[] get-tuple-element(p), index=0
  t0 = (s32[], f32[4]{{0}}) tuple(i, cell)
  ROOT inner = (s32[], f32[4]{{0}}) while(t0), condition=inner_cond, body=inner_body, {meta("m/rnn/while/inner")}
}}

cond {{
  p = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(12)
  ROOT lt = pred[] compare(i, k), direction=LT, {meta("m/rnn/while/Less")}
}}

ENTRY main {{
  x = f32[4]{{0}} parameter(0), {meta("XLA_Args")}
  zero = s32[] constant(0), {meta("m/rnn/zeros")}
  t = (s32[], f32[4]{{0}}) tuple(zero, x)
  loop = (s32[], f32[4]{{0}}) while(t), condition=cond, body=body, {meta("m/rnn/while")}
  ROOT out = f32[4]{{0}} get-tuple-element(loop), index=1
}}
"""


def test_a_loop_is_implemented_by_the_kernels_of_what_it_runs():
    """No kernel names `loop`: the body's dot and the inner loop's negate are its kernels, and the
    inner loop's too; a kernel still goes up to its own instruction first."""
    kernels = [KernelRecord("cell_kernel", ("cell",)), KernelRecord("neg_kernel", ("n",)),
               KernelRecord("out_copy", ("out",))]
    index = build_index([layer("x"), layer("rnn")], None, {"cpu": {"m/rnn": "rnn"}},
                        {("cpu", "optimized-hlo"): parse_module(LOOPS)}, {"cpu": kernels})
    assert index.down("optimized-hlo", "loop") == ("cell_kernel", "neg_kernel")
    assert index.down("optimized-hlo", "inner") == ("neg_kernel",)
    assert index.down("optimized-hlo", "out") == ("out_copy",)  # the entry's own instructions: their kernel only
    assert index.up("kernels", "neg_kernel") == ("n", "loop", "inner")
    assert index.layer_of("optimized-hlo", "loop") == "rnn" == index.layer_of("optimized-hlo", "cell")


RECORDED = Path(__file__).parent / "fixtures" / "bundles"
TARGETS = ("cpu", "gpu:h100")


def _enter_from_the_layer(bundle: Bundle, layer_name: str, target: str) -> list[tuple[str, str, str]]:
    """(level, item, what it is) at each Enter from the layer down to the kernels, as the app's Enter
    (`explorer.views.trace.descend`) leads: an instruction's opcode (a custom call's target), an op's type."""
    path, level, name = [], "layers", layer_name
    while (descent := trace.descend(bundle, level, name, target)) is not None:
        assert descent.select, f"{target}: Enter on {name} ({level}) finds nothing below"
        level, name = descent.level, descent.select
        path.append((level, name, _what(bundle, level, name, target)))
    return path


def _what(bundle: Bundle, level: str, name: str, target: str) -> str:
    if level == "graph":
        return next(op.op for op in bundle.graph.ops if op.name == name)
    if level == "kernels":
        return kernel(bundle, target, name).kind
    found = instruction(bundle, level, target, name)
    return f"{found.opcode}:{found.custom_call_target}" if found.custom_call_target else found.opcode


@pytest.mark.parametrize("target", TARGETS)
def test_enter_on_a_recurrent_layer_goes_to_its_loop_on_every_level(target):
    """gru_tagger's Bidirectional GRU (84 Const ops of its 170 in the graph): Enter lands on the
    TensorFlow `While`, the HLO `while`, the optimized `while`, then a kernel its loop runs."""
    bundle = Bundle.open(committed(RECORDED / "gru_tagger"))
    path = _enter_from_the_layer(bundle, "bidirectional", target)
    assert [level for level, _, _ in path] == ["graph", "hlo", "optimized-hlo", "kernels"]
    assert path[0][2] == "While" and path[1][2] == "while" and path[2][2] == "while"
    loop_kernels = cross_index(bundle).down("optimized-hlo", path[2][1], target)
    assert path[3][1] in loop_kernels and trace.layer_of(bundle, "kernels", path[3][1], target) == "bidirectional"
    if target == "cpu":  # XLA:CPU's loop body keeps the cell's dot: the kernel doing the work
        assert instruction(bundle, "optimized-hlo", target, path[3][1]).opcode == "dot"


@pytest.mark.parametrize("target, convolution", [("cpu", "convolution"),
                                                 ("gpu:h100", "custom-call:__cudnn$convBackwardInput")])
def test_enter_on_a_transposed_convolution_goes_to_the_convolution_not_the_flip_of_its_weights(target, convolution):
    """upsampler's Conv2DTranspose: XLA reverses its weights (`reverse`, a fusion on CPU) and convolves
    its input; Enter follows the convolution on every level (the GPU's cuDNN call, not the bias add)."""
    bundle = Bundle.open(committed(RECORDED / "upsampler"))
    path = _enter_from_the_layer(bundle, "conv2d_transpose", target)
    assert path[0][2] == "Conv2DBackpropInput"
    assert path[1][2] == "convolution" and path[2][2] == convolution
    flips = [name for name in trace.items_for_layer(bundle, "conv2d_transpose", "optimized-hlo", target)
             if "reverse" in _fused_opcodes(bundle, target, name)]
    assert path[2][1] not in flips
    if target == "cpu":  # XLA:CPU flips the weights in a fusion of the layer's own (cuDNN does it in its call)
        assert flips == ["transpose_copy_fusion"]


def _fused_opcodes(bundle: Bundle, target: str, name: str) -> set[str]:
    """The opcodes an optimized instruction computes: its own, and its fused computation's."""
    found = instruction(bundle, "optimized-hlo", target, name)
    module = bundle.hlo_module(target, True)
    called = {c.name: c for c in module.computations}
    return {found.opcode, *(i.opcode for c in found.called_computations if c in called for i in called[c].instructions)}


@pytest.mark.parametrize("target", TARGETS)
def test_a_recurrent_layers_loops_and_their_bodies_are_the_layers(target):
    """Every `while` of the optimized module is the Bidirectional layer's, and so is every dot its
    loops run; the Dense after it keeps its own matrix multiply."""
    bundle = Bundle.open(committed(RECORDED / "gru_tagger"))
    module = bundle.hlo_module(target, True)
    index = cross_index(bundle)
    loops = [i.name for _, i in module.all_instructions() if i.opcode == "while"]
    assert len(loops) == 2 and {index.layer_of("optimized-hlo", name, target) for name in loops} == {"bidirectional"}
    for loop in loops:
        assert index.down("optimized-hlo", loop, target)  # its body's kernels
    dots = {index.layer_of("optimized-hlo", i.name, target) for _, i in module.all_instructions()
            if i.opcode == "dot" or "dot" in i.name}
    assert dots == {"bidirectional", "dense"}


@pytest.fixture(scope="module")
def captured_by_the_compilers(tmp_path_factory):
    """gru_tagger and upsampler captured now by the real compilers, for every default target."""
    from explorer.capture.orchestrator import capture
    from explorer.model.records import CaptureOptions
    from explorer.targets import DEFAULT_TARGETS

    bundles = {}
    for sample in ("gru_tagger", "upsampler"):
        out = tmp_path_factory.mktemp("captured") / sample
        capture(sample, CaptureOptions(targets=DEFAULT_TARGETS), out_dir=out, use_cache=False)
        bundles[sample] = Bundle.open(out)
    return bundles


@pytest.mark.e2e
@pytest.mark.parametrize("target", ["cpu", "gpu:h100", "tpu:v5e"])
def test_enter_follows_the_loop_and_the_convolution_on_a_fresh_capture(captured_by_the_compilers, target):
    """As the recorded bundles show, on a capture made now, TPU included: Enter from the GRU layer
    goes through its loops, from the transposed convolution through its convolution."""
    from explorer.views.programs import program_for

    gru, upsampler = captured_by_the_compilers["gru_tagger"], captured_by_the_compilers["upsampler"]
    path = _enter_from_the_layer(gru, "bidirectional", target)
    assert [what for _, _, what in path[:3]] == ["While", "while", "while"]
    assert path[3][1] in cross_index(gru).down("optimized-hlo", path[2][1], target)
    path = _enter_from_the_layer(upsampler, "conv2d_transpose", target)
    assert path[0][2] == "Conv2DBackpropInput" and path[1][2] == "convolution"
    assert "convolution" in program_for(upsampler, target).work("optimized-hlo", path[2][1])
