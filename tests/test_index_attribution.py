"""Attribution rules of the cross-level index on small HLO modules written the way XLA prints them.

What these pin down (issue 12): an instruction belongs to the layer of what it
computes (its own op_name and its non-constant operands); a constant XLA merged
across layers, a broadcast of it, or a fused copy of it never pulls a fusion
into a layer; sub-layers that are not in the layer list resolve to the listed
layer that contains them; a nested model's layers count for it; entry
parameters link by number, never by their shared `XLA_Args` op_name.
"""

from __future__ import annotations

from explorer.hlo.parser import parse_module
from explorer.model.index_build import build_index
from explorer.model.records import LayerRecord


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
