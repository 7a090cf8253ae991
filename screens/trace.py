"""Moving one item up and down the levels (the vertical trace).

The linking itself is `explorer.index.CrossIndex` (built from the bundle by
`Bundle.index`); this adapter adds what the screens need on top: lists
instead of tuples, and for Keras-on-JAX targets (which never saw the
TensorFlow graph) the step from a graph op to HLO goes through its layer.
"""

from __future__ import annotations

from explorer.bundle import Bundle
from explorer.errors import TensorwegError
from explorer.index import build_index

# An index with nothing in it, for the moments before anything is captured.
_EMPTY = build_index([], None, {}, {}, {})

NEXT_DOWN = {"layers": "graph", "graph": "hlo", "hlo": "optimized-hlo", "optimized-hlo": "kernels"}
NEXT_UP = {v: k for k, v in NEXT_DOWN.items()}


class IndexTrace:
    """The five trace calls the screens use, answered by the bundle's CrossIndex."""

    source = "explorer.index"

    def __init__(self, bundle: Bundle | None = None) -> None:
        self.bundle = bundle
        self.index = _EMPTY
        if bundle is not None:
            try:
                self.index = bundle.index or _EMPTY
            except TensorwegError:  # nothing captured yet: every answer is empty
                pass

    def layer_of(self, level: str, name: str, target: str) -> str:
        if level == "layers":
            return name
        if level == "graph":
            return self.index.layer_of("graph", name, "cpu")
        return self.index.layer_of(level, name, target)

    def items_for_layer(self, layer: str, level: str, target: str) -> list[str]:
        if level == "layers":
            return [layer]
        return list(self.index.items_for_layer(layer, level, "cpu" if level == "graph" else target))

    def down(self, level: str, name: str, target: str) -> list[str]:
        if level == "layers":
            if self.bundle is not None and self.bundle.graph is not None:
                return self.items_for_layer(name, "graph", target)
            return self.items_for_layer(name, "hlo", target)
        found = list(self.index.down(level, name, target))
        if level == "graph" and not found and target != "cpu":
            # Keras-on-JAX targets never saw the TF graph: their HLO links to layers only.
            layer = self.layer_of("graph", name, target)
            return self.items_for_layer(layer, "hlo", target) if layer else []
        return found

    def up(self, level: str, name: str, target: str) -> list[str]:
        if level == "graph":
            layer = self.layer_of("graph", name, target)
            return [layer] if layer else []
        found = list(self.index.up(level, name, target))
        if level == "hlo" and target != "cpu" and self.bundle is not None and self.bundle.graph is not None:
            layer = self.layer_of("hlo", name, target)
            ops = self.items_for_layer(layer, "graph", target) if layer else []
            return ops or found
        return found

    def created_by_compiler(self, level: str, target: str) -> set[str]:
        if level not in ("hlo", "optimized-hlo"):
            return set()
        return set(self.index.created_by_compiler(level, target))


def build_trace(bundle: Bundle | None) -> IndexTrace:
    return IndexTrace(bundle)


Trace = IndexTrace
