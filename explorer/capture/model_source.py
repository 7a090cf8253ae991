"""What the user named as MODEL, classified without importing a compiler.

The CLI and the UI need to know, before any worker starts, whether MODEL is a
file, a SavedModel directory, a sample or `module:function`, and a content
hash for the cache key. Loading happens later, in the TensorFlow worker.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import TensorwegError

_MODULE_FUNCTION = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_MODEL_SUFFIXES = (".keras", ".h5", ".hdf5")


@dataclass(frozen=True)
class ModelSource:
    """spec: what the worker receives; kind: sample, keras, h5, savedmodel, function."""

    spec: str
    kind: str
    display: str
    content_hash: str


def names_code(spec: str) -> bool:
    """Whether `spec` names Python to import and run (`module:function`) rather than a file or a sample."""
    return bool(_MODULE_FUNCTION.match(spec)) and not Path(spec).expanduser().exists()


def sample_names() -> tuple[str, ...]:
    from sample_models import SAMPLES  # noqa: PLC0415 (the registry loads only when a sample is named)

    return tuple(SAMPLES)


def resolve(spec: str) -> ModelSource:
    """Classify `spec`; raise TensorwegError with one clear line when it names nothing usable."""
    path = Path(spec).expanduser()
    if path.is_dir():
        if not (path / "saved_model.pb").is_file() and not (path / "saved_model.pbtxt").is_file():
            raise TensorwegError(f"{path.name}: directory is not a SavedModel (no saved_model.pb)")
        return ModelSource(str(path.resolve()), "savedmodel", path.name, _hash_directory(path))
    if path.is_file():
        kind = "h5" if path.suffix.lower() in (".h5", ".hdf5") else "keras"
        try:
            digest = _hash_file(path)
        except OSError as exc:
            raise TensorwegError(f"{path.name}: cannot read ({exc.strerror or exc})") from None
        return ModelSource(str(path.resolve()), kind, path.name, digest)
    if spec in sample_names():
        return ModelSource(spec, "sample", spec, _hash_sample(spec))
    if _MODULE_FUNCTION.match(spec):
        return ModelSource(spec, "function", spec, _hash_module(spec))
    if path.suffix.lower() in _MODEL_SUFFIXES or "/" in spec or "\\" in spec:
        raise TensorwegError(f"{spec}: no such file or directory")
    raise TensorwegError(
        f"unknown model '{spec}': not a file, a SavedModel directory, module:function, "
        f"or a sample ({', '.join(sample_names())})"
    )


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hash_directory(path: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode())
        digest.update(_hash_file(file).encode())
    return digest.hexdigest()


def _hash_sample(name: str) -> str:
    """A sample is identified by its name and the source of the builders."""
    import sample_models  # noqa: PLC0415 (the registry loads only when a sample is named)

    digest = hashlib.sha256(name.encode())
    for file in sorted(Path(sample_models.__file__).parent.glob("*.py")):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _hash_module(spec: str) -> str:
    module_name = spec.split(":", 1)[0]
    digest = hashlib.sha256(spec.encode())
    origin = _module_file(module_name)
    if origin is None:
        raise TensorwegError(f"{spec}: module '{module_name}' not found")
    digest.update(origin.read_bytes())
    return digest.hexdigest()


def _module_file(dotted: str) -> Path | None:
    """The file of a module, searched like the worker will (the installed environment,
    then the current directory last), without importing it or its packages (that
    would run the user's code here)."""
    cwd = os.getcwd()
    search = [*(p for p in sys.path if p and os.path.abspath(p) != cwd), cwd]
    found = None
    for part in dotted.split("."):
        try:
            found = importlib.machinery.PathFinder.find_spec(part, search)
        except (ImportError, ValueError):
            return None
        if found is None:
            return None
        search = list(found.submodule_search_locations or [])
    if found is None or not found.origin or not Path(found.origin).is_file():
        return None
    return Path(found.origin)
