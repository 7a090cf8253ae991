"""`--vary KEY=A,B`: two variants of one capture that differ in one option (`tensorweg diff`).

The keys are the capture options a learner changes to watch a compiler decision change; each
value becomes the option as the command line would give it, and both variants are checked by
`build_capture_options` before anything is captured, so a bad value captures and caches nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explorer.capture.options import build_capture_options
from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions

_OFF = ("none", "off", "no", "false", "0")
_ON = ("on", "yes", "true", "1")


def _whole_number(key: str, value: str) -> int:
    if not value.isdigit():
        raise TensorwegError(f"bad --vary {key}=...: '{value}' is not a whole number")
    return int(value)


def _switch(key: str, value: str) -> bool:
    if value.lower() not in _OFF + _ON:
        raise TensorwegError(f"bad --vary {key}=...: '{value}' is not on or off")
    return value.lower() in _ON


def _or_empty(key: str, value: str) -> str:
    return "" if value.lower() in _OFF else value


def _xla_flags(base: dict[str, Any], value: str) -> list[str]:
    """One flag replacing the base's flag of the same name; `none` drops the base's flags."""
    if value.lower() in _OFF:
        return []
    name = value.partition("=")[0]
    return [text for text in base.get("xla_flags", ()) if text.partition("=")[0] != name] + [value]


@dataclass(frozen=True)
class VaryKey:
    """A key of `--vary`: build_capture_options' keyword and how one value becomes its argument."""

    keyword: str
    convert: Callable[[str, str], Any]
    what: str


VARY_KEYS: dict[str, VaryKey] = {
    "batch": VaryKey("batch", _whole_number, "the batch size, e.g. batch=1,64"),
    "dtype": VaryKey("dtype", lambda key, value: value, "a Keras dtype policy, e.g. dtype=float32,bfloat16"),
    "mode": VaryKey("mode", lambda key, value: value, "inference or a training step: mode=inference,train"),
    "optimizer": VaryKey("optimizer", lambda key, value: value, "the training step's optimizer: optimizer=sgd,adam"),
    "remat": VaryKey("remat", _switch, "train mode: rematerialise every layer, remat=off,on"),
    "remat-layers": VaryKey("remat_layers", _or_empty,
                            "train mode: rematerialise matching layers, remat-layers=none,conv"),
    "donate": VaryKey("donate", _switch, "train mode: donate the step's arguments, donate=on,off"),
    "mesh": VaryKey("mesh", _or_empty, "one chip or a mesh (--shard or --layout-map divides the meshed one): "
                                       "mesh=none,2x2"),
    "xla-flag": VaryKey("xla_flags", lambda key, value: value,
                        "an XLA flag the app knows: xla-flag=none,xla_disable_hlo_passes=fusion"),
}


@dataclass(frozen=True)
class Variant:
    label: str  # "batch=64", as the user wrote it
    options: CaptureOptions


def split_vary(text: str) -> tuple[str, list[str]]:
    """`KEY=A,B` -> (key, [A, B]); an xla-flag's pass list stays whole (`none,xla_disable_hlo_passes=fusion,cse`)."""
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or key not in VARY_KEYS:
        known = "; ".join(f"{name}: {entry.what}" for name, entry in VARY_KEYS.items())
        raise TensorwegError(f"bad --vary '{text}': expected KEY=A,B with a key the app knows ({known})")
    parts = [part.strip() for part in values.split(",")]
    if key == "xla-flag":  # a word without '=' after a NAME=VALUE continues its list of passes
        merged: list[str] = []
        for part in parts:
            if merged and "=" in merged[-1] and "=" not in part and part.lower() not in _OFF:
                merged[-1] += f",{part}"
            else:
                merged.append(part)
        parts = merged
    if any(not part for part in parts):
        raise TensorwegError(f"bad --vary '{text}': an empty value")
    if len(parts) != 2:
        raise TensorwegError(f"bad --vary '{text}': diff compares two variants; give two values, KEY=A,B "
                             f"(got {len(parts)})")
    return key, parts


def variants(text: str, base: dict[str, Any]) -> tuple[Variant, Variant]:
    """The two checked variants of `--vary text` over `base` (build_capture_options' keywords).

    Raises TensorwegError (one line) for an unknown key, a value count other than two, a value the
    option refuses, or two values that make the same capture."""
    key, values = split_vary(text)
    entry = VARY_KEYS[key]
    built = []
    for value in values:
        argument = _xla_flags(base, value) if key == "xla-flag" else entry.convert(key, value)
        options = {**base, entry.keyword: argument}
        if key == "mesh" and not argument:  # one chip divides nothing: --shard is the meshed variant's
            options.update(shard=None, layout_map=None)
        built.append(Variant(f"{key}={value}", build_capture_options(**options)))
    first, second = built
    if first.options.without_targets() == second.options.without_targets():
        raise TensorwegError(f"bad --vary '{text}': {values[0]} and {values[1]} are the same variant "
                             "(the same capture); vary something else")
    return first, second
