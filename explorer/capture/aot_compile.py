"""A Keras model through XLA's ahead-of-time compiler (tfcompile) for another CPU, inside the AOT worker only.

What `saved_model_cli aot_compile_cpu` does (tensorflow/python/tools/saved_model_aot_compile.py), without
its SavedModel round trip: the model's one concrete trace at a fixed signature is frozen
(`convert_variables_to_constants_v2`: every weight becomes a constant), its inputs and outputs become a
`tf2xla.Config` (feeds and fetches with fully defined shapes), and `_pywrap_tfcompile.Compile` compiles
the frozen graph for the row's LLVM triple and CPU (`aarch64-linux-gnu`, `cortex-a76`) into an object
file. XLA's dump (`--xla_dump_to`) holds the same files as the host's JIT: HLO before and after, the
buffer assignment, the memory report, the module's LLVM IR and the object.

A Keras 3 model saved as a SavedModel directly fails to freeze ("Could not find variable dense/kernel");
freezing the concrete function, as here, works. saved_model_cli's own XLA flags are kept
(`--xla_cpu_multi_thread_eigen=false`, no YNN fusion), so the code is what the command line would make.

TensorFlow is imported inside the functions: only the worker process loads it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from explorer.capture.tf_graph import TracedModel, layer_for_op
from explorer.targets import TargetSpec

CPP_CLASS = "Model"
ENTRY_POINT = "tensorweg_entry"
# The module XLA's dump names: `tfcompile_xla_generated_tfcompile.<n>_Model` (the filmstrip's filter).
PASS_MODULES = f".*tfcompile.*{CPP_CLASS}.*"
# What saved_model_cli adds to XLA_FLAGS before it compiles (single-threaded Eigen calls, no YNN fusion).
SAVED_MODEL_CLI_FLAGS = "--xla_cpu_multi_thread_eigen=false --xla_cpu_experimental_ynn_fusion_type="
# Where TensorFlow's messages name the node that failed: `{{node mnist_cnn_1/lambda/PyFunc}}`, `node 'x'`.
_NODE = re.compile(r"\{\{node ([^}]+)\}\}|node '([^']+)'|node \"([^\"]+)\"")


class AotError(Exception):
    """A model the ahead-of-time path cannot freeze or compile; the message names the layer when it can."""


def frozen_graph(traced: TracedModel) -> Any:
    """The trace with every variable a constant (a ConcreteFunction whose graph the compiler reads)."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        return convert_variables_to_constants_v2(traced.concrete)
    except Exception as error:
        raise AotError(f"the ahead-of-time path could not freeze the model's weights into constants: "
                       f"{with_layer(error, traced.scope_map)}") from error


def compiler_config(frozen: Any, scope_map: dict[str, str]) -> Any:
    """The `tf2xla.Config`: one feed per input, one fetch per output, each with its fixed shape."""
    from tensorflow.compiler.tf2xla import tf2xla_pb2  # noqa: PLC0415 (the compiler loads in the capture worker only)

    config = tf2xla_pb2.Config()  # pyright: ignore[reportAttributeAccessIssue] (protobuf makes it at import)
    feed = tf2xla_pb2.Feed  # pyright: ignore[reportAttributeAccessIssue] (protobuf makes it at import)
    fetch = tf2xla_pb2.Fetch  # pyright: ignore[reportAttributeAccessIssue] (protobuf makes it at import)
    for tensor in frozen.inputs:
        config.feed.append(feed(id=_tensor_id(tensor), name=f"feed_{_identifier(tensor.op.name)}",
                                type=tensor.dtype.as_datatype_enum, shape=_fixed_shape(tensor, scope_map)))
    for index, tensor in enumerate(frozen.outputs):
        config.fetch.append(fetch(id=_tensor_id(tensor), name=f"fetch_{index}",
                                  type=tensor.dtype.as_datatype_enum, shape=_fixed_shape(tensor, scope_map)))
    return config


def compile_object(frozen: Any, config: Any, spec: TargetSpec, work: Path, scope_map: dict[str, str]) -> Path:
    """Compile the frozen graph for the row's triple and CPU; return the object file (the dump holds the rest)."""
    from tensorflow.python import _pywrap_tfcompile  # noqa: PLC0415 (the compiler loads in the capture worker only)

    work.mkdir(parents=True, exist_ok=True)
    graph_file, config_file = work / "frozen_graph.pb", work / "config.pbtxt"
    graph_file.write_bytes(frozen.graph.as_graph_def().SerializeToString())
    config_file.write_text(str(config), encoding="utf-8")
    prefix = work / "model"
    try:
        _pywrap_tfcompile.Compile(
            graph=str(graph_file), config=str(config_file), cpp_class=CPP_CLASS,
            target_triple=spec.llvm("mtriple"), target_cpu=spec.llvm("mcpu"), target_features=spec.llvm("mattr"),
            entry_point=ENTRY_POINT, out_function_object=f"{prefix}.o", out_header=f"{prefix}.h",
            out_metadata_object=f"{prefix}_metadata.o", out_constant_buffers_object=f"{prefix}_constants.o",
            gen_name_to_index=True, gen_program_shape=False)
    except Exception as error:
        raise AotError(f"XLA's ahead-of-time compiler refused the model: {with_layer(error, scope_map)}") from error
    return Path(f"{prefix}.o")


def with_layer(error: BaseException, scope_map: dict[str, str]) -> str:
    """The compiler's message, first naming the layer (and op) it is about when it names a node of one."""
    message = str(error).strip() or type(error).__name__
    for match in _NODE.finditer(message):
        node = next(group for group in match.groups() if group)
        layer = layer_for_op(node, scope_map)
        if layer:
            return f"layer {layer!r} (op {node}): {message}"
    return message


def _tensor_id(tensor: Any) -> Any:
    from tensorflow.compiler.tf2xla import tf2xla_pb2  # noqa: PLC0415 (the compiler loads in the capture worker only)

    tensor_id = tf2xla_pb2.TensorId  # pyright: ignore[reportAttributeAccessIssue] (protobuf makes it at import)
    return tensor_id(node_name=tensor.op.name, output_index=tensor.value_index)


def _fixed_shape(tensor: Any, scope_map: dict[str, str]) -> Any:
    """The tensor's shape; an unknown dim cannot be compiled ahead of time (the object has fixed buffers)."""
    if not tensor.shape.is_fully_defined():
        layer = layer_for_op(tensor.op.name, scope_map)
        where = f"layer {layer!r} (op {tensor.op.name})" if layer else f"op {tensor.op.name}"
        raise AotError(f"{where} has shape {tensor.shape} at the fixed input signature: XLA's ahead-of-time "
                       "compiler needs every shape known")
    return tensor.shape.as_proto()


def _identifier(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name)
