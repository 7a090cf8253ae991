"""Each level's graph, built once per bundle: what `g` draws in the terminal and `tensorweg graph` writes.

* `layers`: one node per Keras layer (kind: its class; shape: its output shapes; bytes: its output),
  an edge from each inbound layer, carrying that layer's output shape;
* `graph`: one node per TensorFlow op; an edge per input (`conv/ReadVariableOp:0` from
  `conv/ReadVariableOp`, carrying its output 0), control inputs (`^dep`) as control edges;
* `hlo`, `optimized-hlo`: the target's program (`TargetProgram.graph`; for XLA the entry
  computation, each fusion a cluster holding its fused computation).

`graph_of(bundle, level, target, select, depth)` is what the command and the app's export key ask:
the whole level, or one item's neighbourhood, with bad input refused in one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.errors import TensorwegError
from explorer.levels import GRAPH_LEVELS, HLO_LEVELS, level_named

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.model.records import GraphOp, LayerRecord

from explorer.views.graphs.parts import MAX_DEPTH, GraphEdge, GraphNode, LevelGraph, around
from explorer.views.op_roles import op_role
from explorer.views.programs import program_for
from explorer.views.select_option import resolve_select
from explorer.views.tables import per_bundle
from explorer.views.trace import items_for_layer

# Bytes per element of the TF dtypes a graph carries (a resource or string has no size here).
_DTYPE_BYTES = {"float64": 8, "int64": 8, "float32": 4, "int32": 4, "uint32": 4, "float16": 2, "bfloat16": 2,
                "int16": 2, "uint16": 2, "int8": 1, "uint8": 1, "bool": 1}


def producer(input_name: str) -> str:
    """`conv/ReadVariableOp:0` or `^dep` -> the producing op's name."""
    return input_name.lstrip("^").split(":", 1)[0]


def level_graph(bundle: Bundle, level: str, target: str) -> LevelGraph:
    """The whole level as a graph (empty when the level was not captured)."""
    if level not in GRAPH_LEVELS:
        raise TensorwegError(f"level {level!r} is not drawn as a graph (graphs: {', '.join(GRAPH_LEVELS)})")
    if level in HLO_LEVELS:
        return program_for(bundle, target).graph(level)
    return _model_graph(bundle, level)


def graph_of(bundle: Bundle, level: str, target: str, select: str | None = None, depth: int = 1) -> LevelGraph:
    """The level's graph, or with `select` the neighbourhood `depth` edges deep around that item; a
    layer's name below the layers level selects the layer's items there (`conv2d` at `optimized-hlo`:
    its convolution and its fusion), as Enter on the layer would lead to them."""
    if not 0 <= depth <= MAX_DEPTH:
        raise TensorwegError(f"--depth {depth}: expected 0 to {MAX_DEPTH} edges around the selection")
    graph = level_graph(bundle, level, target)
    if not graph.nodes:
        raise TensorwegError(f"{level}{f' [{target}]' if level in HLO_LEVELS else ''}: not captured in this bundle")
    if select is None:
        return graph
    return around(graph, selection(bundle, graph, select), depth)


def selection(bundle: Bundle, graph: LevelGraph, select: str) -> tuple[str, ...]:
    """The items `select` names in `graph`: the item of that name (a box, fused instructions
    included), else the layer's items (`--select`'s one rule, explorer.views.select_option)."""
    boxes = dict.fromkeys([*(node.name for node in graph.nodes),
                           *(node.name for cluster in graph.clusters for node in cluster.nodes)])
    return resolve_select(bundle, graph.level, graph.target, select, boxes).items


@per_bundle
def _model_graph(bundle: Bundle, level: str) -> LevelGraph:
    if level_named(level).lists_layers:
        return _layers_graph(bundle.layers)
    return _ops_graph(bundle.graph.ops if bundle.graph is not None else ())


def _dims_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


def _with_endpoints(nodes: list[GraphNode],
                    edges: list[GraphEdge]) -> tuple[tuple[GraphNode, ...], tuple[GraphEdge, ...]]:
    """The nodes, and a bare node for every edge end no item has (a nested model's outer input):
    every edge of a picture joins two boxes."""
    known = {node.name for node in nodes}
    for edge in edges:
        for end in (edge.source, edge.sink):
            if end not in known:
                known.add(end)
                nodes.append(GraphNode(end, "", "", None))
    return tuple(nodes), tuple(edges)


def _layers_graph(layers: tuple[LayerRecord, ...]) -> LevelGraph:
    shapes = {layer.name: ", ".join(_dims_text(s) for s in layer.output_shapes) for layer in layers}
    nodes = [GraphNode(layer.name, layer.class_name, shapes[layer.name], layer.activation_bytes,
                       op_role(layer.class_name)) for layer in layers]
    edges = [GraphEdge(source, layer.name, shapes.get(source, "")) for layer in layers for source in layer.inbound]
    return LevelGraph("layers", "", *_with_endpoints(nodes, edges))


def _output_text(op: GraphOp, index: int) -> str:
    if index >= len(op.outputs):
        return ""
    output = op.outputs[index]
    return f"{output.dtype}{list(output.shape) if output.shape is not None else '[?]'}"


def _output_bytes(op: GraphOp) -> int | None:
    total = 0
    for output in op.outputs:
        size = _DTYPE_BYTES.get(output.dtype)
        if size is None or output.shape is None:
            return None
        for d in output.shape:
            if d is None:  # an unknown dim: the op's size is unknown
                return None
            size *= d
        total += size
    return total if op.outputs else None


def _ops_graph(ops: tuple[GraphOp, ...]) -> LevelGraph:
    by_name = {op.name: op for op in ops}
    nodes = [GraphNode(op.name, op.op, ", ".join(_output_text(op, i) for i in range(len(op.outputs))),
                       _output_bytes(op), op_role(op.op)) for op in ops]
    edges = []
    for op in ops:
        for name in op.inputs:
            source = producer(name)
            index = name.split(":", 1)[1] if ":" in name else "0"
            found = by_name.get(source)
            shape = _output_text(found, int(index)) if found is not None and index.isdigit() else ""
            edges.append(GraphEdge(source, op.name, "" if name.startswith("^") else shape, name.startswith("^")))
    return LevelGraph("graph", "", *_with_endpoints(nodes, edges))


def layer_graphs(bundle: Bundle, layer: str, depth: int = 1) -> list[LevelGraph]:
    """The compare screen's picture: `layer`'s optimized-HLO items on each captured target with their
    neighbours `depth` edges deep, one graph per target that has them (a target whose program is not
    drawn as a graph, or that compiled nothing for the layer, is left out)."""
    graphs = []
    for target in bundle.targets:
        try:
            graph = level_graph(bundle, "optimized-hlo", target)
        except TensorwegError:  # TVM's program: no data flow recorded
            continue
        items = tuple(name for name in items_for_layer(bundle, layer, "optimized-hlo", target) if graph.has(name))
        if items:
            graphs.append(around(graph, items, depth))
    return graphs
