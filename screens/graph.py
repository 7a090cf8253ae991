"""Level 2: the TensorFlow graph ops a traced call of the model produced."""

from __future__ import annotations

from screens.drawn_graph_view import DrawnGraphView


class GraphView(DrawnGraphView):
    LEVEL = "graph"
