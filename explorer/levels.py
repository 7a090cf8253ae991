"""The levels a model is shown at: one table, and the questions every module asks of a level.

Top to bottom: `layers` -> `graph` (the TensorFlow graph; CPU only) -> `hlo` ->
`optimized-hlo` -> `kernels`; `memory` is the optimized level's buffer map,
beside the list levels rather than below them. Levels whose data belongs to
one target (`per_target`) live under `targets/<target>/` in a bundle.

A level travels as its name (the CLI's `--level`, a bundle's manifest, a tour's
`level=`, `--json`); code asks the table about it (`level_named(name).optimized`),
never compares the name with a spelling of its own (tests/test_level_names.py).

This module imports nothing, so the UI can read it before its first frame.
"""

from __future__ import annotations

from dataclasses import dataclass

# What one item of a level is (`Level.holds`): the model's layers, the TensorFlow graph's ops, the
# target's program as lowered for its compiler (HLO, TVM's Relax as imported) and after the compiler's
# passes (optimized HLO, TVM's fused TIR functions), the compiled kernels, the optimized program's buffers.
_HOLDS = ("layers", "ops", "lowered", "optimized", "kernels", "buffers")


@dataclass(frozen=True)
class Level:
    """One level (a row of `ALL`).

    name: as the CLI, bundles, tours and the UI spell it; its labels are `level.<name>` (its title)
        and `help.<name>` (its screen's help).
    key: the app's key that shows it; binding: that key's binding id (`binding.<id>`, `tooltip.<id>`).
    file: its data in a bundle (under `targets/<target>/` when `per_target`).
    holds: what one item is (see `_HOLDS`); ask the properties below rather than this.
    per_target: its data belongs to one compilation target (`cpu`, `tpu:v5e`...).
    listed: it has a list of items (a layer, op, instruction or kernel per row).
    drawn: it is drawn as a graph (`g`, `tensorweg graph`); kernels are compiled functions, not a graph.
    """

    name: str
    key: str
    binding: str
    file: str
    holds: str
    per_target: bool
    listed: bool = True
    drawn: bool = False

    def __post_init__(self) -> None:
        if self.holds not in _HOLDS:
            raise ValueError(f"level {self.name}: holds {self.holds!r}, expected one of {_HOLDS}")

    @property
    def title_key(self) -> str:
        return f"level.{self.name}"

    @property
    def help_key(self) -> str:
        return f"help.{self.name}"

    @property
    def lists_layers(self) -> bool:
        """Its items are the model's layers: each item is its own layer, the top of every trace."""
        return self.holds == "layers"

    @property
    def compiled(self) -> bool:
        """Made by a compiler (TensorFlow's tracing and Grappler count), not read off the Keras model."""
        return not self.lists_layers

    @property
    def lists_ops(self) -> bool:
        """Its items are the TensorFlow graph's ops."""
        return self.holds == "ops"

    @property
    def cpu_only(self) -> bool:
        """Captured once, by TensorFlow on the CPU: Keras-on-JAX targets never saw it, so their
        trace skips it (a layer leads to its HLO directly)."""
        return self.lists_ops

    @property
    def is_hlo(self) -> bool:
        """Its items are a module's instructions (TVM: Relax bindings or TIR functions)."""
        return self.lowered or self.optimized

    @property
    def lowered(self) -> bool:
        """The target's program as lowered for its compiler, before any pass (the HLO module)."""
        return self.holds == "lowered"

    @property
    def optimized(self) -> bool:
        """The target's program after the compiler's passes (the optimized HLO module)."""
        return self.holds == "optimized"

    @property
    def lists_kernels(self) -> bool:
        """Its items are the compiled kernels (TVM: the compiled TIR functions)."""
        return self.holds == "kernels"

    @property
    def maps_buffers(self) -> bool:
        """Its items are the optimized program's buffers (allocations by index): a map, not a list."""
        return self.holds == "buffers"

    @property
    def from_program(self) -> bool:
        """Its items belong to one target's program (instructions, Relax bindings, kernels), which
        answers for their trace, rather than the cross-level index."""
        return self.per_target and self.listed

    @property
    def down(self) -> Level | None:
        """One step down the vertical trace (None at the bottom and beside it)."""
        return _BY_NAME[NEXT_DOWN[self.name]] if self.name in NEXT_DOWN else None

    @property
    def up(self) -> Level | None:
        """One step up the vertical trace (None at the top and beside it)."""
        return _BY_NAME[NEXT_UP[self.name]] if self.name in NEXT_UP else None


LAYERS, GRAPH, HLO, OPTIMIZED_HLO, KERNELS, MEMORY = ALL = (
    Level("layers", "1", "app.level1", "layers.json", "layers", per_target=False, drawn=True),
    Level("graph", "2", "app.level2", "graph.json", "ops", per_target=False, drawn=True),
    Level("hlo", "3", "app.level3", "hlo.txt", "lowered", per_target=True, drawn=True),
    Level("optimized-hlo", "4", "app.level4", "optimized_hlo.txt", "optimized", per_target=True, drawn=True),
    Level("kernels", "5", "app.level5", "kernels.json", "kernels", per_target=True),
    Level("memory", "m", "app.memory", "memory.json", "buffers", per_target=True, listed=False),
)
_BY_NAME = {level.name: level for level in ALL}

LEVELS = tuple(level.name for level in ALL)
# The levels with an item list, in the order the keys 1-5 reach them.
LIST_LEVELS = tuple(level.name for level in ALL if level.listed)
TARGET_LEVELS = tuple(level.name for level in ALL if level.per_target)
TARGET_INDEPENDENT_LEVELS = tuple(level.name for level in ALL if not level.per_target)
HLO_LEVELS = tuple(level.name for level in ALL if level.is_hlo)
# The levels drawn as graphs (`g`, `tensorweg graph`).
GRAPH_LEVELS = tuple(level.name for level in ALL if level.drawn)
# One step down the vertical trace (the list levels in order) and back up; the last level has none
# below it, so the shifted copy is one shorter on purpose.
NEXT_DOWN = dict(zip(LIST_LEVELS, LIST_LEVELS[1:], strict=False))
NEXT_UP = {below: above for above, below in NEXT_DOWN.items()}


def level_named(name: str) -> Level:
    """The level a name spells; KeyError for a name no level has (names are checked where they
    come in: the CLI's choices, the manifest, a tour's `level=`)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown level {name!r} (levels: {', '.join(LEVELS)})") from None


def hlo_level(optimized: bool) -> Level:
    """The level of a target's HLO module: before the compiler's passes, or after them."""
    return OPTIMIZED_HLO if optimized else HLO


def is_hlo(level: str) -> bool:
    return level in HLO_LEVELS


def target_key(level: str, target: str) -> str:
    """The target a level's data is keyed by: "" for the target-free levels."""
    return target if level in TARGET_LEVELS else ""
