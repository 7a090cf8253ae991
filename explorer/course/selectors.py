"""A tour's selectors (`select=layer:dense kind:fusion`): what they say, and which item meets them.

A step's `select=` and an `ask: select=` question both use them; the items they are checked on are
`Candidate`s, as `explorer.course.lessons.tour_candidates` describes a level's rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Condition:
    """One part of a selector: `kind` is "name", "layer" or "kind"."""

    kind: str
    value: str


@dataclass(frozen=True)
class Selection:
    """What a step selects: every condition must hold; the first matching item wins."""

    conditions: tuple[Condition, ...]
    text: str  # as written, for messages


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
