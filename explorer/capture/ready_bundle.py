"""A cached bundle that can be opened as it is: the explorer's fast path for a model it has seen.

Opening a model the cache holds whole needs no worker, no growth plan and no events: the app reads
the bundle straight away, as it reads a bundle folder, while Textual builds the first screen. This
module answers only "is it there, whole and clean?" without importing the orchestrator and the
capture machinery behind it (a tenth of the start-up time to the rows). Anything less than a clean
hit (a level missing or failed, a target that compiled nothing, options the orchestrator would
refuse) is None, and the caller takes the orchestrator's path, which says what is wrong or captures
what is missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from explorer.capture.cache import cached_bundle_path
from explorer.capture.model_source import ModelSource, resolve
from explorer.capture.placement import reusable, wanted_levels
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.model.sharding import check_mesh_options
from explorer.targets import parse_targets


def settled_cached_bundle(spec: str, options: CaptureOptions, source: ModelSource | None = None) -> Bundle | None:
    """The cache's bundle of `spec` when every level `options` asks for is settled there (captured, or
    failed with the compiler's reason: `placement.reusable`), else None. `source`: `spec` resolved
    already (its file hashed), else resolved here."""
    return reusable(cached_bundle_path(source or resolve(spec), options), options)


def ready_cached_bundle(spec: str, options: CaptureOptions, source: ModelSource | None = None) -> Path | None:
    """The cache's bundle of `spec` with every level `options` asks for captured and none failed;
    None otherwise (including bad input: the orchestrator's path reports it in its own words)."""
    try:
        options = replace(options, targets=parse_targets(",".join(options.targets)))
        check_mesh_options(options)
        bundle = settled_cached_bundle(spec, options, source)
    except TensorwegError:
        return None
    if bundle is None:
        return None
    clean = all(bundle.manifest.status(level, target).status == "ok" for target, level in wanted_levels(options))
    return bundle.path if clean else None


def partly_cached_bundle(spec: str, options: CaptureOptions, source: ModelSource | None = None) -> Path | None:
    """The cache's bundle of `spec` when it is not whole for `options` but shows its first screen: the
    layers captured (a model cached for cpu, opened with the default targets). The app opens it at
    once and captures the rest behind its rows; the capture grows this same bundle (the cache's key
    leaves the targets out). None otherwise, bad input included (the orchestrator's path reports it)."""
    try:
        bundle = Bundle.open(cached_bundle_path(source or resolve(spec), options))
    except TensorwegError:
        return None
    layers = bundle.manifest.status("layers", "")
    return bundle.path if layers.status == "ok" and (bundle.path / "layers.json").is_file() else None
