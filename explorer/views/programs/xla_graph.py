"""An XLA target's HLO level as a graph (`XlaTargetProgram.graph`): the program XLA runs.

Nodes are the entry computation's instructions, edges their operands (each carrying the operand's
shape). A fusion is a node (its operands feed it) and a cluster: the box around its fused
computation's instructions, whose root leads to it. Computations called otherwise (a reduce's
`add`, a while's body) are not drawn: their instructions are the callee's detail, not the program's
data flow. The whole module is walked once per bundle and level (ResNet50's optimized module in a
few tenths of a second: bench/bench_graph_dot.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.hlo.model import HloComputation, HloInstruction
    from explorer.model.bundle import Bundle

from explorer.levels import level_named
from explorer.views.graphs.parts import GraphCluster, GraphEdge, GraphNode, LevelGraph
from explorer.views.items import shape_text
from explorer.views.tables import per_bundle

_INPUT = frozenset({"parameter", "infeed", "recv"})
_CONSTANT = frozenset({"constant", "iota"})


def instruction_role(found: HloInstruction, heavy: frozenset[str]) -> str:
    """The legend's role of an instruction; `heavy`: the opcodes that are a layer's work."""
    if found.opcode in _INPUT:
        return "input"
    if found.opcode in _CONSTANT:
        return "constant"
    if found.opcode == "fusion":
        return "fusion"
    return "work" if found.opcode in heavy or found.custom_call_target else "other"


def _kind(found: HloInstruction) -> str:
    """The opcode column's words: `fusion kLoop`, `custom-call __onednn$matmul`."""
    return " ".join(word for word in (found.opcode, found.fusion_kind, found.custom_call_target) if word)


def _node(found: HloInstruction, heavy: frozenset[str]) -> GraphNode:
    shape = found.shape
    size = None if shape.is_buffer else shape.byte_size
    return GraphNode(found.name, _kind(found), shape_text(shape), size, instruction_role(found, heavy))


def _edges(computation: HloComputation) -> tuple[GraphEdge, ...]:
    shapes = {i.name: shape_text(i.shape) for i in computation.instructions}
    return tuple(GraphEdge(operand, i.name, shapes.get(operand, ""))
                 for i in computation.instructions for operand in i.operands)


@per_bundle
def hlo_graph(bundle: Bundle, level: str, target: str, heavy: frozenset[str]) -> LevelGraph:
    """The module's entry computation with its fusions' clusters (empty when there is no module)."""
    module = bundle.hlo_module(target, optimized=level_named(level).optimized)
    entry = module.entry if module is not None else None
    if module is None or entry is None:
        return LevelGraph(level, target, (), ())
    clusters = []
    for found in entry.instructions:
        called = module.computation(found.called_computations[0]) if found.opcode == "fusion" \
            and found.called_computations else None
        if called is None:
            continue
        root = called.root
        clusters.append(GraphCluster(found.name, called.name, found.fusion_kind,
                                     tuple(_node(i, heavy) for i in called.instructions), _edges(called),
                                     root.name if root is not None else ""))
    return LevelGraph(level, target, tuple(_node(i, heavy) for i in entry.instructions), _edges(entry),
                      tuple(clusters))
