"""The ahead-of-time capture worker: an ARM target (`arm:cortex-a76`, ...) through XLA's own CPU compiler.

Run as `python -m explorer.capture.aot_worker` with one JSON request on stdin:
    {"model": "mnist_cnn", "cwd": "...", "unsafe": false,
     "signature": [["image", [1, 28, 28, 1], "float32"]],
     "target": "arm:cortex-a76", "out_dir": ".../targets/arm-cortex-a76",
     "passes": false, "dtype": "", "xla_flags": []}
It loads the model as the TensorFlow worker does (the same file, sample or function, with its weights:
frozen into constants, their values decide what XLA folds away), traces it at the signature the
TensorFlow worker fixed (signature.json), and compiles it for the row's LLVM triple and CPU with
`explorer.capture.aot_compile`. XLA's dump becomes the target's files, as for the host's `cpu`
(`explorer.capture.cpu_dump.read_cpu_dump`): hlo.txt, optimized_hlo.txt, buffer_assignment.txt,
memory_report.txt, memory.json, kernels.json (one record per kernel: LLVM IR and AArch64 code read
with capstone), scopes.json and, with `--passes`, passes/.

One compile gives every level, so they end together. A model the path cannot freeze or compile fails
the four levels with the compiler's reason, naming the layer where the message names a node of one;
the rest of the capture stands. Everything TensorFlow prints goes to stderr (the bundle's log).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from explorer.capture import aot_compile
from explorer.capture.artifacts import write_parsed
from explorer.capture.cpu_dump import read_cpu_dump, read_cpu_passes
from explorer.capture.protocol import EXIT_BAD_INPUT, ProtocolWriter, one_line, read_request, take_over_stdout
from explorer.capture.variants import worker_xla_flags
from explorer.errors import TensorwegError
from explorer.levels import TARGET_LEVELS
from explorer.model.passes_dump import pass_dump_flags
from explorer.model.serial import write_text_atomic
from explorer.targets import TARGETS, availability

DUMP_DIR_NAME = "xla_dump_aot"


def prepare_environment(request: dict, dump_dir: Path) -> None:
    """Before TensorFlow is imported: XLA reads its flags once."""
    os.environ["KERAS_BACKEND"] = "tensorflow"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    words = [os.environ.get("XLA_FLAGS", ""), f"--xla_dump_to={dump_dir} --xla_dump_hlo_as_text",
             aot_compile.SAVED_MODEL_CLI_FLAGS, worker_xla_flags(request.get("xla_flags", ()))]
    if request.get("passes"):
        words.append(pass_dump_flags(aot_compile.PASS_MODULES))
    os.environ["XLA_FLAGS"] = " ".join(word for word in words if word)


def run(request: dict, protocol: ProtocolWriter) -> None:
    spec = TARGETS[request["target"]]
    out_dir = Path(request["out_dir"])
    out_dir.mkdir(parents=True, exist_ok=True)
    missing = availability(spec.name)
    if missing:
        for level in TARGET_LEVELS:
            protocol.level_failed(level, missing)
        return
    work = Path(tempfile.mkdtemp(prefix="tensorweg-aot-"))  # TMPDIR: the staging folder's .work
    dump_dir = work / DUMP_DIR_NAME
    prepare_environment(request, dump_dir)
    for level in TARGET_LEVELS:
        protocol.level_started(level)
    try:
        scope_map = _compile(request, spec, work)
        read_cpu_dump(dump_dir, out_dir)
        for name in ("hlo.txt", "optimized_hlo.txt"):
            write_parsed(out_dir / name)
        # {scope: layer} as the other workers write it: the index links this target's HLO through it.
        write_text_atomic(out_dir / "scopes.json", json.dumps(scope_map, indent=1))
        _passes(request, dump_dir, out_dir)
    except (aot_compile.AotError, TensorwegError) as error:
        traceback.print_exc(file=sys.stderr)
        for level in TARGET_LEVELS:
            protocol.level_failed(level, one_line(error))
        return
    except Exception as error:  # XLA's or TensorFlow's own failure: its message is what the user needs
        traceback.print_exc(file=sys.stderr)
        for level in TARGET_LEVELS:
            protocol.level_failed(level, f"{type(error).__name__}: {one_line(error)}")
        return
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for level in TARGET_LEVELS:
        protocol.level_done(level)


def _compile(request: dict, spec, work: Path) -> dict[str, str]:
    """Load, trace, freeze and compile; return the trace's {scope: layer}."""
    from explorer.capture.dtype_policy import set_global_policy, with_policy  # noqa: PLC0415 (imports keras: after the environment is set)
    from explorer.capture.quantize import quantized  # noqa: PLC0415 (its model is keras's: after the environment is set)
    from explorer.capture.tf_graph import trace_model  # noqa: PLC0415 (imports keras: after the environment is set)
    from explorer.capture.tf_loading import load_model  # noqa: PLC0415 (imports keras: after the environment is set)

    set_global_policy(request.get("dtype", ""))
    model, identity = load_model(str(request["model"]), bool(request.get("unsafe", False)), request.get("cwd"))
    model = quantized(with_policy(model, request.get("dtype", ""), identity.kind), request.get("quantize", ""),
                      identity.kind)
    signature = [(name, tuple(shape), dtype) for name, shape, dtype in request["signature"]]
    traced = trace_model(model, signature)
    frozen = aot_compile.frozen_graph(traced)
    config = aot_compile.compiler_config(frozen, traced.scope_map)
    aot_compile.compile_object(frozen, config, spec, work, traced.scope_map)
    return traced.scope_map


def _passes(request: dict, dump_dir: Path, out_dir: Path) -> None:
    """passes/ from the dump; a failure is logged and leaves the other levels alone."""
    if not request.get("passes"):
        return
    try:
        if not read_cpu_passes(dump_dir, out_dir):
            print("tensorweg: XLA's ahead-of-time compiler wrote no per-pass snapshots", file=sys.stderr)
    except Exception:
        print("tensorweg: the per-pass snapshots could not be read:", file=sys.stderr)
        traceback.print_exc()


def check_request(request: dict) -> dict:
    for key in ("model", "signature", "target", "out_dir"):
        if key not in request:
            raise ValueError(f"request has no {key!r}")
    spec = TARGETS.get(request["target"])
    if spec is None or spec.worker != "aot":
        raise ValueError(f"the ahead-of-time worker does not compile for {request['target']!r}")
    return request


def main() -> int:
    stream = take_over_stdout()
    try:
        request = check_request(read_request())
    except ValueError as exc:
        ProtocolWriter(stream).fatal(f"bad request: {one_line(exc)}")
        return EXIT_BAD_INPUT
    run(request, ProtocolWriter(stream, request["target"]))
    return 0


if __name__ == "__main__":
    from explorer.capture.exit import exit_now

    exit_now(main())
