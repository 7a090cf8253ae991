"""A `LevelGraph` as Graphviz DOT, built with pydot: what `tensorweg graph`, the app's export key and
the handouts write.

Each node is labelled like its row (name in bold, kind, shape, bytes) and filled with its role's
colour from the one legend (`graph_parts.LEGEND`, which the terminal drawing uses too); the
selection is gold with a heavy outline; a fusion is a node inside a cluster holding its fused
computation; each edge is labelled with the shape it carries (control edges dashed). The legend and
the title (model, level, target) are the graph's own label, so no legend box counts as a node.

Names come from the model, so they are escaped twice over: first `safe_text.visible` (a newline or
ESC in a layer's name becomes a visible stand-in, never a byte in the file), then for DOT. Every id is
written as a quoted string (`_quoted`: quotes and backslashes escaped; pydot leaves a quoted id as it
is, where left to itself it would read `<b>` as an HTML id and `a:b` as a port), and every label is an
HTML-like label whose text is `html.escape`d (an HTML label reads no `\\N` or `\\l` escapes either).
"""

from __future__ import annotations

import html

import pydot

from explorer.labels import label
from explorer.levels import level_named
from explorer.safe_text import visible
from explorer.views.format import format_bytes
from explorer.views.graphs.parts import ROLES, GraphCluster, GraphEdge, GraphNode, LevelGraph

FONT = "Helvetica"


def _quoted(text: str) -> str:
    """`text` as a DOT quoted string: in DOT only `\\"` is an escape, and a backslash before the
    closing quote would swallow it, so backslashes are doubled."""
    return '"' + visible(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _html(text: str) -> str:
    return html.escape(visible(text), quote=False)


def node_label(node: GraphNode, lang: str = "en") -> str:
    """The HTML label: the name in bold, then kind, shape and bytes (in `lang`'s digits), each on a line
    (empty ones left out)."""
    lines = [f"<B>{_html(node.name)}</B>"]
    lines += [_html(text) for text in (node.kind, node.shape) if text]
    if node.size is not None:
        lines.append(_html(format_bytes(node.size, lang)))
    return "<" + "<BR/>".join(lines) + ">"


class _Ids:
    """Node ids and cluster names of one DOT file: a prefix keeps two targets' instructions apart in a
    comparison (`cpu/convolution.1`), a counter numbers the clusters."""

    def __init__(self) -> None:
        self.clusters = 0

    def cluster(self, kind: str) -> str:
        self.clusters += 1
        return f"{kind}_{self.clusters}"


def _add_node(graph: pydot.Graph, node: GraphNode, selected: frozenset[str], prefix: str,
              lang: str) -> None:
    chosen = node.name in selected
    role = ROLES["selected" if chosen else node.role]
    graph.add_node(pydot.Node(_quoted(prefix + node.name), label=node_label(node, lang), fillcolor=role.fill,
                              penwidth="3" if chosen else "1"))


def _add_edge(graph: pydot.Graph, edge: GraphEdge, prefix: str) -> None:
    attributes = {"style": "dashed"} if edge.control else {}
    if edge.shape:
        attributes["label"] = _quoted(edge.shape)
    # The keys are Graphviz attributes (style, label); pydot fears one might be its `obj_dict` argument.
    graph.add_edge(pydot.Edge(_quoted(prefix + edge.source), _quoted(prefix + edge.sink), **attributes))  # pyright: ignore[reportArgumentType]


def _cluster(cluster: GraphCluster, fusion: GraphNode | None, selected: frozenset[str], prefix: str,
             ids: _Ids, lang: str) -> pydot.Cluster:
    """The fusion's box: its fused instructions, their edges, the root's edge to the fusion node."""
    title = " ".join(word for word in (cluster.computation, cluster.kind) if word)
    box = pydot.Cluster(ids.cluster("fusion"), label=f"<<I>{_html(title)}</I>>", style="rounded", color="darkgreen")
    if fusion is not None:
        _add_node(box, fusion, selected, prefix, lang)
    for node in cluster.nodes:
        _add_node(box, node, selected, prefix, lang)
    for edge in cluster.edges:
        _add_edge(box, edge, prefix)
    if cluster.root:
        box.add_edge(pydot.Edge(_quoted(prefix + cluster.root), _quoted(prefix + cluster.fusion), style="dotted",
                                arrowhead="empty"))
    return box


def _fill(container: pydot.Graph, graph: LevelGraph, prefix: str, ids: _Ids, lang: str) -> None:
    """`graph`'s nodes, fusion clusters and edges into `container`, ids prefixed with `prefix`."""
    selected = frozenset(graph.selected)
    clustered = {cluster.fusion for cluster in graph.clusters}
    fusions = {}
    for node in graph.nodes:
        if node.name in clustered:
            fusions[node.name] = node  # drawn inside its cluster
        else:
            _add_node(container, node, selected, prefix, lang)
    for cluster in graph.clusters:
        # pydot annotates a Subgraph; its add_subgraph takes a Cluster too (and checks for either).
        container.add_subgraph(_cluster(cluster, fusions.get(cluster.fusion), selected, prefix, ids, lang))  # pyright: ignore[reportArgumentType]
    for edge in graph.edges:
        _add_edge(container, edge, prefix)


def graph_title(model: str, graph: LevelGraph, lang: str) -> str:
    """`mnist_cnn · Optimized HLO · cpu` (the target only where the level has one)."""
    words = [model, label(level_named(graph.level).title_key, lang)]
    if graph.target:
        words.append(graph.target)
    return " · ".join(words)


def _legend_label(title: str, graphs: list[LevelGraph], lang: str) -> str:
    """The title and one coloured cell per role the picture uses."""
    used = {node.role for graph in graphs for node in (*graph.nodes, *(n for c in graph.clusters for n in c.nodes))}
    if any(graph.selected for graph in graphs):
        used.add("selected")
    cells = "".join(f'<TD BGCOLOR="{entry.fill}" BORDER="1">{_html(label(f"graph.role.{entry.role}", lang))}</TD>'
                    for entry in ROLES.values() if entry.role in used)
    return (f'<<TABLE BORDER="0" CELLSPACING="4"><TR><TD COLSPAN="{max(1, len(used))}"><B>{_html(title)}</B></TD></TR>'
            f"<TR>{cells}</TR></TABLE>>")


def _dot(title: str, graphs: list[LevelGraph], lang: str) -> pydot.Dot:
    dot = pydot.Dot("tensorweg", graph_type="digraph", rankdir="TB", fontname=FONT, labelloc="t",
                    label=_legend_label(title, graphs, lang))
    dot.set_node_defaults(shape="box", style='"rounded,filled"', fontname=FONT, fontsize="10")
    dot.set_edge_defaults(fontname=FONT, fontsize="8", color="gray40")
    return dot


def to_dot(graph: LevelGraph, model: str, lang: str = "en") -> pydot.Dot:
    """The picture as a pydot graph, top to bottom, in program order."""
    dot = _dot(graph_title(model, graph, lang), [graph], lang)
    _fill(dot, graph, "", _Ids(), lang)
    return dot


def dot_text(graph: LevelGraph, model: str, lang: str = "en") -> str:
    """The DOT file's text (UTF-8; names already shown as visible text)."""
    return to_dot(graph, model, lang).to_string()


def comparison_dot_text(title: str, graphs: list[LevelGraph], lang: str = "en") -> str:
    """Several targets' graphs side by side (the compare screen's picture): one box per target, its
    node ids prefixed with the target (`cpu/convolution.1`), so two targets' instructions stay apart."""
    dot = _dot(title, graphs, lang)
    ids = _Ids()
    for graph in graphs:
        box = pydot.Cluster(ids.cluster("target"), label=f"<<B>{_html(graph.target)}</B>>", style="dashed")
        _fill(box, graph, f"{graph.target}/", ids, lang)
        dot.add_subgraph(box)  # pyright: ignore[reportArgumentType] (a Cluster, as above)
    return dot.to_string()


def comparison_title(model: str, layer: str, lang: str) -> str:
    """`mnist_cnn · conv2d · Optimized HLO`: the compare screen's picture."""
    return " · ".join((model, layer, label("level.optimized-hlo", lang)))
