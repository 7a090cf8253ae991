"""graph.json: the graph level, each op's recorded Python lines kept once in a table.

The TensorFlow worker records, for every op a layer creates, the lines of its traceback
(`GraphOp.source`, explorer/capture/source_lines.py). The ops of one layer share most of them:
ResNet50's 867 computing ops carry 2,894 lines but only 43 different ones, and written inline they
were a third of graph.json (386 of 1,159 KB) and of its load time. The file keeps each distinct
line once, in `source_frames`, and each op's `source` as their numbers. A graph.json without the
table (written before it, like the committed tiny_convnet fixture) reads as it always did.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from explorer.errors import DataError
from explorer.model.records import GraphLevel, SourceLine
from explorer.model.serial import from_jsonable, load_json, to_jsonable, write_text_atomic

SOURCE_TABLE = "source_frames"
_OP_LISTS = ("ops", "optimized_ops")


def packed(data: dict[str, Any]) -> dict[str, Any]:
    """The graph level's JSON with every op's lines replaced by numbers into `source_frames`."""
    numbers: dict[str, int] = {}
    frames: list[Any] = []
    for key in _OP_LISTS:
        for op in data.get(key, ()):
            if not op.get("source"):
                continue
            refs = []
            for frame in op["source"]:
                seen = json.dumps(frame, sort_keys=True)
                if seen not in numbers:
                    numbers[seen] = len(frames)
                    frames.append(frame)
                refs.append(numbers[seen])
            op["source"] = refs
    if frames:
        data[SOURCE_TABLE] = frames
    return data


def _split(data: Any, refs: dict[tuple[str, int], list[int]], table: list[Any]) -> Any:
    """Take the table and each op's numbers out of graph.json's JSON (kept in `refs` and `table`);
    JSON without a table is returned as it is. DataError for a number that names no line."""
    if not isinstance(data, dict) or SOURCE_TABLE not in data:
        return data
    frames = data.pop(SOURCE_TABLE)
    if not isinstance(frames, list):
        raise DataError(f"{SOURCE_TABLE}: expected a list")
    table += frames
    for key in _OP_LISTS:
        ops = data.get(key, ())
        for at, op in enumerate(ops if isinstance(ops, list) else []):
            numbers = op.get("source") if isinstance(op, dict) else None
            if not numbers:
                continue
            if not isinstance(numbers, list) or not all(type(n) is int and 0 <= n < len(frames) for n in numbers):
                name = str(op.get("name", "?"))[:80]
                raise DataError(f"{key}: op {name!r}: source names no line of {SOURCE_TABLE}")
            refs[(key, at)] = numbers
            op["source"] = []
    return data


def dump_graph_level(level: GraphLevel, path: Path) -> None:
    write_text_atomic(path, json.dumps(packed(to_jsonable(level)), separators=(",", ":")))


def load_graph_level(path: Path, name: str = "") -> GraphLevel:
    """graph.json with or without the table; each distinct line is built once and shared by its ops
    (a ResNet50's graph.json loads in 66 ms building one per op's line, 50 ms sharing them)."""
    refs: dict[tuple[str, int], list[int]] = {}
    table: list[Any] = []
    level = load_json(GraphLevel, path, name, prepare=lambda data: _split(data, refs, table))
    if not refs:
        return level
    try:
        lines = from_jsonable(tuple[SourceLine, ...], table)
    except DataError as exc:
        raise DataError(f"{name or path.name}: {SOURCE_TABLE}: {exc}") from None
    lists = {key: list(getattr(level, key)) for key in _OP_LISTS}
    for (key, at), numbers in refs.items():
        lists[key][at] = replace(lists[key][at], source=tuple(lines[n] for n in numbers))
    return replace(level, **{key: tuple(ops) for key, ops in lists.items()})
