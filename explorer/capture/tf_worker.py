"""The TensorFlow capture worker: layers, graph and the `cpu` target, in its own process.

Run as `python -m explorer.capture.tf_worker` with one JSON request on stdin:
    {"model": "mnist_cnn", "unsafe": false, "batch": 1, "input_shapes": {"tokens": [16]},
     "staging_dir": "/.../.staging-x", "targets": ["cpu"], "architecture": true,
     "dtype": "" or a Keras dtype policy, "xla_flags": [["xla_disable_hlo_passes", "fusion"]]}
It writes identity.json, signature.json, model.json (the Keras config; not for a SavedModel),
layers.json, graph.json, scopes.json and, for `cpu`, targets/cpu/hlo.txt and
optimized_hlo.txt, then runs the jit function once so XLA dumps its kernels
and buffer assignment into <staging>/xla_dump_cpu for
`explorer.capture.cpu_dump.read_cpu_dump` (the dump directory is removed
afterwards: its file names carry run-specific hashes).

Progress goes to stdout as JSON lines (docs/architecture.md); everything
TensorFlow prints, from Python or C++, goes to stderr, because fd 1 is pointed
at stderr before TensorFlow is imported and only the protocol keeps the real
stdout. Bad input: one `fatal` event and exit code 2.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

from explorer.capture.artifacts import write_parsed
from explorer.capture.cpu_dump import CPU_PASS_MODULES, read_cpu_dump, read_cpu_passes
from explorer.capture.dtype_policy import set_global_policy, with_policy
from explorer.capture.protocol import (
    EXIT_BAD_INPUT,
    ProtocolWriter,
    one_line,
    read_request,
    take_over_stdout,
)
from explorer.capture.quantize import quantized
from explorer.capture.tf_graph import graph_level_and_film, trace_model
from explorer.capture.tf_layers import layer_records
from explorer.capture.tf_loading import input_signature, load_model
from explorer.capture.variants import worker_xla_flags
from explorer.errors import TensorwegError
from explorer.model.graph_file import dump_graph_level
from explorer.model.normalise import normalise_text
from explorer.model.passes_dump import pass_dump_flags
from explorer.model.passes_grappler import write_grappler_frames
from explorer.model.serial import dump_json, write_text_atomic

DUMP_DIR_NAME = "xla_dump_cpu"


class Protocol(ProtocolWriter):
    """The protocol writer, plus why tracing failed (the graph level reports it from its thread)."""

    trace_error: BaseException | str | None = None


def prepare_environment(dump_dir: Path, xla_flags=()) -> None:
    """Must run before TensorFlow is imported: XLA reads its flags once. `xla_flags`: the
    request's `--xla-flag` pairs (explorer.capture.variants)."""
    flags = os.environ.get("XLA_FLAGS", "")
    variant = worker_xla_flags(xla_flags)
    os.environ["XLA_FLAGS"] = f"{flags} --xla_dump_to={dump_dir} --xla_dump_hlo_as_text {variant}".strip()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def run(request: dict, protocol: Protocol) -> int:
    staging = Path(request["staging_dir"])
    targets = list(request.get("targets", ["cpu"]))
    dump_dir = staging / DUMP_DIR_NAME
    prepare_environment(dump_dir, request.get("xla_flags", ()))
    _enable_pass_dump(request)

    try:
        set_global_policy(request.get("dtype", ""))
        model, identity = load_model(str(request["model"]), bool(request.get("unsafe", False)), request.get("cwd"))
        model = with_policy(model, request.get("dtype", ""), identity.kind)
        model = quantized(model, request.get("quantize", ""), identity.kind)
        shapes = {name: tuple(dims) for name, dims in (request.get("input_shapes") or {}).items()}
        signature = input_signature(model, int(request.get("batch", 1)), shapes)
    except TensorwegError as error:
        protocol.fatal(error)
        return EXIT_BAD_INPUT
    staging.mkdir(parents=True, exist_ok=True)
    dump_json(identity, staging / "identity.json")
    dump_json([[name, list(shape), dtype] for name, shape, dtype in signature], staging / "signature.json")
    if request.get("architecture", True):  # only the GPU/TPU workers read it
        _save_architecture(model, identity.kind, staging)

    traced = _layers(model, signature, staging, protocol)
    # Grappler and XLA:CPU both spend their time in C++ without the GIL: on two
    # cores the graph level runs beside the cpu target instead of before it.
    graph = threading.Thread(target=_graph, args=(traced, staging, protocol, bool(request.get("passes"))),
                             name="graph-level")
    graph.start()
    if "cpu" in targets:
        _cpu_target(traced, staging, dump_dir, protocol)
        _cpu_passes(request, dump_dir, staging / "targets" / "cpu")
    graph.join()
    shutil.rmtree(dump_dir, ignore_errors=True)
    return 0


def _enable_pass_dump(request: dict) -> None:
    """`--passes`: XLA also dumps the module after every pass (before TensorFlow is imported)."""
    if request.get("passes"):
        os.environ["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} {pass_dump_flags(CPU_PASS_MODULES)}"


def _cpu_passes(request: dict, dump_dir: Path, out_dir: Path) -> None:
    """targets/cpu/passes/ from the dump; a failure is logged and leaves the other levels alone."""
    if not request.get("passes"):
        return

    try:
        if not read_cpu_passes(dump_dir, out_dir):
            print("tensorweg: XLA:CPU wrote no per-pass snapshots for the model's module", file=sys.stderr)
    except Exception:
        print("tensorweg: the per-pass snapshots could not be read:", file=sys.stderr)
        traceback.print_exc()


def _save_architecture(model: Any, kind: str, staging: Path) -> None:
    """model.json (the Keras config, no weights) for the JAX workers, which only compile.

    Written under a temporary name and renamed so they never read half a file.
    """
    if kind == "savedmodel":
        print("tensorweg: a SavedModel has no Keras layers; GPU/TPU targets need a Keras model "
              "(.keras, .h5, sample or module:function), so no model.json is written", file=sys.stderr)
        return
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    try:
        write_text_atomic(staging / "model.json", json.dumps(keras.saving.serialize_keras_object(model)))
    except Exception:
        print("tensorweg: could not write the model's Keras config (GPU/TPU targets need it):", file=sys.stderr)
        traceback.print_exc()


def _layers(model: Any, signature: list, staging: Path, protocol: Protocol) -> Any:
    """Trace once (recording layer scopes) and write layers.json; return the trace, or None."""
    protocol.level_started("layers")
    traced = None
    not_ascii = _non_ascii_layer_name(model)
    try:
        if not_ascii:  # TensorFlow's own message would only say "in user code:"
            raise ValueError(f"TensorFlow requires ASCII layer names; layer {not_ascii!r} is not")
        traced = trace_model(model, signature)
    except Exception as error:  # the model does not even trace: layers without shapes, no graph
        protocol.trace_error = error
        traceback.print_exc()
    try:
        records = layer_records(model, signature, traced.calls if traced else {})
        dump_json(records, staging / "layers.json")
        protocol.level_done("layers")
    except Exception as error:
        traceback.print_exc()
        protocol.level_failed("layers", error)
    return traced


def _non_ascii_layer_name(model: Any) -> str:
    """The first layer (or the model) whose name TensorFlow cannot use as a name scope, or ""."""
    names = [model.name] + [layer.name for layer in model._flatten_layers(include_self=False, recursive=True)]
    return next((name for name in names if not str(name).isascii()), "")


def _graph(traced: Any, staging: Path, protocol: Protocol, per_optimizer: bool) -> None:
    """graph.json (traced and Grappler-optimised ops) and scopes.json; with `--passes` also
    grappler/, the graph after each Grappler optimizer that changed it."""
    protocol.level_started("graph")
    if traced is None:
        protocol.level_failed("graph", f"tracing the model failed: {one_line(protocol.trace_error or 'unknown error')}")
        return
    try:
        level, film = graph_level_and_film(traced.concrete, traced.scope_map, per_optimizer, traced.source_folder)
        if film is not None:  # before graph.json: the level's "ok" means its film is there too

            write_grappler_frames(*film, staging)
        dump_graph_level(level, staging / "graph.json")
        # TF's HLO op_name metadata is the graph op name, so one map serves both.
        dump_json({"graph": traced.scope_map, "cpu": traced.scope_map}, staging / "scopes.json")
        protocol.level_done("graph")
    except Exception as error:
        traceback.print_exc()
        protocol.level_failed("graph", error)


_CPU_STAGES = (("hlo", "hlo", "hlo.txt"), ("optimized-hlo", "optimized_hlo", "optimized_hlo.txt"))
_NOT_COMPILED = "XLA could not compile the model (see the hlo level)"


def _cpu_target(traced: Any, staging: Path, dump_dir: Path, protocol: Protocol) -> None:
    out_dir = staging / "targets" / "cpu"
    out_dir.mkdir(parents=True, exist_ok=True)
    if traced is None:
        reason = f"the model could not be traced by TensorFlow: {one_line(protocol.trace_error or 'unknown error')}"
        for level in ("hlo", "optimized-hlo", "kernels", "memory"):
            protocol.level_failed(level, reason, "cpu")
        return
    compiled = _cpu_hlo_levels(traced, out_dir, protocol)
    for level in ("kernels", "memory"):
        protocol.level_started(level, "cpu")
    try:
        _cpu_dump_levels(traced, compiled, dump_dir, out_dir)
    except Exception as error:
        traceback.print_exc()
        for level in ("kernels", "memory"):
            protocol.level_failed(level, error, "cpu")
        return
    for level in ("kernels", "memory"):
        protocol.level_done(level, "cpu")


def _cpu_hlo_levels(traced: Any, out_dir: Path, protocol: Protocol) -> bool:
    """Writes the hlo and optimized-hlo levels; False once XLA could not compile the model."""
    compiled = True
    for level, stage, file_name in _CPU_STAGES:
        protocol.level_started(level, "cpu")
        if not compiled:
            protocol.level_failed(level, _NOT_COMPILED, "cpu")
            continue
        try:
            text = traced.function.experimental_get_compiler_ir(*traced.specs)(stage=stage)
            write_text_atomic(out_dir / file_name, normalise_text(text))
            write_parsed(out_dir / file_name)
            protocol.level_done(level, "cpu")
        except Exception as error:  # XLA's own message, e.g. an op without an XLA kernel
            compiled = False
            traceback.print_exc()
            protocol.level_failed(level, error, "cpu")
    return compiled


def _cpu_dump_levels(traced: Any, compiled: bool, dump_dir: Path, out_dir: Path) -> None:
    """Runs the model once so XLA:CPU dumps kernels and buffer assignment, then reads the dump."""
    if not compiled:
        raise RuntimeError(_NOT_COMPILED)
    _run_once_on_zeros(traced)
    written = {name: (out_dir / name).read_text(encoding="utf-8") for _, _, name in _CPU_STAGES}
    read_cpu_dump(dump_dir, out_dir)
    for name, text in written.items():  # the dump's copy of a module wins; parse it if it differs
        if (out_dir / name).read_text(encoding="utf-8") != text:
            write_parsed(out_dir / name)


def _run_once_on_zeros(traced: Any) -> None:
    """One real execution: XLA:CPU compiles for it and dumps kernels and buffer assignment."""
    import tensorflow as tf  # noqa: PLC0415 (the compiler loads in the capture worker only)

    zeros = [tf.zeros(spec.shape, spec.dtype) for spec in traced.specs]
    traced.function(*zeros)


def main() -> int:
    protocol = Protocol(take_over_stdout())
    try:
        request = read_request()
        if "model" not in request or "staging_dir" not in request:
            raise ValueError("the request needs at least 'model' and 'staging_dir'")
    except ValueError as error:
        protocol.fatal(f"bad worker request: {one_line(error)}")
        return EXIT_BAD_INPUT
    try:
        return run(request, protocol)
    except Exception as error:  # a bug or a crash in TF: say it in one line, keep the traceback in the log
        traceback.print_exc()
        protocol.fatal(f"capture worker failed: {type(error).__name__}: {one_line(error)}")
        return 1


if __name__ == "__main__":
    from explorer.capture.exit import exit_now

    exit_now(main())
