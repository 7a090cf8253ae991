"""The layers level traced on Keras-on-JAX, for the layers preview worker (`layers_preview_worker`).

TensorFlow takes about twice as long to import as Keras on JAX (4.2-4.9 s against 2.1 s on the
development machine), and a model nobody captured showed no rows until it had. The same model, built
by the same loader, is traced here at the same signature: the rows are the real model's layers, with
the shapes, parameters and FLOPs the TensorFlow worker records (`tf_layers.layer_records`), minus the
name scopes, which are TensorFlow's and come with the graph level (scopes.json). The TensorFlow
worker's layers.json replaces this one when it is written.

Everything runs under `jax.eval_shape`, so nothing is compiled or computed: the weights' initializers
and the layers' calls are traced for their shapes only (building the model eagerly compiled its random
initializers: 2.4-3.6 s of XLA for mnist_cnn's four weights). Imports JAX and Keras inside the
function: the worker sets the backend first.
"""

from __future__ import annotations

from typing import Any

from explorer.capture.tf_layers import CallRecorder, call_model, layer_records, recording_layer_calls
from explorer.capture.tf_loading import input_signature, load_model
from explorer.model.records import LayerRecord


def previewed_layer_records(spec: str, cwd: str | None, batch: int,
                            input_shapes: dict[str, tuple[int, ...]]) -> list[LayerRecord]:
    """The layers level of `spec` at `batch` (and `input_shapes`), traced on Keras-on-JAX without
    computing anything. Raises what loading raises (`TensorwegError` for bad input)."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)
    import jax.numpy as jnp  # noqa: PLC0415 (as jax)
    import keras  # noqa: PLC0415 (as jax)
    import numpy as np  # noqa: PLC0415 (as jax)

    recorder = CallRecorder(lambda: "", keras.tree.flatten, lambda dtype: np.dtype(dtype).itemsize)
    records: list[LayerRecord] = []

    def traced() -> Any:
        model, _ = load_model(spec, cwd=cwd)
        signature = input_signature(model, batch, input_shapes)
        with recording_layer_calls(model, recorder) as calls:
            call_model(model, tuple(jnp.zeros(shape, dtype) for _, shape, dtype in signature))
        records.extend(layer_records(model, signature, calls))
        return jnp.zeros(())  # eval_shape needs an array back; the records are what counts

    jax.eval_shape(traced)
    return records
