"""Dataclasses to JSON and back, driven by type hints.

Bundles store parsed data as JSON; this keeps the records plain frozen
dataclasses (no serialisation code in each) while tuples, optionals and nested
records come back as the right types.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import types
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from explorer.errors import DataError

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


def from_jsonable(cls: Any, data: Any, where: str = "") -> Any:
    """Build an instance of `cls` (a type hint) from `to_jsonable` output.

    Data that does not fit the hint (a string where a number belongs, a missing
    field, a list that should be an object) raises `DataError` naming where, so a
    damaged file reads as one clear line instead of failing later, elsewhere.
    """
    try:
        return _build(cls, data)
    except _Mismatch as mismatch:
        raise DataError(f"{_path_text(where, reversed(mismatch.path))}: {mismatch.reason}") from None


class _Mismatch(Exception):
    """Raised deep inside `_build`; each level on the way out adds its key (no cost when data fits)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str | int] = []


def _build(cls: Any, data: Any) -> Any:
    origin = typing.get_origin(cls)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(cls)
        if data is None and type(None) in options:
            return None
        options = [a for a in options if a is not type(None)]
        if len(options) == 1:
            return _build(options[0], data)
        for option in options:  # e.g. int | str: take the first that fits
            if isinstance(option, type) and _is_scalar(option, data):
                return data
        raise _mismatch(" or ".join(_type_name(o) for o in options), data)
    if origin is tuple:
        args = typing.get_args(cls)
        items = _expect(list, data)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build_items(args[0], items))
        if len(items) != len(args):
            raise _Mismatch(f"expected {len(args)} items, found {len(items)}")
        return tuple(_build_each(args, items))
    if origin is list:
        (arg,) = typing.get_args(cls)
        return _build_items(arg, _expect(list, data))
    if origin is dict:
        key_type, value_type = typing.get_args(cls)
        built = {}
        for key, value in _expect(dict, data).items():
            try:
                built[_build(key_type, key)] = _build(value_type, value)
            except _Mismatch as mismatch:
                mismatch.path.append(key)
                raise
        return built
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        mapping = _expect(dict, data)
        kwargs = {}
        for name, hint, required in _fields(cls):
            if name in mapping:
                try:
                    kwargs[name] = _build(hint, mapping[name])
                except _Mismatch as mismatch:
                    mismatch.path.append(name)
                    raise
            elif required:
                mismatch = _Mismatch("missing")
                mismatch.path.append(name)
                raise mismatch
        return cls(**kwargs)
    if cls in (str, int, float, bool):
        if not _is_scalar(cls, data):
            raise _mismatch(_type_name(cls), data)
        return float(data) if cls is float else data
    return data


def _build_items(cls: Any, items: list) -> list:
    built = []
    for index, item in enumerate(items):
        try:
            built.append(_build(cls, item))
        except _Mismatch as mismatch:
            mismatch.path.append(index)
            raise
    return built


def _build_each(classes: tuple, items: list) -> list:
    built = []
    for index, (cls, item) in enumerate(zip(classes, items)):
        try:
            built.append(_build(cls, item))
        except _Mismatch as mismatch:
            mismatch.path.append(index)
            raise
    return built


@lru_cache(maxsize=None)
def _fields(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """(name, type hint, required) per field of a dataclass."""
    hints = _hints(cls)
    return tuple(
        (f.name, hints[f.name], f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        for f in dataclasses.fields(cls)
    )


def _is_scalar(cls: type, data: Any) -> bool:
    if cls is float:
        return isinstance(data, (int, float)) and not isinstance(data, bool)
    if cls is int:
        return isinstance(data, int) and not isinstance(data, bool)
    return isinstance(data, cls)


def _expect(kind: type, data: Any) -> Any:
    if not isinstance(data, kind):
        raise _mismatch("an object" if kind is dict else "a list", data)
    return data


def _mismatch(expected: str, data: Any) -> _Mismatch:
    found = "null" if data is None else {dict: "an object", list: "a list"}.get(type(data), type(data).__name__)
    return _Mismatch(f"expected {expected}, found {found}")


def _type_name(cls: Any) -> str:
    return "null" if cls is type(None) else getattr(cls, "__name__", str(cls))


def _path_text(where: str, path) -> str:
    text = where
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or "value"


def write_text_atomic(path: Path, text: str) -> None:
    """Write under a temporary name beside `path`, then rename: readers never see half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def dump_json(value: Any, path: Path) -> None:
    write_text_atomic(path, json.dumps(to_jsonable(value), separators=(",", ":")))


def load_json(cls: type[T], path: Path, name: str = "") -> T:
    """Read `path` as `cls`; DataError (naming `name`, else the file name) when unreadable or malformed."""
    name = name or path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{name}: not UTF-8 text") from None
    except RecursionError:
        raise DataError(f"{name}: nested too deeply") from None
    except ValueError as exc:
        raise DataError(f"{name}: not valid JSON ({exc.__class__.__name__} at line {getattr(exc, 'lineno', '?')})") from None
    except OSError as exc:
        raise DataError(f"{name}: cannot read ({exc.strerror or exc.__class__.__name__})") from None
    try:
        return from_jsonable(cls, data)
    except DataError as exc:
        raise DataError(f"{name}: {exc}") from None
    except RecursionError:
        raise DataError(f"{name}: nested too deeply") from None
