"""Per-user cache of capture bundles.

A bundle is reused when the model's bytes, the capture options and the
compiler versions are all the same; the key covers exactly those, so a
cache hit opens without starting a compiler. The targets are not part of the
key: one bundle per model and options grows by the targets asked for
(explorer.capture.growth), so a capture for one more target compiles only that one.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from platformdirs import user_cache_dir

from explorer.capture.installed_tools import tool_versions
from explorer.capture.model_source import ModelSource
from explorer.model.bundle import SCHEMA_VERSION
from explorer.model.records import CaptureOptions
from explorer.model.serial import to_jsonable

__all__ = ["cache_key", "cache_root", "cached_bundle_path", "tool_versions"]


def cache_root() -> Path:
    """`$TENSORWEG_CACHE_DIR`, else the platform's user cache directory (XDG on Linux)."""
    override = os.environ.get("TENSORWEG_CACHE_DIR")
    if override:
        return Path(override)

    return Path(user_cache_dir("tensorweg"))


# Options added after bundles were first cached: at their default they stay out of the key, so a
# plain capture keeps the key (and the cached bundle) it had before they existed.
_LATER_OPTIONS = ("dtype", "remat_layers", "xla_flags", "donate")


def _key_options(options: CaptureOptions) -> dict:
    data = to_jsonable(options.without_targets())
    plain = to_jsonable(CaptureOptions())
    for name in _LATER_OPTIONS:
        if data[name] == plain[name]:
            del data[name]
    return data


def cache_key(source: ModelSource, options: CaptureOptions) -> str:
    payload = {
        "schema": SCHEMA_VERSION,
        "kind": source.kind,
        "model": source.content_hash,
        "options": _key_options(options),
        "tools": tool_versions(),
    }
    text = json.dumps(payload, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cached_bundle_path(source: ModelSource, options: CaptureOptions) -> Path:
    return cache_root() / "bundles" / cache_key(source, options)
