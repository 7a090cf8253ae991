"""Guided tours: a plain-text format (docs/tours.md), its parser, and the built-in lessons.

Built-in lessons are the `*.tour` files in this package.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from explorer.course.tours.parser import (
    Condition,
    Selection,
    Tour,
    TourStep,
    parse_selection,
    parse_tour,
    read_tour_file,
)
from explorer.errors import TensorwegError

__all__ = [
    "TWINS", "Candidate", "Condition", "Selection", "Tour", "TourStep", "builtin_tour", "builtin_tours",
    "load_tour", "meets", "parse_selection", "parse_tour", "resolve_selection",
]


# Each English lesson and its German twin: they visit the same items in the same order,
# so a class can follow one lesson in either language (tests/test_course_texts.py checks it).
TWINS: dict[str, str] = {
    "basics": "grundlagen",
    "graph_optimisation": "graph_optimierung",
    "matrix_work_cpu_gpu_tpu": "matrix_cpu_gpu_tpu",
    "memory_and_work": "speicher",
    "tensor_to_registers": "tensor_bis_register",
    "two_compilers": "zwei_compiler",
    "while_loop": "while_schleife",
}


@dataclass(frozen=True)
class Candidate:
    """An item a step may select, described the way selectors see it.

    kinds: e.g. ("Conv2D",) for a layer, ("Conv2D",) for a graph op type,
        ("fusion", "kOutput") for an HLO fusion, ("library",) for a kernel.
    layer: the Keras layer the item belongs to ("" when XLA created it).
    """

    name: str
    kinds: tuple[str, ...] = ()
    layer: str = ""


def resolve_selection(selection: Selection, candidates: Iterable[Candidate]) -> str | None:
    """The name of the first candidate (in the level's display order) meeting every condition."""
    for candidate in candidates:
        if meets(selection, candidate):
            return candidate.name
    return None


def meets(selection: Selection, candidate: Candidate) -> bool:
    """Whether `candidate` meets every condition of `selection` (also how `ask: select=` is checked)."""
    return all(_holds(condition, candidate) for condition in selection.conditions)


def _holds(condition: Condition, candidate: Candidate) -> bool:
    if condition.kind == "name":
        return candidate.name == condition.value
    if condition.kind == "layer":
        return candidate.layer == condition.value or (not candidate.layer and candidate.name == condition.value)
    return condition.value in candidate.kinds


def load_tour(path: Path) -> Tour:
    """Parse an instructor's tour file (its file name is named in error messages)."""
    return parse_tour(read_tour_file(path, path.name), path.name)


@cache
def _builtin() -> tuple[tuple[str, Tour], ...]:
    root = resources.files("explorer.course.tours")
    found = []
    for entry in sorted(root.iterdir(), key=lambda t: t.name):
        if entry.name.endswith(".tour"):
            found.append((entry.name[: -len(".tour")], parse_tour(entry.read_text(encoding="utf-8"), entry.name)))
    return tuple(found)


def builtin_tours(lang: str | None = None) -> list[tuple[str, Tour]]:
    """(name, tour) for every built-in lesson, optionally only one language's."""
    return [(name, tour) for name, tour in _builtin() if lang is None or tour.lang == lang]


def builtin_tour(name: str) -> Tour:
    for found, tour in _builtin():
        if found == name:
            return tour
    names = ", ".join(n for n, _ in _builtin())
    raise TensorwegError(f"unknown tour '{name}' (try: {names})")
