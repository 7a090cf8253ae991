"""The manifest of a capture's staging bundle: written after every level and once more on commit.

The staging directory stays a readable bundle while the workers fill it (the UI shows each level as
soon as it lands), so its `manifest.json` is rewritten with every level's outcome: the model's
identity (the name the TensorFlow worker found, else the spec as given), the options, the tool
versions, the per-level statuses and the model's inputs (`signature.json`, once the worker wrote it).
"""

from __future__ import annotations

from pathlib import Path

from explorer.capture.cache import tool_versions
from explorer.capture.model_source import ModelSource
from explorer.errors import TensorwegError
from explorer.model.bundle import MANIFEST, SCHEMA_VERSION
from explorer.model.records import CaptureOptions, LevelStatus, Manifest, ModelIdentity
from explorer.model.serial import dump_json, load_json

# The model's inputs, (name, shape, dtype) each, as the TensorFlow worker writes them.
SIGNATURE_FILE = "signature.json"
Signature = list[tuple[str, tuple[int, ...], str]]


def write_manifest(staging: Path, source: ModelSource, options: CaptureOptions,
                   identity: ModelIdentity | None, statuses: dict[tuple[str, str], LevelStatus]) -> None:
    """`staging/manifest.json` for `statuses` so far; an OSError (a full disk) passes to the caller."""
    name = identity.name if identity else source.display
    manifest = Manifest(
        schema_version=SCHEMA_VERSION,
        model=ModelIdentity(spec=source.display, kind=source.kind, name=name, sha256=source.content_hash),
        options=options,
        tools=tool_versions(),
        levels=tuple((t, lvl, st) for (t, lvl), st in sorted(statuses.items())),
        inputs=_inputs(staging),
    )
    dump_json(manifest, staging / MANIFEST)


def staged_identity(staging: Path) -> ModelIdentity | None:
    """The identity the TensorFlow worker wrote (`identity.json`); None before it has, or when it is damaged."""
    path = staging / "identity.json"
    if not path.is_file():
        return None
    try:
        return load_json(ModelIdentity, path)
    except TensorwegError:
        return None


def _inputs(staging: Path) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    path = staging / SIGNATURE_FILE
    if not path.is_file():
        return ()
    try:
        return tuple(load_json(Signature, path))
    except TensorwegError:
        return ()
