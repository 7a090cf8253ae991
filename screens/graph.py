"""Level 2: the TensorFlow graph ops a traced call of the model produced."""

from __future__ import annotations

from pathlib import Path

from screens.drawn_graph_screen import DrawnGraphScreen


def _producer(input_name: str) -> str:
    """`conv/ReadVariableOp:0` or `^dep` -> the producing op's name."""
    return input_name.lstrip("^").split(":", 1)[0]


class GraphScreen(DrawnGraphScreen):
    LEVEL = "graph"
    CSS_PATH = Path(__file__).with_suffix(".tcss")

    def graph_edges(self) -> list[tuple[str, str]]:
        bundle = self.tensorweg.bundle
        if bundle is None or bundle.graph is None:
            return []
        return [(_producer(i), op.name) for op in bundle.graph.ops for i in op.inputs]
