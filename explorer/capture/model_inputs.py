"""Model inputs in the structure the model's `call` expects (both capture workers use it).

A functional model built on a dict of inputs (every keras_hub backbone) wants a
dict back; `model.inputs` (the order of a signature) lists them flattened, dict
keys sorted. Passing that flat list fails in Keras ("The structure of `inputs`
doesn't match the expected structure").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def structured_inputs(model: Any, flat: Sequence[Any]) -> Any:
    """`flat` (in `model.inputs` order) packed as the model was built: a tensor, a list or a dict."""
    structure = getattr(model, "_inputs_struct", None)
    if structure is None:  # Sequential and subclassed models: one input, or a list
        return flat[0] if len(flat) == 1 else list(flat)
    from keras import tree  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return tree.pack_sequence_as(structure, list(flat))
