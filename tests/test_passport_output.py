"""The hop from a layer to its output tensor (explorer/views/passport/output.py), on recorded bundles:
WHICH optimized instruction is chosen and on what evidence (the instruction a fed layer reads, the
module's result, the fusion that computes it with the next layer), and that only a program without
that evidence (TVM's functions) is still guessed, and says so."""

from __future__ import annotations

import json

import pytest

from explorer.model.bundle import Bundle
from explorer.views.passport import passport
from explorer.views.passport.output import folded_into, moves_bytes_only, output_tensor
from explorer.views.passport.text import as_json

from tests.conftest import FIXTURES, committed


def recorded(name: str) -> Bundle:
    return Bundle.open(committed(FIXTURES / "bundles" / name / "manifest.json").parent)


@pytest.fixture(scope="module")
def mnist() -> Bundle:
    return recorded("mnist_cnn")


# (target, layer, instruction, how, the layer it feeds, the instruction of that layer reading it)
MNIST = [
    # The fusion adding conv2d's bias and its ReLU, read by max_pooling2d's reduce-window.
    ("cpu", "conv2d", "broadcast_maximum_fusion", "consumer", "max_pooling2d", "wrapped_reduce-window"),
    # Past the Flatten (a bitcast: no work of its own) to the dense layer's dot.
    ("cpu", "max_pooling2d", "wrapped_reduce-window", "consumer", "dense", "dot_add_fusion"),
    ("cpu", "dense", "broadcast_divide_fusion", "result", "", ""),
    # cuDNN's convolution with its bias and ReLU; the pooling is fused into the dense layer's multiply.
    ("gpu:h100", "conv2d", "cudnn-conv-bias-activation.3", "consumer", "max_pooling2d", "loop_multiply_fusion"),
    ("gpu:h100", "max_pooling2d", "loop_multiply_fusion", "fused", "dense", ""),
    ("gpu:h100", "dense", "triton_softmax.2", "result", "", ""),
    # fusion.11 is the bare convolution: the bias and ReLU run inside max_pooling2d's fusion.
    ("tpu:v5e", "conv2d", "fusion", "fused", "max_pooling2d", ""),
    ("tpu:v5e", "max_pooling2d", "copy.15", "consumer", "dense", "multiply_reduce_fusion"),
    ("tpu:v5e", "dense", "divide_bitcast_fusion", "result", "", ""),
]


@pytest.mark.parametrize(("target", "layer", "name", "how", "fed", "reader"), MNIST,
                         ids=[f"{t}-{layer}" for t, layer, *_ in MNIST])
def test_mnist_cnn_output_follows_the_data_flow(mnist, target, layer, name, how, fed, reader):
    found = output_tensor(mnist, target, layer)
    assert (found.name, found.how, found.layer, found.reader) == (name, how, fed, reader)


def test_the_keras_shape_is_a_check_not_a_filter(mnist):
    assert output_tensor(mnist, "cpu", "conv2d").elements_match is True
    # f32[13,8,2,8] holds max_pooling2d's result, not conv2d's (1, 26, 26, 8): chosen all the same
    assert output_tensor(mnist, "tpu:v5e", "conv2d").elements_match is False


def test_a_layer_without_work_has_no_output_instruction(mnist):
    assert output_tensor(mnist, "cpu", "flatten").name == output_tensor(mnist, "cpu", "image").name == ""


def test_tiny_convnet_conv_is_read_by_the_dense_layer_past_the_flatten():
    found = output_tensor(recorded("tiny_convnet"), "cpu", "conv")
    assert (found.name, found.how, found.layer, found.reader) == (
        "maximum_bitcast_fusion", "consumer", "logits", "dot_add_fusion")


@pytest.mark.parametrize(("layer", "name", "how", "fed"), [
    # The last layer inside a nested model feeds what the model feeds: stem_relu's ReLU runs in pool's fusion.
    ("stem_relu", "multiply_bitcast_fusion", "fused", "pool"),
    ("stem_conv", "multiply_bitcast_fusion", "fused", "stem_relu"),
    ("stem", "multiply_bitcast_fusion", "fused", "pool"),
    ("pool", "multiply_bitcast_fusion", "consumer", "head_dense"),
    ("head_dense", "broadcast_maximum_fusion", "consumer", "logits"),
    ("head", "dot_add_fusion", "result", ""),
])
def test_nested_models_follow_their_containers_edges(layer, name, how, fed):
    found = output_tensor(recorded("nested_block"), "cpu", layer)
    assert (found.name, found.how, found.layer) == (name, how, fed)


def test_without_an_hlo_module_the_output_is_still_guessed_and_labelled():
    tvm = recorded("mnist_cnn_tvm")
    found = output_tensor(tvm, "tvm:cpu", "conv2d")
    assert (found.name, found.how) == ("fused_conv2d_relu", "heuristic")
    hop = {hop.level: hop for hop in passport(tvm, "tvm:cpu", "conv2d").hops}["optimized-hlo"]
    assert hop.evidence == "fusion" and "no data flow" in hop.heuristic


def test_the_fusion_hop_names_its_evidence_and_guesses_nothing(mnist):
    hop = {hop.level: hop for hop in passport(mnist, "cpu", "conv2d").hops}["optimized-hlo"]
    assert hop.evidence == "data_flow" and hop.heuristic == ""
    assert any("read by wrapped_reduce-window of max_pooling2d" in line for line in hop.lines)


def test_a_fused_output_says_it_has_no_buffer_of_its_own(mnist):
    found = {hop.level: hop for hop in passport(mnist, "tpu:v5e", "conv2d").hops}
    assert any("never written to memory on its own" in line for line in found["optimized-hlo"].lines)
    assert found["memory"].lines[0].startswith("conv2d's output has no buffer of its own")
    german = {hop.level: hop for hop in passport(mnist, "tpu:v5e", "conv2d", lang="de").hops}
    assert "keinen eigenen Puffer" in german["memory"].lines[0]


def test_json_says_how_the_output_was_found(mnist):
    hops = json.loads(as_json(passport(mnist, "gpu:h100", "conv2d")))["hops"]
    fusion = next(hop for hop in hops if hop["level"] == "optimized-hlo")
    assert fusion["output"] == {"how": "consumer", "layer": "max_pooling2d", "reader": "loop_multiply_fusion",
                                "elements_match": True}
    assert fusion["evidence"].startswith("data flow in the optimized module")


def test_an_item_below_the_layers_keeps_its_own_instruction(mnist):
    found = passport(mnist, "tpu:v5e", level="optimized-hlo", item="fusion.11")
    fusion = next(hop for hop in json.loads(as_json(found))["hops"] if hop["level"] == "optimized-hlo")
    assert found.tensor == "fusion.11" and fusion["output"]["how"] == "item" and not fusion["heuristic"]


def test_where_a_layer_without_instructions_went(mnist):
    # A Flatten only reshapes: an optimized bitcast of the tensor before it is all that is left.
    assert moves_bytes_only(mnist, "cpu", "flatten") and not moves_bytes_only(mnist, "cpu", "conv2d")
    assert "became a bitcast" in passport(mnist, "cpu", "flatten").went
    # Who reads the tensor before it, for a layer folded into its consumer (ResNet50's ZeroPadding2D
    # into conv1_conv's window): the first instruction of a layer it feeds reading that tensor.
    assert folded_into(mnist, "cpu", "flatten", "wrapped_reduce-window") == ("dot_add_fusion", "dense")
    assert folded_into(mnist, "cpu", "dense", "broadcast_divide_fusion") == ("", "")
