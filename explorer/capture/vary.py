"""`--vary KEY=A,B`: two variants of one capture that differ in one option (`tensorweg diff`).

The keys are the capture options a learner changes to watch a compiler decision change; each
value becomes the option as the command line would give it, and both variants are checked by
`build_capture_options` before anything is captured, so a bad value captures and caches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.capture.option_table import CAPTURE_OPTIONS, Vary
from explorer.capture.option_values import VARY_OFF
from explorer.capture.options import build_capture_options
from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions

# Each key, how its values parse, and its option's field: the rows with a `vary`
# (explorer.capture.option_table), in the table's order.
VARY_KEYS: dict[str, tuple[Vary, str]] = {row.vary.key: (row.vary, row.field) for row in CAPTURE_OPTIONS
                                          if row.vary is not None}


@dataclass(frozen=True)
class Variant:
    label: str  # "batch=64", as the user wrote it
    options: CaptureOptions


def split_vary(text: str) -> tuple[str, list[str]]:
    """`KEY=A,B` -> (key, [A, B]); an xla-flag's pass list stays whole (`none,xla_disable_hlo_passes=fusion,cse`)."""
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or key not in VARY_KEYS:
        known = "; ".join(f"{name}: {vary.what}" for name, (vary, _) in VARY_KEYS.items())
        raise TensorwegError(f"bad --vary '{text}': expected KEY=A,B with a key the app knows ({known})")
    parts = [part.strip() for part in values.split(",")]
    if VARY_KEYS[key][0].lists:  # a word without '=' after a NAME=VALUE continues its list (of passes)
        merged: list[str] = []
        for part in parts:
            if merged and "=" in merged[-1] and "=" not in part and part.lower() not in VARY_OFF:
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
    vary, field = VARY_KEYS[key]
    built = []
    for value in values:
        options = {**base, field: vary.value(key, value, base)}
        if field == "mesh" and not options[field]:  # one chip divides nothing: --shard is the meshed variant's
            options.update(shard=None, layout_map=None)
        built.append(Variant(f"{key}={value}", build_capture_options(**options)))
    first, second = built
    if first.options.without_targets() == second.options.without_targets():
        raise TensorwegError(f"bad --vary '{text}': {values[0]} and {values[1]} are the same variant "
                             "(the same capture); vary something else")
    return first, second
