"""How one capture option's words become its value: the helpers the table's rows name.

`explorer.capture.option_table` says which option reads its words with which of these; they are
here, apart from the table, so that the table stays a list of rows. Each raises TensorwegError
(one line naming the option) for a word no capture could use. No argparse, no compiler.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from explorer.errors import TensorwegError
from explorer.model.records import MAX_INPUT_ELEMENTS

_SHAPE = re.compile(r"^([^=]+)=(\d+(?:[x,]\d+)*)$")
# `--vary KEY=A,B`'s words for off and on (`remat=off,on`, `mesh=none,2x2`).
VARY_OFF = ("none", "off", "no", "false", "0")
_VARY_ON = ("on", "yes", "true", "1")


def check_batch(batch: int) -> None:
    if batch < 1:
        raise TensorwegError(f"bad --batch {batch}: must be at least 1")


def split_targets(targets: str | Iterable[str]) -> tuple[str, ...]:
    """`--targets cpu,tpu:v5e` as written, or the names -> the names (checked when the capture starts)."""
    names = targets.split(",") if isinstance(targets, str) else targets
    return tuple(t.strip() for t in names if t.strip())


def parse_input_shapes(values: Iterable[str]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """`NAME=1x128` or `NAME=128` (repeatable) -> ((name, dims), ...).

    The dims may include the batch dim or not; the capture worker, which knows
    the input's rank, decides which (explorer.capture.tf_loading.input_signature).
    """
    shapes = []
    for value in values:
        match = _SHAPE.match(value.strip())
        if not match:
            raise TensorwegError(f"bad --input-shape '{value}': expected NAME=DIMxDIM..., e.g. image=1x224x224x3")
        dims = tuple(int(d) for d in re.split(r"[x,]", match.group(2)))
        if any(d <= 0 for d in dims):
            raise TensorwegError(f"bad --input-shape '{value}': dimensions must be positive")
        elements = 1
        for dim in dims:
            elements *= dim
        if elements > MAX_INPUT_ELEMENTS:
            raise TensorwegError(f"bad --input-shape '{value}': {elements:,} elements; "
                                 f"at most {MAX_INPUT_ELEMENTS:,} are captured")
        shapes.append((match.group(1).strip(), dims))
    return tuple(shapes)


def input_shape_words(shapes: tuple[tuple[str, tuple[int, ...]], ...]) -> list[str]:
    """The input shapes as `--input-shape` writes them: `x=8x4`, one per input."""
    return [f"{name}={'x'.join(str(d) for d in dims)}" for name, dims in shapes]


def input_shapes_request(shapes: tuple[tuple[str, tuple[int, ...]], ...]) -> dict[str, list[int]]:
    """The TensorFlow worker's `input_shapes`: {name: dims}."""
    return {name: list(dims) for name, dims in shapes}


def xla_flag_words(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    """The XLA flags as `--xla-flag` writes them: `xla_disable_hlo_passes=fusion`, one per flag."""
    return [f"{name}={value}" for name, value in pairs]


# --- `--vary KEY=A,B`: one value -> build_capture_options' argument ---------------------------------


def vary_as_given(key: str, value: str, base: Mapping[str, Any]) -> str:
    """The word itself (the option checks it: `mode=inference,train`)."""
    return value


def vary_whole_number(key: str, value: str, base: Mapping[str, Any]) -> int:
    if not value.isdigit():
        raise TensorwegError(f"bad --vary {key}=...: '{value}' is not a whole number")
    return int(value)


def vary_switch(key: str, value: str, base: Mapping[str, Any]) -> bool:
    if value.lower() not in VARY_OFF + _VARY_ON:
        raise TensorwegError(f"bad --vary {key}=...: '{value}' is not on or off")
    return value.lower() in _VARY_ON


def vary_or_empty(key: str, value: str, base: Mapping[str, Any]) -> str:
    """The word, or "" (the option not given) for `none` or `off`: `mesh=none,2x2`."""
    return "" if value.lower() in VARY_OFF else value


def vary_xla_flag(key: str, value: str, base: Mapping[str, Any]) -> list[str]:
    """One flag replacing the base's flag of the same name; `none` drops the base's flags."""
    if value.lower() in VARY_OFF:
        return []
    name = value.partition("=")[0]
    return [text for text in base.get("xla_flags", ()) if text.partition("=")[0] != name] + [value]
