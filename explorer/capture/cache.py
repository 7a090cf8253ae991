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
from explorer.capture.option_table import CAPTURE_OPTIONS, Key
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


def _key_options(options: CaptureOptions) -> dict:
    """The options as the key names them, by each row's `key` (explorer.capture.option_table): one outside
    the key is there empty (`"targets": []`, as in every key since the first cache), and one added after
    bundles were first cached is left out at its default, so a plain capture keeps the key it had."""
    data = to_jsonable(options)
    plain = to_jsonable(CaptureOptions())
    for row in CAPTURE_OPTIONS:
        if row.key is Key.NO:
            data[row.field] = type(data[row.field])()
        elif row.key is Key.UNLESS_DEFAULT and data[row.field] == plain[row.field]:
            del data[row.field]
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
