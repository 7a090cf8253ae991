"""Dataclasses to JSON and back, driven by type hints.

Bundles store parsed data as JSON; this keeps the records plain frozen
dataclasses (no serialisation code in each) while tuples, optionals and nested
records come back as the right types.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def to_jsonable(value: Any) -> Any:
    """Convert a dataclass tree to lists, dicts and scalars."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


@lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_jsonable(cls: Any, data: Any) -> Any:
    """Build an instance of `cls` (a type hint) from `to_jsonable` output."""
    if data is None:
        return None
    origin = typing.get_origin(cls)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(cls) if a is not type(None)]
        if len(options) == 1:
            return from_jsonable(options[0], data)
        for option in options:  # e.g. int | str: take the first that fits
            if isinstance(option, type) and isinstance(data, option):
                return data
        return data
    if origin is tuple:
        args = typing.get_args(cls)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_jsonable(args[0], v) for v in data)
        return tuple(from_jsonable(a, v) for a, v in zip(args, data))
    if origin is list:
        (arg,) = typing.get_args(cls)
        return [from_jsonable(arg, v) for v in data]
    if origin is dict:
        _, value_type = typing.get_args(cls)
        return {k: from_jsonable(value_type, v) for k, v in data.items()}
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        hints = _hints(cls)
        kwargs = {
            f.name: from_jsonable(hints[f.name], data[f.name])
            for f in dataclasses.fields(cls)
            if f.name in data
        }
        return cls(**kwargs)
    if cls is float and isinstance(data, int):
        return float(data)
    return data


def dump_json(value: Any, path: Path) -> None:
    path.write_text(json.dumps(to_jsonable(value), separators=(",", ":")), encoding="utf-8")


def load_json(cls: type[T], path: Path) -> T:
    return from_jsonable(cls, json.loads(path.read_text(encoding="utf-8")))
