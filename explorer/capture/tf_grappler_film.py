"""Grappler one optimizer at a time: the graph after each, for the filmstrip (`--passes`).

Grappler's meta optimizer runs its optimizers in a fixed order, twice by default, skipping
the run-once ones (layout, loop, memory) the second time (`MetaOptimizer::InitializeOptimizers`,
`IsRunOnceOptimizer` and `OptimizeGraph` in tensorflow/core/grappler/optimizers/meta_optimizer.cc;
TensorFlow's VLOG(1) results list the same order on TF 2.21). Here each optimizer runs alone
(`meta_optimizer_iterations: ONE`, every other switch off) on the graph the one before it
left, so every intermediate graph is Grappler's own output. On the samples the last graph is
the one the default `OptimizeGraph` gives (tests/test_passes_grappler_e2e.py checks it).

Runs in the TF worker only; graph texts are built with `explorer.model.passes_grappler.node_line`.
"""

from __future__ import annotations

from typing import Any

from explorer.model.passes_grappler import node_line

# (the name Grappler logs, the RewriterConfig switch that runs it alone), in the meta optimizer's
# order. `tfg_optimizer` (the MLIR hook) is left out: its default pipeline only sorts, infers
# shapes and consolidates attributes (it rewrites nothing).
STEPS = (
    ("model_pruner", "disable_model_pruning"),
    ("implementation_selector", "implementation_selector"),
    ("function_optimizer", "function_optimization"),
    # Its switch works only with arithmetic_optimization on: run by name (`optimizers`).
    ("common_subgraph_elimination", ""),
    ("constant_folding", "constant_folding"),
    ("shape_optimizer", "shape_optimization"),
    ("arithmetic_optimizer", "arithmetic_optimization"),
    ("layout", "layout_optimizer"),
    ("remapper", "remapping"),
    ("loop_optimizer", "loop_optimization"),
    ("dependency_optimizer", "dependency_optimization"),
    ("memory_optimizer", "memory_optimization"),
)
RUN_ONCE = frozenset({"layout", "loop_optimizer", "memory_optimizer"})
ITERATIONS = 2  # RewriterConfig.DEFAULT_NUM_ITERS
_TOGGLES = tuple(switch for _name, switch in STEPS
                 if switch not in ("", "disable_model_pruning", "memory_optimization"))

# Attributes a learner reads on a node; a constant shows its dtype and dims, never its values.
_ATTRIBUTES = ("data_format", "strides", "padding", "dilations", "ksize", "fused_ops", "transpose_a",
               "transpose_b", "epsilon", "is_training", "keep_dims", "T", "DstT", "SrcT", "dtype")

GrapplerFilm = tuple[str, list[tuple[str, str, str]]]  # (before, [(iteration, optimizer, after)])


def each_optimizer(meta_graph: Any) -> tuple[GrapplerFilm, Any]:
    """The frozen graph's text and, per optimizer run, (iteration, optimizer, the graph after it);
    with it the last run's GraphDef, which is Grappler's default result (so `--passes` needs no
    second, default `OptimizeGraph` run: on ResNet50 that run cost as much as a third of the film).

    The graph travels between runs as serialized bytes, spliced into the MetaGraphDef's bytes
    (its fetches and signature), and is parsed only when a run changed it: on ResNet50 (100 MB
    of frozen weights) copying and re-serializing it for every run cost more than the runs.
    """
    from tensorflow.core.framework import graph_pb2  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tensorflow.python.grappler import _pywrap_tf_optimizer, cluster, tf_optimizer  # noqa: PLC0415 (the compiler loads in the capture worker only)

    graph_def = graph_pb2.GraphDef  # pyright: ignore[reportAttributeAccessIssue] (protobuf makes it at import)
    rest = type(meta_graph)()
    rest.CopyFrom(meta_graph)
    rest.ClearField("graph_def")
    rest_bytes = rest.SerializeToString()
    current = meta_graph.graph_def.SerializeToString()
    order = {node.name: float(n) for n, node in enumerate(meta_graph.graph_def.node)}
    before = text = graph_text(meta_graph.graph_def, order)
    runs = []
    with tf_optimizer._OPTIMIZE_GRAPH_CLUSTER_LOCK:  # as tf_optimizer.OptimizeGraph does
        machine = cluster.Cluster()
    try:
        for iteration in range(ITERATIONS):
            for name, switch in STEPS:
                if iteration and name in RUN_ONCE:
                    continue
                item = rest_bytes + _GRAPH_DEF_FIELD + _varint(len(current)) + current
                after = _pywrap_tf_optimizer.TF_OptimizeGraphSerialized(
                    machine.tf_cluster, _alone(name, switch).SerializeToString(), item, False,
                    b"graph_to_optimize",  # pyright: ignore[reportArgumentType] (stub says str; it takes bytes)
                    False)
                if after != current:
                    graph = graph_def.FromString(after)
                    order = stable_order(graph, order)
                    text, current = graph_text(graph, order), after
                runs.append((f"iteration {iteration + 1}", name, text))
    finally:
        machine.Shutdown()
    return (before, runs), graph_def.FromString(current)


_GRAPH_DEF_FIELD = bytes([2 << 3 | 2])  # MetaGraphDef.graph_def: field 2, length-delimited


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _alone(name: str, switch: str) -> Any:
    """A ConfigProto whose meta optimizer runs only `name`, once."""
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: PLC0415 (the compiler loads in the capture worker only)

    config = config_pb2.ConfigProto()
    rewrite = config.graph_options.rewrite_options
    rewrite.meta_optimizer_iterations = rewriter_config_pb2.RewriterConfig.ONE
    if not switch:
        rewrite.optimizers.append(name)
        return config
    for toggle in _TOGGLES:
        if toggle != switch:
            setattr(rewrite, toggle, rewriter_config_pb2.RewriterConfig.OFF)
    rewrite.disable_model_pruning = switch != "disable_model_pruning"
    rewrite.disable_tfg_optimizer = True
    if switch != "memory_optimization":
        rewrite.memory_optimization = rewriter_config_pb2.RewriterConfig.NO_MEM_OPT
    return config


def stable_order(graph_def: Any, previous: dict[str, float]) -> dict[str, float]:
    """Each node's place in the texts. A GraphDef's node order means nothing (Grappler sorts it
    topologically after each run, and an optimizer may move nodes): a node keeps the place it
    had, a new one goes right after the last of its inputs, so a frame differs from the one
    before only where an optimizer changed the graph."""
    places = {node.name: previous[node.name] for node in graph_def.node if node.name in previous}
    for number, node in enumerate(graph_def.node):  # Grappler's order: inputs come first
        if node.name not in places:
            inputs = (places.get(name.lstrip("^").split(":")[0], -1.0) for name in node.input)
            places[node.name] = max(inputs, default=-1.0) + (number + 1) * 1e-6
    return places


def graph_text(graph_def: Any, order: dict[str, float]) -> str:
    """One line per node (`explorer.model.passes_grappler`'s format), in `order`."""
    lines = []
    for node in sorted(graph_def.node, key=lambda node: order[node.name]):
        attributes = [(key, _attribute_text(node.attr[key])) for key in _ATTRIBUTES if key in node.attr]
        if node.op == "Const" and "value" in node.attr:
            tensor = node.attr["value"].tensor
            dims = ",".join(str(d.size) for d in tensor.tensor_shape.dim)
            attributes.append(("value", f"[{dims}]"))
        lines.append(node_line(node.name, node.op, node.input, attributes))
    return "\n".join(lines) + "\n"


def _attribute_text(value: Any) -> str:
    from tensorflow.python.framework import dtypes  # noqa: PLC0415 (the compiler loads in the capture worker only)

    kind = value.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(value.type).name
    if kind == "s":
        return value.s.decode("utf-8", "replace")
    if kind == "list":
        items = list(value.list.i) or [s.decode("utf-8", "replace") for s in value.list.s] or list(value.list.f)
        return "[" + ",".join(str(item) for item in items) + "]"
    return str(getattr(value, kind)) if kind else ""
