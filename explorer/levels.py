"""The levels a model is shown at: the one definition every module imports.

Top to bottom: `layers` -> `graph` (the TensorFlow graph; CPU only) -> `hlo` ->
`optimized-hlo` -> `kernels`; `memory` is the optimized level's buffer map,
beside the list levels rather than below them. Levels whose data belongs to
one target (`per_target`) live under `targets/<target>/` in a bundle.

This module imports nothing, so the UI can read it before its first frame.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """name: as the CLI, bundles, tours and the UI spell it.
    per_target: its data belongs to one compilation target (`cpu`, `tpu:v5e`...).
    listed: it has a list of items (a layer, op, instruction or kernel per row)."""

    name: str
    per_target: bool
    listed: bool = True


LAYERS, GRAPH, HLO, OPTIMIZED_HLO, KERNELS, MEMORY = (
    Level("layers", False), Level("graph", False), Level("hlo", True), Level("optimized-hlo", True),
    Level("kernels", True), Level("memory", True, listed=False),
)
ALL = (LAYERS, GRAPH, HLO, OPTIMIZED_HLO, KERNELS, MEMORY)

LEVELS = tuple(level.name for level in ALL)
# The levels with an item list, in the order the keys 1-5 reach them.
LIST_LEVELS = tuple(level.name for level in ALL if level.listed)
TARGET_LEVELS = tuple(level.name for level in ALL if level.per_target)
TARGET_INDEPENDENT_LEVELS = tuple(level.name for level in ALL if not level.per_target)
HLO_LEVELS = (HLO.name, OPTIMIZED_HLO.name)
# The levels drawn as graphs (`g`, `tensorweg graph`): kernels are compiled functions, not a graph.
GRAPH_LEVELS = (LAYERS.name, GRAPH.name, *HLO_LEVELS)
# One step down the vertical trace (the list levels in order) and back up; the last level has none
# below it, so the shifted copy is one shorter on purpose.
NEXT_DOWN = dict(zip(LIST_LEVELS, LIST_LEVELS[1:], strict=False))
NEXT_UP = {below: above for above, below in NEXT_DOWN.items()}


def is_hlo(level: str) -> bool:
    return level in HLO_LEVELS


def target_key(level: str, target: str) -> str:
    """The target a level's data is keyed by: "" for the target-free levels."""
    return target if level in TARGET_LEVELS else ""
