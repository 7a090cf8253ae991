"""Level 2: the TensorFlow graph ops a traced call of the model produced."""

from __future__ import annotations

from pathlib import Path

from screens.drawn_graph_screen import DrawnGraphScreen


class GraphScreen(DrawnGraphScreen):
    LEVEL = "graph"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
