"""Which other variants of the open model the cache holds: the diff screen's choices.

A sibling is a cached bundle of the same model (its identity's hash) with other capture options and
the target asked for; its label says what it compiles differently (`batch 64`, `dtype bfloat16`).
Reading a few manifests is all this does; a damaged bundle is passed over.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.capture.cache import cache_root
from explorer.capture.options import option_differences
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle, read_manifest


@dataclass(frozen=True)
class VariantChoice:
    label: str
    path: Path


def cached_variants(bundle: Bundle, target: str, root: Path | None = None) -> tuple[VariantChoice, ...]:
    """The cache's other variants of `bundle`'s model that have `target`, by label."""
    folder = (root or cache_root()) / "bundles"
    own = bundle.manifest
    found: dict[str, VariantChoice] = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else ():
        try:
            manifest = read_manifest(path)
        except (TensorwegError, OSError):
            continue
        if not own.model.sha256 or (manifest.model.sha256, manifest.model.kind, manifest.model.name) != (
                own.model.sha256, own.model.kind, own.model.name):
            continue
        differences = option_differences(own.options, manifest.options)
        if differences and target in manifest.options.targets:
            found.setdefault(", ".join(differences), VariantChoice(", ".join(differences), path))
    return tuple(found[label] for label in sorted(found))
