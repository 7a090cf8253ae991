"""`--layout-map FILE`: which weight is split over which mesh axis, read from a small TOML or JSON file.

The file is untrusted data, never code: a table of layer-path regular expressions, each mapped
to one entry per weight dimension, a mesh axis name or null (TOML has no null: "" there),
the keys and values of a `keras.distribution.LayoutMap`:

    {"dense/kernel": [null, "model"], "dense/bias": ["model"]}

Pure: the file is checked here before any worker starts; the checks that need the model's
weights (`assign`) run in the JAX worker, which builds the real Keras LayoutMap from the
result (explorer.capture.jax_mesh). Every problem is one line naming the file and the key.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from explorer.errors import TensorwegError
from explorer.model.sharding import MESH_AXES

# A layout map names a few layers; anything bigger is not a layout map.
MAX_FILE_BYTES = 64 * 1024
MAX_RULES = 256
MAX_PATTERN_CHARS = 200

Axes = tuple[str | None, ...]
Rules = tuple[tuple[str, Axes], ...]


class LayoutMapError(TensorwegError):
    """A layout map file that cannot be used, with the file's name in the message."""


def load_layout_map(path: Path) -> Rules:
    """The file's rules, in file order; raises LayoutMapError (one line) for anything else."""
    name = path.name
    if not path.exists():
        raise LayoutMapError(f"bad --layout-map {name}: no such file")
    if not path.is_file():
        raise LayoutMapError(f"bad --layout-map {name}: not a file (a directory?)")
    try:
        data = path.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise LayoutMapError(f"bad --layout-map {name}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise LayoutMapError(f"bad --layout-map {name}: larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LayoutMapError(f"bad --layout-map {name}: not UTF-8 text") from None
    return parse_layout_map(text, name)


def parse_layout_map(text: str, name: str) -> Rules:
    """Rules from TOML or JSON text (by the file's suffix; any other name may be either)."""
    table = _decode(text, name)
    if not isinstance(table, dict) or not table:
        raise LayoutMapError(f"bad --layout-map {name}: expected a table of "
                             f'"LAYER-PATH-REGEX": [AXIS or null per dimension]')
    if len(table) > MAX_RULES:
        raise LayoutMapError(f"bad --layout-map {name}: {len(table)} keys; at most {MAX_RULES}")
    return tuple((_pattern(name, key), _axes(name, key, value)) for key, value in table.items())


def _decode(text: str, name: str) -> object:
    suffix = Path(name).suffix.lower()
    if suffix != ".toml":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            if suffix == ".json":
                raise LayoutMapError(f"bad --layout-map {name}: not valid JSON "
                                     f"(line {exc.lineno}: {exc.msg})") from None
        except RecursionError:
            raise LayoutMapError(f"bad --layout-map {name}: nested too deeply") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        what = "not valid TOML" if suffix == ".toml" else "neither JSON nor TOML"
        raise LayoutMapError(f"bad --layout-map {name}: {what} ({exc})") from None


def _pattern(name: str, key: str) -> str:
    if not key or len(key) > MAX_PATTERN_CHARS:
        raise LayoutMapError(f"bad --layout-map {name}: key {key[:40]!r}: a regular expression of "
                             f"1 to {MAX_PATTERN_CHARS} characters expected")
    try:
        re.compile(key)
    except re.error as exc:
        raise LayoutMapError(f"bad --layout-map {name}: key {key!r} is not a regular expression ({exc})") from None
    return key


def _axes(name: str, key: str, value: object) -> Axes:
    if not isinstance(value, list) or not value:
        hint = " (in TOML, quote a key with dots or slashes)" if isinstance(value, dict) else ""
        raise LayoutMapError(f"bad --layout-map {name}: key {key!r}: expected a list with one mesh axis "
                             f"or null per dimension{hint}")
    axes: list[str | None] = []
    for entry in value:
        if entry is None or entry == "":
            axes.append(None)
        elif isinstance(entry, str) and entry in MESH_AXES:
            if entry in axes:
                raise LayoutMapError(f"bad --layout-map {name}: key {key!r}: axis {entry!r} used twice")
            axes.append(entry)
        else:
            raise LayoutMapError(f"bad --layout-map {name}: key {key!r}: unknown mesh axis {str(entry)[:40]!r} "
                                 f"(the mesh's axes: {', '.join(MESH_AXES)}, or null)")
    return tuple(axes)


def assign(name: str, rules: Rules, weights: Sequence[tuple[str, tuple[int, ...]]],
           sizes: Mapping[str, int]) -> dict[str, Axes]:
    """Each weight path a rule matches -> its axes, checked against the model: the same lookup as
    `keras.distribution.LayoutMap` (an exact key, else `re.search`; two matching keys are an error),
    and every key must match a weight whose rank it has and whose split dimensions divide evenly."""
    found: dict[str, Axes] = {}
    used: set[str] = set()
    for path, shape in weights:
        hits = [(pattern, axes) for pattern, axes in rules if pattern == path]
        hits = hits or [(pattern, axes) for pattern, axes in rules if re.search(pattern, path)]
        if len(hits) > 1:
            raise LayoutMapError(f"bad --layout-map {name}: weight {path!r} matches both "
                                 f"{hits[0][0]!r} and {hits[1][0]!r}")
        if not hits:
            continue
        pattern, axes = hits[0]
        used.add(pattern)
        if len(axes) != len(shape):
            raise LayoutMapError(f"bad --layout-map {name}: key {pattern!r} has {len(axes)} entries but weight "
                                 f"{path!r} has {len(shape)} dimensions {list(shape)}")
        for dim, (size, axis) in enumerate(zip(shape, axes, strict=True)):
            if axis is not None and size % sizes[axis]:
                raise LayoutMapError(f"bad --layout-map {name}: key {pattern!r}: dimension {dim} of {path!r} "
                                     f"({size}) does not divide over the {sizes[axis]} chips of {axis!r}")
        found[path] = axes
    unused = [pattern for pattern, _axes in rules if pattern not in used]
    if unused:
        known = ", ".join(path for path, _ in weights[:8]) + (", ..." if len(weights) > 8 else "")
        raise LayoutMapError(f"bad --layout-map {name}: key {unused[0]!r} matches no weight (weights: {known})")
    return found

