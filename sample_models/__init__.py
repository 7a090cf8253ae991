"""Built-in sample models: small, seeded, random weights, nothing downloaded.

Each builder imports keras inside the function, so importing this registry
is cheap and does not pull in TensorFlow or JAX. Builders use only Keras
layers and `keras.ops`, so they also build under `KERAS_BACKEND=jax`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The same seed for every sample so two captures of one sample match.
SEED = 1234


@dataclass(frozen=True)
class SampleModel:
    """A named builder; `large` marks models meant for benchmarks, not teaching."""

    name: str
    description: str
    builder: Callable[[], Any]
    large: bool = False

    def build(self) -> Any:
        """A fresh `keras.Model` with weights from the fixed seed."""
        import keras  # noqa: PLC0415 (Keras loads only when a sample is built)

        keras.utils.set_random_seed(SEED)
        return self.builder()


def _mnist_cnn():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(28, 28, 1), name="image")
    x = layers.Conv2D(8, 3, activation="relu", name="conv2d")(inputs)
    x = layers.MaxPooling2D(2, name="max_pooling2d")(x)
    x = layers.Flatten(name="flatten")(x)
    outputs = layers.Dense(10, activation="softmax", name="dense")(x)
    return keras.Model(inputs, outputs, name="mnist_cnn")


def _mlp():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(64,), name="features")
    x = layers.Dense(128, activation="relu", name="dense")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_1")(x)
    outputs = layers.Dense(10, name="logits")(x)
    return keras.Model(inputs, outputs, name="mlp")


def _lstm():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(16, 8), name="sequence")
    x = layers.LSTM(32, name="lstm")(inputs)
    outputs = layers.Dense(4, name="dense")(x)
    return keras.Model(inputs, outputs, name="lstm")


def _tiny_transformer():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    vocab, length, width, heads = 100, 16, 32, 2
    tokens = keras.Input(shape=(length,), dtype="int32", name="tokens")
    x = layers.Embedding(vocab, width, name="embedding")(tokens)
    attended = layers.MultiHeadAttention(heads, width // heads, name="attention")(x, x)
    x = layers.Add(name="residual_attention")([x, attended])
    x = layers.LayerNormalization(name="norm_attention")(x)
    hidden = layers.Dense(4 * width, activation="gelu", name="ffn_up")(x)
    hidden = layers.Dense(width, name="ffn_down")(hidden)
    x = layers.Add(name="residual_ffn")([x, hidden])
    x = layers.LayerNormalization(name="norm_ffn")(x)
    x = layers.GlobalAveragePooling1D(name="pool")(x)
    outputs = layers.Dense(vocab, name="logits")(x)
    return keras.Model(tokens, outputs, name="tiny_transformer")


def _resnet_block():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(16, 16, 16), name="image")
    x = layers.Conv2D(16, 3, padding="same", use_bias=False, name="conv_a")(inputs)
    x = layers.BatchNormalization(name="bn_a")(x)
    x = layers.ReLU(name="relu_a")(x)
    x = layers.Conv2D(16, 3, padding="same", use_bias=False, name="conv_b")(x)
    x = layers.BatchNormalization(name="bn_b")(x)
    x = layers.Add(name="residual")([inputs, x])
    outputs = layers.ReLU(name="relu_out")(x)
    return keras.Model(inputs, outputs, name="resnet_block")


def _depthwise():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(32, 32, 8), name="image")
    x = layers.DepthwiseConv2D(3, padding="same", use_bias=False, name="depthwise")(inputs)
    x = layers.BatchNormalization(name="bn_depthwise")(x)
    x = layers.ReLU(6.0, name="relu6_depthwise")(x)
    x = layers.Conv2D(16, 1, use_bias=False, name="pointwise")(x)
    x = layers.BatchNormalization(name="bn_pointwise")(x)
    outputs = layers.ReLU(6.0, name="relu6_pointwise")(x)
    return keras.Model(inputs, outputs, name="depthwise")


def _gru_tagger():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(6, 4), name="frames")
    x = layers.Conv1D(8, 3, padding="same", activation="relu", name="conv1d")(inputs)
    x = layers.BatchNormalization(name="batch_norm")(x)
    x = layers.Bidirectional(layers.GRU(8, return_sequences=True, name="gru"), name="bidirectional")(x)
    outputs = layers.Dense(5, name="dense")(x)
    return keras.Model(inputs, outputs, name="gru_tagger")


def _upsampler():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    inputs = keras.Input(shape=(8, 8, 4), name="image")
    x = layers.Conv2D(8, 3, padding="same", activation="relu", name="conv2d")(inputs)
    outputs = layers.Conv2DTranspose(4, 3, strides=2, padding="same", name="conv2d_transpose")(x)
    return keras.Model(inputs, outputs, name="upsampler")


def _resnet50():
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)

    return keras.applications.ResNet50(weights=None)


def transformer_encoder(blocks: int, width: int, heads: int, length: int, vocab: int, name: str):
    """A BERT-style encoder: embeddings, then `blocks` x (self-attention, add & norm, GELU FFN, add & norm).

    Layer names end in the block number (`mha_0`, `ffn1_0`, `ffn2_0`...), so a
    layer's block can be read from its name.
    """
    import keras  # noqa: PLC0415 (Keras loads only when a sample is built)
    from keras import layers  # noqa: PLC0415 (Keras loads only when a sample is built)

    tokens = keras.Input(shape=(length,), dtype="int32", name="tokens")
    x = layers.Embedding(vocab, width, name="token_embedding")(tokens)
    x = layers.LayerNormalization(epsilon=1e-12, name="embedding_norm")(x)
    for block in range(blocks):
        attended = layers.MultiHeadAttention(heads, width // heads, name=f"mha_{block}")(x, x)
        x = layers.Add(name=f"attention_residual_{block}")([x, attended])
        x = layers.LayerNormalization(epsilon=1e-12, name=f"attention_norm_{block}")(x)
        hidden = layers.Dense(4 * width, activation="gelu", name=f"ffn1_{block}")(x)
        hidden = layers.Dense(width, name=f"ffn2_{block}")(hidden)
        x = layers.Add(name=f"ffn_residual_{block}")([x, hidden])
        x = layers.LayerNormalization(epsilon=1e-12, name=f"ffn_norm_{block}")(x)
    pooled = layers.GlobalAveragePooling1D(name="pool")(x)
    pooled = layers.Dense(width, activation="tanh", name="pooler")(pooled)
    return keras.Model(tokens, pooled, name=name)


def _bert_base():
    # BERT-base's shape: 12 blocks of width 768, 12 heads, sequence 128 (30,522 WordPiece tokens).
    return transformer_encoder(blocks=12, width=768, heads=12, length=128, vocab=30522, name="bert_base")


SAMPLES: dict[str, SampleModel] = {
    sample.name: sample
    for sample in (
        SampleModel("mnist_cnn", "Conv2D, MaxPooling2D, Flatten, Dense: the classic first CNN", _mnist_cnn),
        SampleModel("mlp", "Three Dense layers: matrix multiplies and bias adds", _mlp),
        SampleModel("lstm", "An LSTM over 16 steps: becomes an XLA while loop", _lstm),
        SampleModel(
            "tiny_transformer",
            "Token embedding, multi-head attention, layer norm, GELU feed-forward",
            _tiny_transformer,
        ),
        SampleModel(
            "resnet_block", "Conv + BatchNormalization + residual Add (batch norm folds away)", _resnet_block
        ),
        SampleModel("depthwise", "MobileNet-style depthwise 3x3 then pointwise 1x1 convolution", _depthwise),
        SampleModel("gru_tagger", "Conv1D, BatchNormalization, a Bidirectional GRU per step, Dense: two while loops",
                    _gru_tagger),
        SampleModel("upsampler", "Conv2D, then Conv2DTranspose doubling the image: a convolution over its input",
                    _upsampler),
        SampleModel(
            "resnet50", "keras.applications.ResNet50, random weights (large: benchmarks)", _resnet50, large=True
        ),
        SampleModel(
            "bert_base", "A BERT-base-shaped encoder: 12 blocks x 768 wide, 12 heads, sequence 128 (large)",
            _bert_base, large=True,
        ),
    )
}
