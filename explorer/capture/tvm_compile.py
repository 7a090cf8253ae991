"""A Keras model through ONNX into TVM (Relax -> fusion -> TIR -> LLVM), inside the TVM worker only.

The Keras model (rebuilt from `model.json` on the TensorFlow backend) is
exported to ONNX by Keras itself (`model.export(format="onnx")`, which uses
tf2onnx on this backend) with a fixed input signature: a dynamic batch makes
tf2onnx emit Shape/Gather/Concat chains that TVM's Reshape import rejects.
TVM imports the ONNX graph (`tvm.relax.frontend.onnx`), runs the passes of
`relax.get_pipeline("zero")` one by one (so the module before and after
fusion can be recorded), then `tvm.compile` builds it for an x86 LLVM target.

Pitfalls found with apache-tvm 0.27: a target string (`"llvm -mcpu=..."`) is
rejected and a plain dict fails inside `relax.build`: pass a `Target` object.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from explorer.capture.jax_compile import _model_config
from explorer.capture.model_inputs import structured_inputs
from explorer.capture.tf_graph import layer_for_op, scope_map_from_calls
from explorer.capture.tf_layers import recording_layer_calls
from explorer.model.tvm_program import TvmFunction

PIPELINE = ("LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR")
# The passes of TVM's build pipeline up to the static memory plan (relax.backend's default).
PLAN_PASSES = ("LegalizeOps", "RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking",
               "CallTIRRewrite", "StaticPlanBlockMemory")


@dataclass
class Imported:
    """The Relax module as imported, and which ONNX node each of its bindings came from."""

    module: Any
    node_of_var: dict[str, str]  # Relax var name -> ONNX node name
    node_scopes: dict[str, str]  # ONNX node name -> Keras layer ("" when the exporter made it)


def load_keras_model(model_file: str, unsafe: bool) -> Any:
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return keras.saving.deserialize_keras_object(_model_config(Path(model_file)), safe_mode=not unsafe)


def export_onnx(model: Any, signature: list, path: Path) -> dict[str, str]:
    """Write the model as ONNX; return {graph name scope: layer} recorded while it was traced."""
    import numpy as np  # noqa: PLC0415 (the compiler loads in the capture worker only)
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    specs = [tf.TensorSpec(tuple(shape), dtype, name=name) for name, shape, dtype in signature]
    model(structured_inputs(model, [np.zeros(tuple(shape), dtype) for _, shape, dtype in signature]))
    with recording_layer_calls(model) as calls:
        model.export(str(path), format="onnx", verbose=False, input_signature=specs)
    return scope_map_from_calls(calls)


def import_onnx(path: Path, signature: list, scopes: dict[str, str]) -> Imported:
    """Relax as imported, with each binding's ONNX node (matched by the very expression the importer built)."""
    import onnx  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tvm.relax.frontend.onnx.onnx_frontend import ONNXGraphImporter  # noqa: PLC0415 (the compiler loads in the capture worker only)

    model = onnx.load(str(path))
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
    importer = ONNXGraphImporter({name: list(shape) for name, shape, _ in signature},
                                 {name: dtype for name, _, dtype in signature},
                                 keep_params_in_input=False, sanitize=True)
    # TVM annotates the importer's `graph` as a ModelProto; it reads the GraphProto (as TVM's from_onnx passes).
    module = importer.from_onnx(model.graph, opset)  # pyright: ignore[reportArgumentType]
    node_of_output = {out: node.name for node in model.graph.node for out in node.output}
    node_of_var: dict[str, str] = {}
    for binding in _bindings(module["main"]):
        for output, expression in importer._nodes.items():  # the importer keeps what it built per output
            if output in node_of_output and expression.same_as(binding.value):
                node_of_var[binding.var.name] = node_of_output[output]
                break
    node_scopes = {node.name: layer_for_op(node.name, scopes) for node in model.graph.node}
    return Imported(module, node_of_var, node_scopes)


def _bindings(function: Any) -> list[Any]:
    return [binding for block in function.body.blocks for binding in block.bindings]


LlvmTarget = tuple[tuple[str, str], ...]  # TargetSpec.llvm_target: `kind: llvm`, `mcpu: ...`


def target(llvm: LlvmTarget) -> Any:
    """The target's LLVM target as TVM's `Target` (LLVM chooses the vector width from its `mcpu`)."""
    import tvm  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return tvm.target.Target(dict(llvm))


def run_passes(module: Any, names: tuple[str, ...], llvm: LlvmTarget) -> Any:
    import tvm  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from tvm.relax import transform  # noqa: PLC0415 (the compiler loads in the capture worker only)

    with target(llvm):
        return tvm.transform.Sequential([getattr(transform, name)() for name in names])(module)


def grouped(imported: Imported,
            llvm: LlvmTarget) -> tuple[Any, list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]]:
    """FuseOps' grouping: (module after FuseOps, [(function, ops, onnx nodes, imported vars)] in program order).

    A fused Relax function keeps the names of the bindings it took in, except
    its result (`gv`); that one is the op whose arguments are the same vars.
    """
    from tvm import relax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    fused = run_passes(imported.module, PIPELINE[:4], llvm)
    ops_of_var = {b.var.name: (b.value.op.name, _arg_names(b.value.args))  # pyright: ignore[reportAttributeAccessIssue] (an Op's FFI field; hasattr below)
                  for b in _bindings(imported.module["main"]) if isinstance(b.value, relax.Call)
                  and hasattr(b.value.op, "name")}
    groups: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for binding in _bindings(fused["main"]):
        name = _callee(binding.value)
        if not name:
            continue
        callee = fused[name]
        members = _group_members(callee, ops_of_var) if _is_group(callee) else [binding.var.name]
        ops, nodes, bindings = groups.setdefault(name, ([], [], []))
        for var in members:
            if var in ops_of_var and var not in bindings:
                bindings.append(var)
            if var in ops_of_var:
                ops.append(ops_of_var[var][0])
            node = imported.node_of_var.get(var, "")
            if node and node not in nodes:
                nodes.append(node)
    return fused, [(name, tuple(ops), tuple(nodes), tuple(bindings)) for name, (ops, nodes, bindings) in groups.items()]


def _callee(value: Any) -> str:
    from tvm import relax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if not isinstance(value, relax.Call):
        return ""
    if getattr(value.op, "name", "") == "relax.call_tir":
        # call_tir's first argument is the GlobalVar of the TIR function; TVM types `args` as plain Exprs.
        return value.args[0].name_hint  # pyright: ignore[reportAttributeAccessIssue]
    return value.op.name_hint if isinstance(value.op, relax.GlobalVar) else ""


def _functions(module: Any) -> set[str]:
    return {gv.name_hint for gv in module.functions}


def _is_group(function: Any) -> bool:
    from tvm import relax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return isinstance(function, relax.Function) and bool(function.attrs) and "Primitive" in function.attrs


def _arg_names(args: Any) -> frozenset[str]:
    from tvm import relax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    names = set()
    for arg in args:
        if isinstance(arg, relax.Tuple):
            names |= _arg_names(arg.fields)
        elif isinstance(arg, relax.Var):
            names.add(arg.name)
    return frozenset(names)


def _group_members(function: Any, ops_of_var: dict[str, tuple[str, frozenset[str]]]) -> list[str]:
    """The imported bindings a fused Relax function holds: its named bindings, then its result's op."""
    members = []
    for binding in _bindings(function):
        if binding.var.name in ops_of_var and binding.var.name != "gv":
            members.append(binding.var.name)
            continue
        value = binding.value  # the result, renamed: find the op with the same argument vars
        arguments = _arg_names(value.args[1:]) if getattr(value.op, "name", "") == "relax.call_tir" else frozenset()
        match = next((var for var, (_op, args) in ops_of_var.items()
                      if args == arguments and var not in members), "")
        if match:
            members.append(match)
    return members


def functions(imported: Imported, fused_module: Any,
              groups: list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]) -> tuple[TvmFunction, ...]:
    """The TIR functions after FuseTIR, each with its ops, ONNX nodes, layers and TVMScript."""
    present = _functions(fused_module)
    found = []
    for name, ops, nodes, bindings in groups:
        if name not in present:
            continue
        layers = tuple(dict.fromkeys(layer for node in nodes if (layer := imported.node_scopes.get(node, ""))))
        found.append(TvmFunction(name, ops, nodes, layers, fused_module[name].script(), bindings))
    return tuple(found)


def build(fused_module: Any, llvm: LlvmTarget) -> tuple[str, str]:
    """(assembly, LLVM IR) of the compiled module's host code."""
    import tvm  # noqa: PLC0415 (the compiler loads in the capture worker only)

    executable = tvm.compile(fused_module, target=target(llvm))
    library = executable.mod.imports[0]
    return library.inspect_source("asm"), library.inspect_source("ll")


def target_text(llvm: LlvmTarget) -> str:
    return str(target(llvm))


def exporter_versions() -> str:
    return f"keras {version('keras')} export (tf2onnx {version('tf2onnx')}), onnx {version('onnx')}"
