"""Level 1: the Keras layers, with shapes at the captured batch, sizes and FLOP estimates.

Runs in the TF capture worker, and in the layers preview worker, which traces the same model on
Keras-on-JAX (`explorer.capture.jax_layers`) while TensorFlow still loads. Shapes and name scopes are
not read from the layers' configs but recorded while the model is really traced with the chosen
input signature (see `recording_layer_calls`), so they are the shapes and scopes TensorFlow and XLA
actually see (a JAX trace records no name scopes: they are TensorFlow's, and scopes.json comes with
the graph level).

FLOP estimates (one forward pass at the captured batch; a multiply-add counts
as 2 FLOPs; bias adds and activations are not counted):
    Dense                 2 * rows * in_features * units   (rows: all output dims but the last)
    Conv1D/2D/3D          2 * output_elements * prod(kernel_size) * in_channels / groups
    DepthwiseConv2D       2 * output_elements * prod(kernel_size)
    SeparableConv2D       depthwise: 2 * spatial * in_channels * multiplier * prod(kernel_size)
                          + pointwise: 2 * output_elements * in_channels * multiplier
    MultiHeadAttention    2 * B * (Tq*dq*H*Dk + Tk*dk*H*Dk + Tv*dv*H*Dv)   (Q, K, V projections)
                          + 2 * B * H * Tq * Tk * (Dk + Dv)                 (scores, weighted sum)
                          + 2 * B * Tq * H * Dv * d_out                     (output projection)
    BatchNormalization    2 * output_elements   (inference: folded to one multiply and one add)
    Max/AveragePooling    output_elements * prod(pool_size)   (one compare or add per window element)
    Global pooling        input_elements
Every other layer: None (no well-defined estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from math import prod
from typing import Any

from explorer.capture.model_inputs import structured_inputs
from explorer.capture.source_lines import called_at
from explorer.model.records import LayerRecord

Shape = tuple[int | None, ...]
# Keyword arguments that are not data flowing through the layer.
_NON_DATA_KWARGS = {"mask", "training"}


@dataclass(frozen=True)
class CallRecorder:
    """What recording a layer's call asks of the backend that traces it: the graph name scope the call
    runs under ("" where the backend has none), the tensors in a nested structure, and the bytes of one
    element of a dtype."""

    name_scope: Callable[[], str]
    flatten: Callable[[Any], list[Any]]
    itemsize: Callable[[Any], int]


def tensorflow_recorder() -> CallRecorder:
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return CallRecorder(lambda: tf.compat.v1.get_default_graph().get_name_scope(), tf.nest.flatten,
                        lambda dtype: tf.as_dtype(dtype).size)


@dataclass(frozen=True)
class LayerCall:
    """What one call of a layer looked like during tracing."""

    scope: str  # the TF graph name scope the call ran under, e.g. "mnist_cnn_1/conv2d_1"
    input_shapes: tuple[Shape, ...]
    output_shapes: tuple[Shape, ...]
    output_bytes: int


def iter_layers(model: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(path, layer) for every layer, nested models flattened depth first (the model itself included)."""
    for layer in getattr(model, "layers", ()):
        path = f"{prefix}{layer.name}"
        yield path, layer
        if _is_model(layer):
            yield from iter_layers(layer, prefix=f"{path}/")


def _is_model(layer: Any) -> bool:
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return isinstance(layer, keras.Model)


@contextmanager
def recording_layer_calls(model: Any, recorder: CallRecorder | None = None) -> Iterator[dict[str, list[LayerCall]]]:
    """Record every layer call (name scope, shapes) while the model is traced inside the block.

    Wraps each layer's `call` on the instance (Keras' `__call__` looks it up
    there) and restores the class method afterwards, so the model is unchanged.
    The graph name scope inside `call` is the one every op the layer creates
    gets: the exact link from op names (and HLO op_name metadata) to layers.
    `recorder`: the tracing backend's (TensorFlow's unless given).
    """
    recorder = recorder or tensorflow_recorder()
    calls: dict[str, list[LayerCall]] = {}

    def wrap(layer: Any):
        original = getattr(layer, called_method(layer))

        def recording_call(*args, **kwargs):
            scope = recorder.name_scope()
            outputs = original(*args, **kwargs)
            data = list(args) + [v for k, v in kwargs.items() if k not in _NON_DATA_KWARGS]
            out_tensors = _tensors(outputs, recorder)
            calls.setdefault(layer.name, []).append(
                LayerCall(
                    scope=scope,
                    input_shapes=tuple(_shape(t) for t in _tensors(data, recorder)),
                    output_shapes=tuple(_shape(t) for t in out_tensors),
                    output_bytes=sum(_tensor_bytes(t, recorder) for t in out_tensors),
                )
            )
            return outputs

        return recording_call

    wrapped = [layer for _, layer in iter_layers(model)]
    for layer in wrapped:
        # object.__setattr__: keep Keras' attribute tracker out of it.
        object.__setattr__(layer, called_method(layer), wrap(layer))
    try:
        yield calls
    finally:
        for layer in wrapped:
            layer.__dict__.pop(called_method(layer), None)


def called_method(layer: Any) -> str:
    """The method Keras's `__call__` runs: `call`, or `quantized_call` for a layer `model.quantize` changed
    (`--quantize int8`: Keras's Operation.__call__ dispatches on the layer's quantization mode)."""
    return "quantized_call" if getattr(layer, "quantization_mode", None) else "call"


def _tensors(structure: Any, recorder: CallRecorder) -> list[Any]:
    return [t for t in recorder.flatten(structure) if hasattr(t, "shape") and hasattr(t, "dtype")]


def _shape(tensor: Any) -> Shape:
    return tuple(None if d is None else int(d) for d in tensor.shape)


def _known(shape: Shape) -> tuple[int, ...] | None:
    """The shape when every dim is known, else None (a None batch dim has no size to count)."""
    dims = tuple(d for d in shape if d is not None)
    return dims if len(dims) == len(shape) else None


def _three(shape: Shape) -> tuple[int, int, int] | None:
    """A known rank-3 shape's dims (an attention input's batch, sequence and features), else None."""
    dims = _known(shape)
    if dims is None or len(dims) != 3:
        return None
    return dims[0], dims[1], dims[2]


def _tensor_bytes(tensor: Any, recorder: CallRecorder) -> int:
    dims = _known(_shape(tensor))
    if dims is None:
        return 0
    return prod(dims) * recorder.itemsize(tensor.dtype)


def trace_layer_calls(model: Any, signature: list[tuple[str, tuple[int, ...], str]]) -> dict[str, list[LayerCall]]:
    """Trace (not run) the model at the signature and return the recorded calls."""
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    specs = [tf.TensorSpec(shape, dtype, name=name) for name, shape, dtype in signature]
    function = tf.function(lambda *x: call_model(model, x))
    with recording_layer_calls(model) as calls:
        function.get_concrete_function(*specs)
    return calls


def call_model(model: Any, inputs: tuple[Any, ...]) -> Any:
    """Inference call; `inputs` in `model.inputs` order, passed in the structure the model was built on."""
    return model(structured_inputs(model, inputs), training=False)


def layer_records(
    model: Any,
    signature: list[tuple[str, tuple[int, ...], str]],
    calls: dict[str, list[LayerCall]] | None = None,
) -> list[LayerRecord]:
    """One record per layer (nested models flattened, containers included before their layers).

    `calls` from an earlier trace of the same model (`recording_layer_calls`)
    saves tracing again. A layer called several times (shared) shows its first
    call; InputLayers have no call and take their shape from the signature.
    """
    if calls is None:
        calls = trace_layer_calls(model, signature)
    inputs = {name: (shape, dtype) for name, shape, dtype in signature}
    records = []
    for path, layer in iter_layers(model):
        call = (calls.get(layer.name) or [None])[0]
        if call is None and layer.__class__.__name__ == "InputLayer" and layer.name in inputs:
            shape, dtype = inputs[layer.name]
            call = LayerCall("", (), (shape,), _shape_bytes(shape, dtype))
        records.append(_record(path, layer, call))
    return records


def _record(path: str, layer: Any, call: LayerCall | None) -> LayerRecord:
    trainable = sum(_variable_count(v) for v in layer.trainable_weights)
    non_trainable = sum(_variable_count(v) for v in layer.non_trainable_weights)
    return LayerRecord(
        name=layer.name,
        path=path,
        class_name=layer.__class__.__name__,
        input_shapes=call.input_shapes if call else (),
        output_shapes=call.output_shapes if call else (),
        dtype_policy=getattr(getattr(layer, "dtype_policy", None), "name", "") or "",
        trainable_params=trainable,
        non_trainable_params=non_trainable,
        weight_bytes=sum(_variable_bytes(v) for v in layer.weights),
        activation_bytes=call.output_bytes if call else 0,
        flops=estimate_flops(layer, call) if call else None,
        inbound=_inbound_layer_names(layer),
        called_at=called_at(layer),
    )


def _variable_count(variable: Any) -> int:
    return prod(int(d) for d in variable.shape)


def _variable_bytes(variable: Any) -> int:
    import numpy as np  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return _variable_count(variable) * np.dtype(_dtype_name(variable.dtype)).itemsize


def _dtype_name(dtype: Any) -> str:
    return getattr(dtype, "name", None) or str(dtype)


def _shape_bytes(shape: Shape, dtype: str) -> int:
    import numpy as np  # noqa: PLC0415 (the compiler loads in the capture worker only)

    dims = _known(shape)
    return prod(dims) * np.dtype(dtype).itemsize if dims is not None else 0


def _inbound_layer_names(layer: Any) -> tuple[str, ...]:
    """Layers whose outputs feed this one, from the functional graph's nodes (first seen first)."""
    names: list[str] = []
    for node in getattr(layer, "_inbound_nodes", ()):
        for parent in getattr(node, "parent_nodes", ()):
            name = getattr(parent.operation, "name", "")
            if name and name not in names:
                names.append(name)
    return tuple(names)


# --- FLOPs -------------------------------------------------------------------------


def estimate_flops(layer: Any, call: LayerCall) -> int | None:
    """FLOPs of one call by the formulas in the module docstring, or None."""
    class_name = layer.__class__.__name__
    out_shape = _known(call.output_shapes[0]) if call.output_shapes else None
    if out_shape is None:
        return None
    out_elements = prod(out_shape)
    if class_name == "Dense":
        in_features = int(layer.kernel.shape[0])
        return 2 * (out_elements // out_shape[-1]) * in_features * out_shape[-1]
    if class_name in ("Conv1D", "Conv2D", "Conv3D"):
        # kernel: (*kernel_size, in_channels / groups, filters)
        return 2 * out_elements * prod(int(d) for d in layer.kernel.shape[:-1])
    if class_name == "DepthwiseConv2D":
        kernel = layer.kernel if hasattr(layer, "kernel") else layer.depthwise_kernel
        return 2 * out_elements * prod(int(d) for d in kernel.shape[:-2])
    if class_name == "SeparableConv2D":
        *window, in_channels, multiplier = (int(d) for d in layer.depthwise_kernel.shape)
        filters = int(layer.pointwise_kernel.shape[-1])
        spatial = out_elements // filters
        depthwise_out = spatial * in_channels * multiplier
        return 2 * depthwise_out * prod(window) + 2 * out_elements * in_channels * multiplier
    if class_name == "MultiHeadAttention":
        return _attention_flops(layer, call.input_shapes, out_shape[-1])
    if class_name == "BatchNormalization":
        return 2 * out_elements
    if class_name.startswith(("MaxPooling", "AveragePooling")):
        return out_elements * prod(int(d) for d in layer.pool_size)
    if class_name.startswith(("GlobalMaxPooling", "GlobalAveragePooling")):
        in_shape = _known(call.input_shapes[0]) if call.input_shapes else None
        if in_shape is None:
            return None
        return prod(in_shape)
    return None


def _attention_flops(layer: Any, shapes: tuple[Shape, ...], d_out: int) -> int | None:
    """Query, value and (when given) key inputs, each known and rank 3; d_out: the output's features."""
    if len(shapes) < 2:
        return None
    query, value = _three(shapes[0]), _three(shapes[1])
    key = _three(shapes[2]) if len(shapes) > 2 else value
    if query is None or value is None or key is None:
        return None
    batch, t_q, d_q = query
    _, t_v, d_v = value
    _, t_k, d_k = key
    heads = int(getattr(layer, "num_heads", None) or layer._num_heads)
    key_dim = int(getattr(layer, "key_dim", None) or layer._key_dim)
    value_dim = int(getattr(layer, "value_dim", None) or getattr(layer, "_value_dim", None) or key_dim)
    projections = 2 * batch * (t_q * d_q * heads * key_dim + t_k * d_k * heads * key_dim
                               + t_v * d_v * heads * value_dim)
    attention = 2 * batch * heads * t_q * t_k * (key_dim + value_dim)
    output = 2 * batch * t_q * heads * value_dim * d_out
    return projections + attention + output
