"""Level 1: the Keras layers, as the model defines them."""

from __future__ import annotations

from pathlib import Path

from screens.drawn_graph_screen import DrawnGraphScreen


class LayersScreen(DrawnGraphScreen):
    LEVEL = "layers"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    HELP = (
        "Level 1, Keras layers: the model as you wrote it. Each row is one layer with its output "
        "shape and parameter count. Enter goes down to the TensorFlow ops the layer was traced into; "
        "g draws the layer's neighbours (+/- changes how far)."
    )

    def graph_edges(self) -> list[tuple[str, str]]:
        bundle = self.tensorweg.bundle
        if bundle is None:
            return []
        return [(source, layer.name) for layer in bundle.layers for source in layer.inbound]
