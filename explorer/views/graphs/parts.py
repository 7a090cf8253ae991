"""A level's items as a graph: nodes, the edges between them, fusions as clusters, and the one legend.

Both pictures of a graph read these: the terminal drawing (`g` on the layers and graph screens,
`screens.widgets.graph_drawing`) and the DOT file (`tensorweg graph`, `explorer.views.graphs.dot`).
Each level's graph is built once per bundle in `explorer.views.graphs.level` (HLO levels by the
target's program); here are its parts, the neighbourhood of a selection, and `LEGEND`: which role
an item plays (input, constant, fusion, heavy work) and how each picture colours it, so the two
pictures never disagree.

Pure data: no Textual, no pydot, no compiler.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

# `tensorweg graph --depth`: beyond this a neighbourhood is most of any model anyway.
MAX_DEPTH = 10


@dataclass(frozen=True)
class LegendEntry:
    """role: what the item is to the graph (labels `graph.role.<role>` name it).
    fill: the DOT node's fill colour (a Graphviz X11 colour name: no hex, readable printed).
    terminal: the Rich style of the box in the terminal drawing (ANSI names: the terminal's theme
    chooses the shade, and NO_COLOR drops them)."""

    role: str
    fill: str
    terminal: str


LEGEND = (
    LegendEntry("selected", "gold", "bold yellow"),
    LegendEntry("input", "lightblue", "cyan"),
    LegendEntry("constant", "gray90", "dim"),
    LegendEntry("fusion", "palegreen", "green"),
    LegendEntry("work", "lightsalmon", "magenta"),
    LegendEntry("other", "white", ""),
)
ROLES = {entry.role: entry for entry in LEGEND}


@dataclass(frozen=True)
class GraphNode:
    """One item as a node, labelled like its row: name, kind, shape, bytes (None: not known)."""

    name: str
    kind: str
    shape: str
    size: int | None
    role: str = "other"


@dataclass(frozen=True)
class GraphEdge:
    """`source` feeds `sink`, carrying `shape` ("" when not known); `control`: an order, not data."""

    source: str
    sink: str
    shape: str = ""
    control: bool = False


@dataclass(frozen=True)
class GraphCluster:
    """A fusion and the computation it runs: drawn as a box around the fused instructions.

    fusion: the fusion instruction's name (a node of the graph, the one its operands feed).
    computation: the fused computation's name; kind: `kLoop`, `kOutput`, ...
    root: the fused instruction whose value the fusion returns (an edge leads from it to the fusion)."""

    fusion: str
    computation: str
    kind: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    root: str = ""


@dataclass(frozen=True)
class LevelGraph:
    """A level's graph (or the neighbourhood of a selection): the nodes in program order, the edges
    between them, the clusters of the fusions among the nodes, and the selected items (highlighted)."""

    level: str
    target: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    clusters: tuple[GraphCluster, ...] = ()
    selected: tuple[str, ...] = ()

    def node_count(self) -> int:
        """Every box the picture draws: the nodes and the fused instructions inside clusters."""
        return len(self.nodes) + sum(len(cluster.nodes) for cluster in self.clusters)

    def pairs(self) -> list[tuple[str, str]]:
        return [(edge.source, edge.sink) for edge in self.edges]

    def fusion_of(self, name: str) -> str:
        """The fusion whose cluster holds `name` ("" for a node of the graph itself or an unknown name)."""
        return next((c.fusion for c in self.clusters if any(n.name == name for n in c.nodes)), "")

    def has(self, name: str) -> bool:
        return any(node.name == name for node in self.nodes) or bool(self.fusion_of(name))


def neighbourhood(center: str, edges: list[tuple[str, str]], radius: int) -> set[str]:
    """Nodes within `radius` undirected hops of `center` (`center` itself at radius 0)."""
    adjacent: dict[str, set[str]] = {}
    for a, b in edges:
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)
    seen = {center}
    queue = deque([(center, 0)])
    while queue:
        node, dist = queue.popleft()
        if dist == radius:
            continue
        for nxt in adjacent.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, dist + 1))
    return seen


def around(graph: LevelGraph, centers: tuple[str, ...], depth: int) -> LevelGraph:
    """The part of `graph` within `depth` edges of any of `centers` (selected); a fused instruction
    counts as its fusion (its cluster is kept whole, so the instruction is shown where it runs)."""
    pairs = graph.pairs()
    kept: set[str] = set()
    for center in centers:
        kept |= neighbourhood(graph.fusion_of(center) or center, pairs, depth)
    return LevelGraph(graph.level, graph.target,
                      tuple(node for node in graph.nodes if node.name in kept),
                      tuple(edge for edge in graph.edges if edge.source in kept and edge.sink in kept),
                      tuple(cluster for cluster in graph.clusters if cluster.fusion in kept), tuple(centers))
