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
from functools import cache
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


@cache
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
    return _builder(cls)(data)


@cache
def _builder(cls: Any):
    """A function building `cls` (a type hint) from JSON data, made once per hint.

    Deciding what a hint means once, not once per value, is what makes reading a
    large bundle fast (NASNetMobile's TPU module: 21,000 instructions).
    """
    origin = typing.get_origin(cls)
    if origin in (typing.Union, types.UnionType):
        return _union_builder(typing.get_args(cls))
    if origin is tuple:
        args = typing.get_args(cls)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _builder(args[0])
            return lambda data: tuple(_build_items(item, _expect(list, data)))
        return _fixed_tuple_builder(args)
    if origin is list:
        (arg,) = typing.get_args(cls)
        item = _builder(arg)
        return lambda data: _build_items(item, _expect(list, data))
    if origin is dict:
        return _dict_builder(*typing.get_args(cls))
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        return _record_builder(cls)
    if cls in (str, int, float, bool):
        return _scalar_builder(cls)
    return lambda data: data


def _scalar_builder(cls: type):
    if cls is float:
        def number(data):
            if not _is_scalar(float, data):
                raise _mismatch("float", data)
            return float(data)
        return number

    def scalar(data):
        if type(data) is not cls and not _is_scalar(cls, data):  # bool is an int subclass, not an int
            raise _mismatch(_type_name(cls), data)
        return data
    return scalar


def _union_builder(options: tuple):
    nullable = type(None) in options
    options = tuple(a for a in options if a is not type(None))
    if len(options) == 1:
        inner = _builder(options[0])
        return (lambda data: None if data is None else inner(data)) if nullable else inner

    def union(data):
        if data is None and nullable:
            return None
        for option in options:  # e.g. int | str: take the first that fits
            if isinstance(option, type) and _is_scalar(option, data):
                return data
        raise _mismatch(" or ".join(_type_name(o) for o in options), data)
    return union


def _fixed_tuple_builder(args: tuple):
    builders = None  # resolved at the first call, like a record's fields

    def fixed(data):
        nonlocal builders
        if builders is None:
            builders = tuple(_builder(arg) for arg in args)
        items = _expect(list, data)
        if len(items) != len(builders):
            raise _Mismatch(f"expected {len(builders)} items, found {len(items)}")
        built = []
        for index, (build, item) in enumerate(zip(builders, items, strict=True)):  # lengths checked above
            try:
                built.append(build(item))
            except _Mismatch as mismatch:
                mismatch.path.append(index)
                raise
        return tuple(built)
    return fixed


def _dict_builder(key_type: Any, value_type: Any):
    def mapping(data):
        key_of, value_of = _builder(key_type), _builder(value_type)
        built = {}
        for key, value in _expect(dict, data).items():
            try:
                built[key_of(key)] = value_of(value)
            except _Mismatch as mismatch:
                mismatch.path.append(key)
                raise
        return built
    return mapping


def _record_builder(cls: type):
    fields = None  # resolved at the first call: a record may hold itself (Shape.tuple_shapes)

    def record(data):
        nonlocal fields
        if fields is None:
            fields = tuple((name, _builder(hint), required) for name, hint, required in _fields(cls))
        mapping = _expect(dict, data)
        kwargs = {}
        for name, build, required in fields:
            if name in mapping:
                try:
                    kwargs[name] = build(mapping[name])
                except _Mismatch as mismatch:
                    mismatch.path.append(name)
                    raise
            elif required:
                mismatch = _Mismatch("missing")
                mismatch.path.append(name)
                raise mismatch
        return cls(**kwargs)
    return record


def _build_items(build, items: list) -> list:
    built = []
    for index, item in enumerate(items):
        try:
            built.append(build(item))
        except _Mismatch as mismatch:
            mismatch.path.append(index)
            raise
    return built


@cache
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


def load_json(cls: type[T], path: Path, name: str = "", prepare: typing.Callable[[Any], Any] | None = None) -> T:
    """Read `path` as `cls`; DataError (naming `name`, else the file name) when unreadable or malformed.
    `prepare` turns the parsed JSON into `cls`'s form first (graph.json's table of lines)."""
    name = name or path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{name}: not UTF-8 text") from None
    except RecursionError:
        raise DataError(f"{name}: nested too deeply") from None
    except ValueError as exc:
        line = getattr(exc, "lineno", "?")
        raise DataError(f"{name}: not valid JSON ({exc.__class__.__name__} at line {line})") from None
    except OSError as exc:
        raise DataError(f"{name}: cannot read ({exc.strerror or exc.__class__.__name__})") from None
    try:
        return from_jsonable(cls, prepare(data) if prepare is not None else data)
    except DataError as exc:
        raise DataError(f"{name}: {exc}") from None
    except RecursionError:
        raise DataError(f"{name}: nested too deeply") from None
