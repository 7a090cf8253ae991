"""`--quantize int8` in the capture workers: the model as a deployment runs it, through Keras's own
`model.quantize(mode)` (Keras 3.15).

Keras quantizes the layers that have a `quantize` method (Dense, EinsumDense, Embedding: their kernel
becomes int8 with a float scale per output, their dtype policy `int8_from_float32`) and warns for each
other layer, which stays as trained (Conv2D, pooling, Flatten). A model none of whose layers Keras can
quantize is bad input: the variant would compile exactly the plain model. The quantized layers' dtype
policies travel in model.json to the other workers and in layers.json to the views
(`explorer.views.whatif.quantized`).
"""

from __future__ import annotations

import warnings
from typing import Any

from explorer.errors import TensorwegError
from explorer.model.records import QUANTIZATIONS


def quantized(model: Any, mode: str, kind: str) -> Any:
    """`model` with Keras's quantization applied in place (`mode` "" leaves it as it is)."""
    if not mode:
        return model
    if mode not in QUANTIZATIONS:  # the request comes over a pipe; the CLI checked it already
        raise TensorwegError(f"bad --quantize '{mode}': expected {' or '.join(QUANTIZATIONS)}")
    if kind == "savedmodel":
        raise TensorwegError(f"--quantize {mode} needs a Keras model: a SavedModel's graph has its weights fixed")
    layers = model._flatten_layers(include_self=False, recursive=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one warning per layer without a `quantize` method: said below instead
        model.quantize(mode)
    if not any(getattr(layer, "quantization_mode", None) for layer in layers):
        others = sorted({type(layer).__name__ for layer in layers if type(layer).__name__ != "InputLayer"})
        raise TensorwegError(f"--quantize {mode}: nothing to quantize in {model.name!r}: Keras quantizes none of "
                             f"its layers ({', '.join(others) or 'none'}); leave out --quantize")
    return model
