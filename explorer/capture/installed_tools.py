"""The tools a capture's contents depend on, and their installed versions (part of the cache key).

Light on purpose: opening a cached model reads the versions on the start-up path, beside Textual
building its first screen. `importlib.metadata` (which imports the `email` package to parse every
distribution's METADATA) took ~20 ms there; the version is also in the name of the
`NAME-VERSION.dist-info` folder a wheel installs, so one directory listing per `sys.path` entry
answers for all of them. A distribution found any other way (an `.egg-info`, an egg, a zip on the
path, another finder) is asked of `importlib.metadata`, so the answer, and the cache key, stay the same.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from importlib.machinery import PathFinder

# (tool, the distribution whose wheel holds it): explorer.capture.sass runs them.
TOOL_WHEELS = (
    ("ptxas", "nvidia-cuda-nvcc-cu12"),
    ("cuobjdump", "nvidia-cuda-cuobjdump"),
    ("nvdisasm", "nvidia-cuda-nvdisasm"),
)

# Distributions whose versions change what a capture contains.
TOOL_DISTRIBUTIONS = (
    "tensorweg", "tensorflow", "keras", "jax", "jaxlib", "libtpu",
    "jax-cuda12-plugin", "jax-cuda12-pjrt",
    *(wheel for _, wheel in TOOL_WHEELS),  # ptxas and cuobjdump: the SASS of GPU kernels
)

NOT_INSTALLED = "not installed"
_SEPARATORS = re.compile(r"[-_.]+")


@lru_cache(maxsize=1)
def tool_versions() -> tuple[tuple[str, str], ...]:
    """(distribution, installed version or "not installed") of each of TOOL_DISTRIBUTIONS."""
    versions = installed_versions(TOOL_DISTRIBUTIONS)
    return tuple((name, versions[name]) for name in TOOL_DISTRIBUTIONS)


def normalise(name: str) -> str:
    """A distribution's name as `importlib.metadata` files it: lowercase, runs of -_. as one _."""
    return _SEPARATORS.sub("_", name).lower()


def installed_versions(names: tuple[str, ...]) -> dict[str, str]:
    """name -> the version `importlib.metadata.version(name)` gives, or "not installed"."""
    wanted = {normalise(name): name for name in names}
    found, unsure = ({}, set(wanted)) if _other_finders() else _scan_path(frozenset(wanted))
    versions = {wanted[key]: version for key, version in found.items()}
    for key in unsure:
        versions[wanted[key]] = _metadata_version(wanted[key])
    return {name: versions.get(name, NOT_INSTALLED) for name in names}


def _scan_path(wanted: frozenset[str]) -> tuple[dict[str, str], set[str]]:
    """The versions in wanted's `.dist-info` folder names, searched as `importlib.metadata` searches
    (`sys.path` in order, the first folder naming a distribution wins), and the names to ask it
    about: found first as something else, or not searched for (a path entry that is no directory)."""
    found: dict[str, str] = {}
    unsure: set[str] = set()
    for entry in sys.path:
        left = wanted - found.keys() - unsure
        if not left:
            break
        root = entry or "."
        if root.lower().endswith(".egg"):  # an egg's EGG-INFO: importlib.metadata reads it
            unsure |= left
            break
        try:
            children = os.listdir(root)
        except NotADirectoryError:  # a zip on the path
            unsure |= left
            break
        except OSError:  # not there: importlib.metadata finds nothing in it either
            continue
        for child in children:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            stem = child.rpartition(".")[0]
            name, _, version = stem.partition("-")
            key = normalise(name)
            if key not in left or key in found or key in unsure:
                continue
            if low.endswith(".dist-info") and version:
                found[key] = version
            else:
                unsure.add(key)
    return found, unsure


def _other_finders() -> bool:
    """Whether a finder besides the path's can list distributions: importlib.metadata asks each in
    turn, so only it can say which answers first."""
    return any(finder is not PathFinder and hasattr(finder, "find_distributions") for finder in sys.meta_path)


def _metadata_version(name: str) -> str:
    from importlib import metadata  # noqa: PLC0415 (start-up: imports the email package; only when the folder names do not answer)

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED
