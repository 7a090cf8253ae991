"""Real architectures nobody here wrote, with random weights, for benchmarks and end-to-end tests.

`module:function` specs for the CLI (`tensorweg capture sample_models.architectures:densenet121_64`).
Only keras.applications with `weights=None` (nothing is downloaded) and Keras
layers, so each also builds under `KERAS_BACKEND=jax`. Reduced input sizes keep
the compiles short; the layer structure (what the index links) is the full model's.
"""

from __future__ import annotations

from sample_models import SEED, transformer_encoder


def _seeded():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)

    keras.utils.set_random_seed(SEED)
    return keras


def nasnet_mobile():
    """NASNetMobile at 224x224: about 770 layers, 1,127 entry parameters."""
    return _seeded().applications.NASNetMobile(weights=None)


def densenet121_64():
    return _seeded().applications.DenseNet121(weights=None, input_shape=(64, 64, 3), classes=10)


def resnet50v2_64():
    return _seeded().applications.ResNet50V2(weights=None, input_shape=(64, 64, 3), classes=10)


def convnext_tiny_64():
    return _seeded().applications.ConvNeXtTiny(weights=None, input_shape=(64, 64, 3), classes=10)


def bilstm_seq2seq():
    """A Bidirectional LSTM encoder whose states start an LSTM decoder."""
    keras = _seeded()
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    source = keras.Input(shape=(12,), dtype="int32", name="source")
    target = keras.Input(shape=(10,), dtype="int32", name="target")
    x = layers.Embedding(200, 32, name="src_embedding")(source)
    _sequence, fh, fc, bh, bc = layers.Bidirectional(
        layers.LSTM(32, return_sequences=True, return_state=True), name="enc_bilstm")(x)
    state_h = layers.Concatenate(name="state_h")([fh, bh])
    state_c = layers.Concatenate(name="state_c")([fc, bc])
    y = layers.Embedding(200, 32, name="tgt_embedding")(target)
    y = layers.LSTM(64, return_sequences=True, name="dec_lstm")(y, initial_state=[state_h, state_c])
    outputs = layers.Dense(200, name="logits")(y)
    return keras.Model([source, target], outputs, name="bilstm_seq2seq")


def mha_encoder_2():
    """Two small BERT-style blocks: the test that attribution does not cross blocks."""
    return transformer_encoder(blocks=2, width=32, heads=2, length=16, vocab=100, name="mha_encoder_2")
