"""Level 1: the Keras layers, as the model defines them."""

from __future__ import annotations

from pathlib import Path

from screens.drawn_graph_screen import DrawnGraphScreen


class LayersScreen(DrawnGraphScreen):
    LEVEL = "layers"
    CSS_PATH = Path(__file__).with_suffix(".tcss")

    def graph_edges(self) -> list[tuple[str, str]]:
        bundle = self.tensorweg.bundle
        if bundle is None:
            return []
        return [(source, layer.name) for layer in bundle.layers for source in layer.inbound]
