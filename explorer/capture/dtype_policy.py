"""`--dtype POLICY` in the capture workers: every layer of the loaded model computes under one
Keras dtype policy (`float32`, `bfloat16`, `mixed_bfloat16`, `float16`, `mixed_float16`).

Keras decides a layer's dtypes when the layer is made: from its `dtype` argument, else from the
global policy. So the worker sets the global policy before the model is built (a sample's builder
and the sub-layers a layer makes for itself take it from there) and then rebuilds the loaded model
from its config with every layer's `dtype` replaced (a `.keras` file names each layer's policy,
which would win over the global one). Inputs keep their dtype: as under Keras's mixed precision,
a layer casts floating inputs to its compute dtype. Weights are not carried over: a capture only
compiles, and the compiled program depends on shapes and dtypes, not on values.
"""

from __future__ import annotations

from typing import Any

from explorer.errors import TensorwegError
from explorer.model.records import DTYPES


def set_global_policy(policy: str) -> None:
    """Before any layer is made (keras is imported here: the worker has set its backend by now)."""
    if not policy:
        return
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    keras.config.set_dtype_policy(_checked(policy))


def with_policy(model: Any, policy: str, kind: str) -> Any:
    """`model` rebuilt with every layer (but the inputs) under `policy`; the model itself if none."""
    if not policy:
        return model
    if kind == "savedmodel":
        raise TensorwegError(f"--dtype {policy} needs a Keras model: a SavedModel's graph has its dtypes fixed")
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    config = keras.saving.serialize_keras_object(model)
    return keras.saving.deserialize_keras_object(with_layer_dtypes(config, _checked(policy)))


def with_layer_dtypes(config: Any, policy: str) -> Any:
    """A copy of a serialised Keras object with each layer's `dtype` set to `policy` (pure data).

    A layer is a {"class_name": ..., "config": {..., "dtype": ...}} object; an InputLayer's dtype
    is its input's, kept as it is."""
    if isinstance(config, list):
        return [with_layer_dtypes(item, policy) for item in config]
    if not isinstance(config, dict):
        return config
    copied = {key: with_layer_dtypes(value, policy) for key, value in config.items()}
    inner = copied.get("config")
    if isinstance(inner, dict) and "dtype" in inner and copied.get("class_name") != "InputLayer":
        copied["config"] = {**inner, "dtype": policy}
    return copied


def _checked(policy: str) -> str:
    if policy not in DTYPES:  # the request comes over a pipe; the CLI checked it already
        raise TensorwegError(f"bad --dtype '{policy}': expected {' or '.join(DTYPES)}")
    return policy
