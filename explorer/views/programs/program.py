"""`TargetProgram`: what the views ask of one target's compiled program (the seam; see the package's
docstring). Its own module, so the implementations can name it without importing the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from explorer.model.records import LevelStatus
    from explorer.views.graphs.parts import LevelGraph
    from explorer.views.items import LevelItem, RowGroup
    from explorer.views.programs.target_layer import TargetLayer


class TargetProgram(Protocol):
    """What one compiler made of the model for one target, at the levels the learner knows.

    `level` is one of `hlo`, `optimized-hlo`, `kernels` (`explanation_keys` also takes `memory`);
    `name` is an item's name at that level, as `rows` lists it. Answers for a name the program
    does not have are empty ("", (), frozenset()).
    """

    target: str
    no_layer_text: str  # what `inspect` says for an item no layer owns ("created by XLA")

    def rows(self, level: str, lang: str) -> tuple[LevelItem, ...]:
        """The level's list in display order (name, cells, kind, line of the level's text)."""
        ...

    def row_groups(self, level: str, lang: str) -> dict[str, RowGroup]:
        """The foldable groups over `rows` by key, in list order ({} for a flat list)."""
        ...

    def graph(self, level: str) -> LevelGraph:
        """The `hlo` or `optimized-hlo` level as a graph (what `tensorweg graph` writes); a
        TensorwegError where the compiler's program is not drawn as one."""
        ...

    def selector_items(self, level: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The items a tour step's `select=` picks from, with the kinds `kind:` matches (docs/tours.md)."""
        ...

    def layer_of(self, level: str, name: str) -> str:
        """The Keras layer owning the item ("" when the compiler made it)."""
        ...

    def items_for_layer(self, layer: str, level: str) -> tuple[str, ...]:
        """The level's items computing (part of) `layer`, in program order."""
        ...

    def down(self, level: str, name: str) -> tuple[str, ...]:
        """The items one level lower implementing `name` (Enter)."""
        ...

    def up(self, level: str, name: str) -> tuple[str, ...]:
        """The items one level higher that `name` implements (Backspace)."""
        ...

    def same_shape_below(self, level: str, name: str, below: str, found: tuple[str, ...]) -> tuple[str, ...]:
        """Of `found` (what `down` gave at `below`), those holding `name`'s result shape; () to keep all."""
        ...

    def does_no_work(self, level: str, name: str) -> bool:
        """Plumbing (a view, an input, a constant) that Enter passes over for an item doing work."""
        ...

    def kind(self, level: str, name: str) -> str:
        """What the item is in its compiler's words: an opcode, a kernel kind, a Relax op, `fusion`."""
        ...

    def work(self, level: str, name: str) -> frozenset[str]:
        """The heavy work the item does, in XLA's opcodes (`convolution`, `dot`, `reduce`...): the one
        vocabulary `t` compares across compilers."""
        ...

    def counterpart(self, level: str, name: str, source: TargetProgram, layer: str) -> str:
        """The item here nearest to `name` on `source` (the `t` key), following `layer` when given."""
        ...

    def explanation_keys(self, level: str, name: str) -> list[tuple[str, ...]]:
        """The course keys of the item, one group per text, most specific first."""
        ...

    def optimized_captured(self, status: LevelStatus) -> bool:
        """Whether the optimized level (`status`, not failed) is there for the device pane to show."""
        ...

    def target_layer(self, layer: str) -> TargetLayer:
        """`layer` on this target: the comparison's column and the device pane's lines."""
        ...

    def summary_figures(self, from_shapes: bool) -> dict[str, Any]:
        """The whole-model `TargetSummary` fields the program gives (`fusion_count`, FLOPs, estimate);
        `from_shapes`: count FLOPs and bytes from shapes, the compiler's cost analysis has none."""
        ...

    def level_data(self, level: str) -> dict[str, Any]:
        """The `hlo` or `optimized-hlo` items of `tensorweg inspect --json` (docs/inspect-json.md)."""
        ...

    def level_text(self, level: str) -> str:
        """The `hlo` or `optimized-hlo` level of `tensorweg inspect` as text."""
        ...
