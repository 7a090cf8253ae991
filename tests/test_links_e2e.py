"""(e2e) Links that hold on real architectures captured by the real compilers (issue 12).

Reduced input sizes keep the compiles short; the layer structure is the full
model's. Captures (sample_models.architectures, random weights, nothing
downloaded) are shared by the module; about 70 s on two cores in all, DenseNet121
being most of it. Everything is asked through `explorer.views` and
`explorer.views.compare`, what the screens and `tensorweg compare` call.
"""

from __future__ import annotations

import re

import pytest

from explorer.errors import TensorwegError
from explorer.targets import DEFAULT_TARGETS
from explorer.views import tables, trace
from explorer.views.compare import layer_comparison

pytestmark = pytest.mark.e2e

ALL_TARGETS = DEFAULT_TARGETS  # cpu, gpu:h100, tpu:v5e


def captured(tmp_path_factory, function: str, targets=ALL_TARGETS):
    from explorer.capture.orchestrator import capture
    from explorer.model.bundle import Bundle
    from explorer.model.records import CaptureOptions

    path = tmp_path_factory.getbasetemp() / "links-bundles" / function
    path.parent.mkdir(parents=True, exist_ok=True)
    capture(f"sample_models.architectures:{function}", CaptureOptions(targets=tuple(targets)),
            out_dir=path, use_cache=False)
    return Bundle.open(path)


@pytest.fixture(scope="module")
def densenet(tmp_path_factory):
    return captured(tmp_path_factory, "densenet121_64", ("cpu", "tpu:v5e"))


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    return captured(tmp_path_factory, "mha_encoder_2")


@pytest.fixture(scope="module")
def seq2seq(tmp_path_factory):
    return captured(tmp_path_factory, "bilstm_seq2seq")


@pytest.fixture(scope="module")
def convnext(tmp_path_factory):
    return captured(tmp_path_factory, "convnext_tiny_64")


def fusions_of(bundle, layer: str, target: str) -> list[str]:
    return [name for name in trace.items_for_layer(bundle, layer, "optimized-hlo", target)
            if tables.instruction(bundle, "optimized-hlo", target, name).opcode == "fusion"]


def layers_of(bundle, name: str, target: str) -> set[str]:
    """Every layer one optimized instruction is linked to (its own and those fused into it)."""
    entry = bundle.index.entry("optimized-hlo", name, target)
    return {entry.layer, *entry.also_layers} - {""}


def assert_every_weight_layer_linked(bundle):
    for target in bundle.targets:
        unlinked = [layer.name for layer in bundle.layers
                    if layer.params and not trace.items_for_layer(bundle, layer.name, "optimized-hlo", target)]
        assert not unlinked, (target, unlinked)


def assert_scopes_name_listed_layers(bundle):
    """Sub-layers (MultiHeadAttention's `query`, Bidirectional's `forward_lstm`) are not recorded:
    their ops run inside the listed layer's scope and belong to it."""
    listed = {layer.name for layer in bundle.layers}
    for target, scopes in bundle.scopes.items():
        assert set(scopes.values()) <= listed, (target, set(scopes.values()) - listed)


# --- DenseNet121: XLA merges constants across 120 layers ----------------------------------------------


def test_densenet_every_weight_layer_is_linked_on_every_target(densenet):
    assert_every_weight_layer_linked(densenet)


def test_densenet_first_relu_owns_only_its_own_fusion(densenet):
    """XLA:CPU keeps one zero for all 120 ReLUs, named after conv1_relu; it was linked to 122 fusions."""
    for target in densenet.targets:
        fusions = fusions_of(densenet, "conv1_relu", target)
        assert 1 <= len(fusions) <= 2, (target, fusions)
        # the stem only (convolution, normalisation, activation, pooling), or the first layer after
        # it, which XLA may fuse with the pooling that produces its input
        stem = ("conv1", "pool1", "zero_padding", "conv2_block1_0_")
        for name in fusions:
            assert all(layer.startswith(stem) for layer in layers_of(densenet, name, target)), \
                (target, name, layers_of(densenet, name, target))


# --- a two-block MultiHeadAttention encoder ---------------------------------------------------------------


def block_of(layer: str) -> int | None:
    found = re.search(r"_(\d+)$", layer)
    return int(found.group(1)) if found else None


def test_encoder_every_weight_layer_is_linked_on_every_target(encoder):
    assert_every_weight_layer_linked(encoder)
    assert_scopes_name_listed_layers(encoder)


def test_encoder_attribution_does_not_cross_blocks(encoder):
    """An instruction links layers of one block, or of two adjacent ones where XLA fused a block's
    output norm (the producer) into the next block's first ops; never, say, ffn1_0 with ffn1_1."""
    for target in encoder.targets:
        for entry in bundle_entries(encoder, target):
            layers = {entry.layer, *entry.also_layers} - {""}
            blocks = sorted({block_of(layer) for layer in layers} - {None})
            if len(blocks) > 1:
                first = blocks[0]
                assert blocks == [first, first + 1], (target, entry.name, layers)
                in_first = {layer for layer in layers if block_of(layer) == first}
                assert in_first == {f"ffn_norm_{first}"}, (target, entry.name, layers)


def bundle_entries(bundle, target: str):
    return bundle.index.top_level("optimized-hlo", target)


def test_encoder_blocks_are_attributed_alike(encoder):
    """The two blocks are the same computation: each attention layer gets as many instructions as the
    other on one target (the GPU used to give mha_1 3 instructions against 15 on the CPU)."""
    for target in encoder.targets:
        counts = [len(trace.items_for_layer(encoder, f"{kind}_{b}", "optimized-hlo", target))
                  for kind in ("mha", "ffn1") for b in (0, 1)]
        assert counts[0] == counts[1] and counts[2] == counts[3] and min(counts) > 0, (target, counts)


def test_attention_sub_layers_are_not_layers_of_the_model(encoder):
    with pytest.raises(TensorwegError, match="no layer 'query'"):
        layer_comparison(encoder, "query")
    comparison = layer_comparison(encoder, "mha_1")
    assert all(column.instructions for column in comparison.targets if column.captured)


# --- Bidirectional LSTM seq2seq -----------------------------------------------------------------------


def test_bidirectional_links_to_the_model_layer_on_every_target(seq2seq):
    assert_every_weight_layer_linked(seq2seq)
    assert_scopes_name_listed_layers(seq2seq)
    for target in seq2seq.targets:
        items = trace.items_for_layer(seq2seq, "enc_bilstm", "optimized-hlo", target)
        opcodes = [tables.instruction(seq2seq, "optimized-hlo", target, name).opcode for name in items]
        assert opcodes.count("while") >= 2, (target, opcodes)  # both directions' loops are the layer's


# --- ConvNeXtTiny: Sequential blocks inside the model ---------------------------------------------------


def test_a_nested_sequential_holds_its_inner_layers_on_every_target(convnext):
    assert_every_weight_layer_linked(convnext)
    containers = [layer.name for layer in convnext.layers if layer.class_name == "Sequential"]
    assert "convnext_tiny_stem" in containers
    for target in convnext.targets:
        for container in containers:
            inner = [layer.name for layer in convnext.layers if layer.path.startswith(f"{container}/")]
            held = set(trace.items_for_layer(convnext, container, "optimized-hlo", target))
            assert inner and held, (target, container)
            for layer in inner:
                assert set(trace.items_for_layer(convnext, layer, "optimized-hlo", target)) <= held, (target, layer)
