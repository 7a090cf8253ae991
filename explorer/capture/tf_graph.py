"""Level 2: the TensorFlow graph the model traces into, and what Grappler makes of it.

Runs in the TF capture worker. The model is traced once as an XLA-compiled
`tf.function`; while tracing, every layer's graph name scope is recorded
(`explorer.capture.tf_layers.recording_layer_calls`), giving the scope map
that attributes ops (and, through HLO `op_name` metadata, HLO instructions) to
layers exactly, including the `_1` suffixes Keras adds when re-tracing.
"""

from __future__ import annotations

import sys
import traceback
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from explorer.capture.source_lines import op_source, user_folder
from explorer.capture.tf_grappler_film import GrapplerFilm, each_optimizer
from explorer.capture.tf_layers import LayerCall, call_model, recording_layer_calls
from explorer.model.passes_grappler import FUSED_PREFIXES  # Grappler's fused ops: one definition
from explorer.model.records import GraphLevel, GraphOp, GrapplerSummary, TensorSpecRecord

# Attributes worth showing a learner; the rest (T, _class, value tensors...) is noise.
KEY_ATTRIBUTES = (
    "data_format", "strides", "padding", "explicit_paddings", "dilations", "ksize",
    "transpose_a", "transpose_b", "adj_x", "adj_y", "keep_dims", "axis", "epsilon",
    "is_training", "fused_ops", "num_args", "dtype", "DstT", "SrcT", "T", "N", "f",
    "equation", "batch_dims", "shrink_axis_mask", "begin_mask", "end_mask",
)


@dataclass(frozen=True)
class TracedModel:
    """The jit-compiled function, its one concrete trace, and what the trace recorded."""

    function: Any  # tf.function(jit_compile=True)
    concrete: Any  # its ConcreteFunction for the signature
    specs: tuple[Any, ...]  # the tf.TensorSpec per input, in signature order
    scope_map: dict[str, str]  # graph name scope -> layer name
    calls: dict[str, list[LayerCall]]  # layer name -> its recorded calls
    source_folder: str = ""  # a `module:function` model's folder: its files are shown relative to it


def trace_model(model: Any, signature: list[tuple[str, tuple[int, ...], str]]) -> TracedModel:
    """Trace `model(*x, training=False)` under `jit_compile=True` at the fully known signature."""
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    specs = tuple(tf.TensorSpec(shape, dtype, name=name) for name, shape, dtype in signature)
    function = tf.function(lambda *x: call_model(model, x), jit_compile=True)
    with recording_layer_calls(model) as calls:
        concrete = function.get_concrete_function(*specs)
    return TracedModel(function, concrete, specs, scope_map_from_calls(calls), calls, user_folder(model))


def scope_map_from_calls(calls: dict[str, list[LayerCall]]) -> dict[str, str]:
    """{scope: layer} over every recorded call (a shared layer has one scope per call)."""
    return {call.scope: layer for layer, layer_calls in calls.items() for call in layer_calls if call.scope}


def layer_for_op(op_name: str, scope_map: dict[str, str]) -> str:
    """The layer whose scope is the longest prefix of `op_name` at a `/` boundary, or ""."""
    candidate = op_name
    while candidate:
        if candidate in scope_map:
            return scope_map[candidate]
        candidate = candidate.rpartition("/")[0]
    return ""


def graph_level_and_film(concrete_fn: Any, scope_map: dict[str, str],
                         per_optimizer: bool, source_folder: str = "") -> tuple[GraphLevel, GrapplerFilm | None]:
    """The graph level and, with `per_optimizer` (`--passes`), Grappler's film: the frozen
    graph's text and one (iteration, optimizer, graph text) per optimizer run
    (`explorer.model.passes_grappler.write_grappler_frames` keeps the runs that changed it).
    The traced ops carry the Python lines that created them (`GraphOp.source`)."""
    ops = tuple(_traced_op(op, scope_map, source_folder) for op in concrete_fn.graph.get_operations())
    try:
        frozen_ops, optimized_ops, film = _grappler_graphs(concrete_fn, scope_map, per_optimizer)
    except Exception as error:  # Grappler is a view on the side: the traced graph still stands
        message = (str(error).strip() or type(error).__name__).splitlines()[0]
        summary = GrapplerSummary(ops_before=len(ops), ops_after=0, notes=(f"Grappler failed: {message}",))
        return GraphLevel(ops=ops, optimized_ops=(), grappler=summary), None
    level = GraphLevel(ops=ops, optimized_ops=optimized_ops, grappler=grappler_summary(frozen_ops, optimized_ops))
    return level, film


# Ops that only feed values in or name them: no line of the layer's made them compute.
_NO_SOURCE = frozenset({"Placeholder", "Const", "ReadVariableOp", "NoOp", "Identity", "VarHandleOp"})


def _traced_op(op: Any, scope_map: dict[str, str], source_folder: str) -> GraphOp:
    """A traced op with its Python lines (only the traced graph keeps tracebacks of the model's code)."""
    record = _graph_op(op, scope_map)
    if not record.layer or record.op in _NO_SOURCE:
        return record
    return replace(record, source=op_source(op.traceback, source_folder))


def _graph_op(op: Any, scope_map: dict[str, str]) -> GraphOp:
    return GraphOp(
        name=op.name,
        op=op.type,
        inputs=tuple(t.name for t in op.inputs) + tuple(f"^{c.name}" for c in op.control_inputs),
        outputs=tuple(_tensor_spec(t) for t in op.outputs),
        layer=layer_for_op(op.name, scope_map),
        attributes=_key_attributes(op),
        kernel_devices=kernel_devices(op.type),
    )


def _tensor_spec(tensor: Any) -> TensorSpecRecord:
    shape = tensor.shape
    dims = None if shape.rank is None else tuple(None if d is None else int(d) for d in shape.as_list())
    return TensorSpecRecord(shape=dims, dtype=tensor.dtype.name)


def _key_attributes(op: Any) -> tuple[tuple[str, str], ...]:
    present = set(op.node_def.attr)
    return tuple((key, _attribute_text(op.get_attr(key))) for key in KEY_ATTRIBUTES if key in present)


def _attribute_text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_attribute_text(v) for v in value) + "]"
    if hasattr(value, "name") and not isinstance(value, (int, float, bool, str)):
        return str(value.name)  # DType, NameAttrList (function attribute)
    return str(value)


@cache
def kernel_devices(op_type: str) -> tuple[str, ...]:
    """Device types with a registered kernel for `op_type` (CPU, GPU, XLA_CPU_JIT, ...), sorted."""
    from tensorflow.python.framework import kernels  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        registered = kernels.get_registered_kernels_for_op(op_type)
    except Exception:  # function-call op types have no kernel list of their own
        return ()
    return tuple(sorted({kernel.device_type for kernel in registered.kernel}))


# --- Grappler ------------------------------------------------------------------------


def _grappler_graphs(concrete_fn: Any, scope_map: dict[str, str], per_optimizer: bool,
                     ) -> tuple[tuple[GraphOp, ...], tuple[GraphOp, ...], GrapplerFilm | None]:
    """(frozen graph ops, Grappler-optimised ops, the film or None), by the recipe in the shared
    compiler reference (compilers.md).

    Variables are frozen to constants first, so Grappler can fold them; both
    graphs are imported into fresh tf.Graphs so their ops get inferred shapes.
    """
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tensorflow.core.protobuf import config_pb2  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tensorflow.python.framework import convert_to_constants  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tensorflow.python.grappler import tf_optimizer  # noqa: PLC0415 (the compiler loads in the capture worker only)

    # convert_variables_to_constants_v2 would also rebuild a ConcreteFunction from
    # the frozen graph, which we never call: on ResNet50 that was 3.6 of 7.7 s.
    converter = convert_to_constants._FunctionConverterDataInEager(
        func=concrete_fn, lower_control_flow=True, aggressive_inlining=False)
    frozen_def, _ = convert_to_constants._replace_variables_by_constants(converter_data=converter)
    frozen_graph = _imported_graph(frozen_def)
    with frozen_graph.as_default():
        meta_graph = tf.compat.v1.train.export_meta_graph(graph_def=frozen_def, graph=frozen_graph)
    fetches = meta_graph.collection_def["train_op"].node_list.value
    for tensor in concrete_fn.outputs:
        fetches.append(tensor.name)
    film, optimized_def = _film(meta_graph) if per_optimizer else (None, None)
    if optimized_def is None:  # no film asked for, or it failed: Grappler's default run
        optimized_def = tf_optimizer.OptimizeGraph(config_pb2.ConfigProto(), meta_graph)
    frozen_ops = tuple(_graph_op(op, scope_map) for op in frozen_graph.get_operations())
    return frozen_ops, _imported_ops(optimized_def, scope_map), film


def _film(meta_graph: Any) -> tuple[GrapplerFilm | None, Any]:
    """Grappler's film and its last GraphDef, or (None, None) (logged) when running its
    optimizers one by one failed: the graph level stands without it."""
    try:
        return each_optimizer(meta_graph)
    except Exception:
        print("tensorweg: Grappler's optimizers could not be run one by one:", file=sys.stderr)
        traceback.print_exc()
        return None, None


def _imported_graph(graph_def: Any) -> Any:
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    return graph


def _imported_ops(graph_def: Any, scope_map: dict[str, str]) -> tuple[GraphOp, ...]:
    return tuple(_graph_op(op, scope_map) for op in _imported_graph(graph_def).get_operations())


def grappler_summary(before: tuple[GraphOp, ...], after: tuple[GraphOp, ...]) -> GrapplerSummary:
    """Compare the frozen graph (`before`) with Grappler's output (`after`) by op name."""
    before_by_name = {op.name: op for op in before}
    after_by_name = {op.name: op for op in after}
    removed = tuple(name for name in before_by_name if name not in after_by_name)
    added = tuple(name for name in after_by_name if name not in before_by_name)
    fused = tuple(op.name for op in after if op.op.startswith(FUSED_PREFIXES))
    folded = [
        name for name, op in after_by_name.items()
        if op.op == "Const" and name in before_by_name and before_by_name[name].op != "Const"
    ]
    removed_types = Counter(before_by_name[name].op for name in removed)
    notes = [f"before: the traced graph with variables frozen to constants ({len(before)} ops)"]
    if removed_types:
        notes.append("removed: " + ", ".join(f"{count} {op}" for op, count in sorted(removed_types.items())))
    if folded:
        notes.append(f"constant-folded: {len(folded)} ops became Const ({', '.join(folded)})")
    if fused:
        notes.append("fused: " + ", ".join(f"{after_by_name[n].op} {n}" for n in fused))
    return GrapplerSummary(
        ops_before=len(before),
        ops_after=len(after),
        removed=removed,
        added=added,
        fused=fused,
        notes=tuple(notes),
    )
