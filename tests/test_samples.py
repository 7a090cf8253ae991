"""The built-in sample models: registry, what each one teaches, determinism, both Keras backends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli.parser import DEFAULT_MODEL

from sample_models import SAMPLES

SMALL = [name for name, sample in SAMPLES.items() if not sample.large]
ROOT = Path(__file__).resolve().parents[1]

# The layer classes each sample exists to show (from the task's list of samples).
TEACHES = {
    "mnist_cnn": {"Conv2D", "MaxPooling2D", "Flatten", "Dense"},
    "mlp": {"Dense"},
    "lstm": {"LSTM"},
    "tiny_transformer": {"Embedding", "MultiHeadAttention", "LayerNormalization", "Dense"},
    "resnet_block": {"Conv2D", "BatchNormalization", "Add"},
    "depthwise": {"DepthwiseConv2D", "Conv2D"},
    "gru_tagger": {"Conv1D", "BatchNormalization", "Bidirectional", "Dense"},  # a recurrent layer's loops
    "upsampler": {"Conv2D", "Conv2DTranspose"},  # a transposed convolution
}


def test_registry_names_descriptions_and_default():
    assert set(TEACHES) | {"resnet50"} <= set(SAMPLES)
    assert DEFAULT_MODEL == "mnist_cnn" in SAMPLES  # what `tensorweg open` captures without a MODEL
    for name, sample in SAMPLES.items():
        assert sample.name == name
        assert sample.description and "\n" not in sample.description
    assert SAMPLES["resnet50"].large and not any(SAMPLES[n].large for n in TEACHES)


def test_importing_the_registry_does_not_import_keras():
    code = "import sys, sample_models; print('keras' in sys.modules, 'tensorflow' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.split() == ["False", "False"], result.stderr


@pytest.mark.e2e  # builds the model with Keras on TensorFlow
@pytest.mark.parametrize("name", SMALL)
def test_sample_builds_with_the_layers_it_teaches(name):
    model = SAMPLES[name].build()
    classes = {layer.__class__.__name__ for layer in model.layers}
    assert TEACHES[name] <= classes, classes
    assert model.name == name
    assert model.count_params() > 0


@pytest.mark.e2e  # builds the model with Keras on TensorFlow
def test_tiny_transformer_takes_integer_tokens_and_uses_gelu():
    model = SAMPLES["tiny_transformer"].build()
    assert [str(t.dtype) for t in model.inputs] == ["int32"]
    activations = {layer.get_config().get("activation") for layer in model.layers}
    assert "gelu" in activations


@pytest.mark.e2e  # builds the model with Keras on TensorFlow
def test_depthwise_sample_has_a_pointwise_1x1_convolution():
    model = SAMPLES["depthwise"].build()
    pointwise = [layer for layer in model.layers if layer.__class__.__name__ == "Conv2D"]
    assert pointwise and all(tuple(layer.kernel_size) == (1, 1) for layer in pointwise)


@pytest.mark.e2e  # builds the model with Keras on TensorFlow
def test_building_twice_gives_the_same_weights():
    import numpy as np

    first, second = SAMPLES["mlp"].build(), SAMPLES["mlp"].build()
    for a, b in zip(first.get_weights(), second.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.e2e
def test_samples_build_and_run_under_the_jax_backend():
    """The JAX worker loads model.keras under KERAS_BACKEND=jax; the builders must work there too."""
    code = (
        "import json, numpy as np\n"
        "from sample_models import SAMPLES\n"
        "out = {}\n"
        f"for name in {SMALL!r}:\n"
        "    m = SAMPLES[name].build()\n"
        "    x = [np.zeros((1,) + tuple(t.shape[1:]), dtype=str(t.dtype)) for t in m.inputs]\n"
        "    out[name] = list(np.shape(m.predict(x[0] if len(x) == 1 else x, verbose=0)))\n"
        "import keras; print(json.dumps({'backend': keras.backend.backend(), 'out': out}))\n"
    )
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["backend"] == "jax"
    assert set(report["out"]) == set(SMALL)
    assert all(shape[0] == 1 for shape in report["out"].values())


@pytest.mark.e2e
def test_resnet50_builds_without_downloading_weights():
    model = SAMPLES["resnet50"].build()
    assert model.name == "resnet50"
    assert model.count_params() > 20_000_000


def test_the_bert_base_sample_is_registered_as_large():
    assert SAMPLES["bert_base"].large and "12 blocks x 768" in SAMPLES["bert_base"].description


@pytest.mark.e2e  # builds the model with Keras on TensorFlow
def test_transformer_encoder_blocks_are_named_by_their_number():
    """Layer names end in the block number: what tests/test_links_e2e.py reads a block from."""
    from sample_models import transformer_encoder

    model = transformer_encoder(blocks=2, width=16, heads=2, length=8, vocab=50, name="encoder")
    names = {layer.name for layer in model.layers}
    for block in (0, 1):
        assert {f"mha_{block}", f"ffn1_{block}", f"ffn2_{block}", f"ffn_norm_{block}"} <= names
    assert [layer.__class__.__name__ for layer in model.layers].count("MultiHeadAttention") == 2


@pytest.mark.e2e
def test_bert_base_has_bert_bases_shape():
    model = SAMPLES["bert_base"].build()
    attention = [layer for layer in model.layers if layer.__class__.__name__ == "MultiHeadAttention"]
    assert len(attention) == 12 and tuple(model.inputs[0].shape) == (None, 128)
    assert model.get_layer("ffn1_0").units == 4 * 768
    assert 100_000_000 < model.count_params() < 120_000_000
