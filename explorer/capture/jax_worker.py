"""The JAX capture worker: one GPU or TPU target per process, compile only.

Run as `python -m explorer.capture.jax_worker` with one JSON request on stdin:
    {"model_file": ".../model.json (Keras config) or .keras", "unsafe": false,
     "signature": [["image", [1, 28, 28, 1], "float32"]],
     "target": "tpu:v5e", "out_dir": ".../targets/tpu-v5e"}
It writes hlo.txt, optimized_hlo.txt, the raw buffer assignment / live range /
memory report, memory.json, kernels.json, cost.json (when XLA reports costs)
and scopes.json into out_dir, and reports progress as JSON lines on stdout
(docs/architecture.md); what every JAX capture shares with the training-step path is in
explorer.capture.jax_levels. Everything libtpu, CUDA or Keras print goes to stderr:
file descriptor 1 is pointed at stderr before any compiler is imported, and
only the protocol writer keeps the real stdout.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from explorer.capture import jax_compile
from explorer.capture.artifacts import write_parsed
from explorer.capture.gpu_dump import find_gpu_module, kernels_from_dump
from explorer.capture.jax_compile import MODULE_NAME
from explorer.capture.jax_levels import (
    LEVELS,
    capture_memory,
    find_optimized_dump,
    lower_and_compile,
    run_level,
    tpu_program_steps,
    write_normalised,
)
from explorer.capture.jax_step_capture import capture_step, is_step_request
from explorer.capture.jax_train import TRAIN_MODULE
from explorer.capture.mesh_shardings import enable_sharding_dump
from explorer.capture.protocol import EXIT_BAD_INPUT, ProtocolWriter, one_line, read_request, take_over_stdout
from explorer.capture.sass import with_sass
from explorer.capture.variants import worker_xla_flags
from explorer.model.passes_dump import module_number, pass_dump_flags, write_pass_frames
from explorer.model.serial import dump_json
from explorer.targets import TARGETS, TargetSpec, availability


def prepare_environment(spec: TargetSpec, dump_dir: Path) -> None:
    """Must run before jax/keras are imported: they read these once."""
    os.environ["KERAS_BACKEND"] = "jax"
    # The CPU platform avoids the CUDA plugin's init traceback and still allows
    # compile-only TPU and CUDA topologies; only `gpu:local` needs the real GPU.
    os.environ["JAX_PLATFORMS"] = "cuda" if spec.kind == "gpu" and spec.on_this_machine else "cpu"
    os.environ["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"  # concurrent TPU captures
    os.environ["JAX_SKIP_CUDA_CONSTRAINTS_CHECK"] = "1"  # no driver to check against
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_dump_to={dump_dir} --xla_dump_hlo_as_text".strip()


def add_variant_flags(request: dict) -> None:
    """The request's `--xla-flag` pairs (explorer.capture.variants), before jax is imported."""
    variant = worker_xla_flags(request.get("xla_flags", ()))
    if variant:
        os.environ["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} {variant}"


# --- the run ---------------------------------------------------------------------


def run(request: dict, protocol: ProtocolWriter) -> None:
    spec = TARGETS[request["target"]]
    out_dir = Path(request["out_dir"])
    out_dir.mkdir(parents=True, exist_ok=True)
    missing = availability(spec.name)
    if missing:
        for level in LEVELS:
            protocol.level_failed(level, missing)
        return
    dump_dir = Path(tempfile.mkdtemp(prefix="tensorweg-xla-"))
    try:
        prepare_environment(spec, dump_dir)
        add_variant_flags(request)
        _enable_pass_dump(request)
        enable_sharding_dump(request)
        _capture(request, spec, out_dir, dump_dir, protocol)
        _collect_passes(request, dump_dir, out_dir)
    finally:
        shutil.rmtree(dump_dir, ignore_errors=True)


def _enable_pass_dump(request: dict) -> None:
    """`--passes`: XLA also dumps the model's module after every pass (before jax is imported)."""
    if request.get("passes"):
        os.environ["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} {pass_dump_flags(_filmed_module(request))}"


def _filmed_module(request: dict) -> str:
    """The module the filmstrip shows: the training step in train mode, else the inference call."""
    return TRAIN_MODULE if request.get("mode", "inference") == "train" else MODULE_NAME


def _collect_passes(request: dict, dump_dir: Path, out_dir: Path) -> None:
    """out_dir/passes/ from the model module's snapshots; a failure is logged, never fatal."""
    if not request.get("passes"):
        return

    module = _filmed_module(request)
    try:
        after = _filmed_dump(dump_dir, module, request)
        number = module_number(after) if after else ""
        before = next(iter(sorted(dump_dir.glob(f"module_{number}.{module}.*before_optimizations.txt"))), None)
        if write_pass_frames(dump_dir, before, after, out_dir) is None:
            print("tensorweg: XLA wrote no per-pass snapshots for the model's module", file=sys.stderr)
    except Exception:  # the levels are captured; only the filmstrip is missing

        print("tensorweg: the per-pass snapshots could not be read:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)


def _filmed_dump(dump_dir: Path, module: str, request: dict) -> Path | None:
    """The optimized dump of the step the levels show. With --remat the same step is compiled
    again without it afterwards (jax_step_capture, for the comparison): that later module is
    not the one to film, so in train mode the first one is."""
    if request.get("mode", "inference") != "train":
        return find_optimized_dump(dump_dir, module)
    on_cpu = TARGETS[request["target"]].kind == "cpu"  # XLA:CPU names its file `cpu_after_optimizations`
    candidates = sorted(p for p in dump_dir.glob(f"module_*.{module}.*after_optimizations.txt")
                        if on_cpu or "cpu_after_optimizations" not in p.name)
    return candidates[0] if candidates else None


def _capture(request: dict, spec: TargetSpec, out_dir: Path, dump_dir: Path,
             protocol: ProtocolWriter) -> None:
    if is_step_request(request):  # --mode train or --mesh
        capture_step(request, spec, out_dir, dump_dir, protocol)
        return
    steps = lower_and_compile(request, out_dir, protocol,
                              lambda model: jax_compile.lower(model, request["signature"], spec))
    if steps is None:
        return
    lowering, compiled = steps
    optimized_path = find_optimized_dump(dump_dir, jax_compile.MODULE_NAME)
    optimized = (optimized_path.read_text(encoding="utf-8") if optimized_path
                 else compiled.as_text())
    write_normalised(out_dir / "optimized_hlo.txt", optimized)
    write_parsed(out_dir / "optimized_hlo.txt")
    protocol.level_done("optimized-hlo")

    run_level(protocol, "memory", lambda: capture_memory(out_dir, optimized_path, compiled))
    run_level(protocol, "kernels", lambda: _capture_kernels(spec, out_dir, dump_dir, optimized))


def _capture_kernels(spec: TargetSpec, out_dir: Path, dump_dir: Path, optimized: str) -> None:
    if spec.kind == "gpu":
        files = find_gpu_module(dump_dir, jax_compile.MODULE_NAME)
        if files is None or files.thunk_sequence is None:
            raise RuntimeError("XLA:GPU wrote no thunk sequence for this module")
        # Down to the machine code: ptxas and cuobjdump on each kernel's PTX (explorer/capture/sass.py).

        kernels = with_sass(kernels_from_dump(files), dump_dir / "sass")
    else:
        kernels = tpu_program_steps(optimized)
    dump_json(kernels, out_dir / "kernels.json")


def check_request(request: dict) -> dict:
    for key in ("model_file", "signature", "target", "out_dir"):
        if key not in request:
            raise ValueError(f"request has no {key!r}")
    if request["target"] not in TARGETS:
        raise ValueError(f"the JAX worker does not compile for {request['target']!r}")
    if TARGETS[request["target"]].kind == "cpu" and request.get("mode", "inference") != "train":
        raise ValueError(f"the JAX worker compiles {request['target']!r} only in train mode")
    return request


def main() -> int:
    stream = take_over_stdout()
    try:
        request = check_request(read_request())
    except ValueError as exc:  # json.JSONDecodeError is a ValueError too
        ProtocolWriter(stream).fatal(f"bad request: {one_line(exc)}")
        return EXIT_BAD_INPUT
    protocol = ProtocolWriter(stream, request["target"])
    run(request, protocol)
    return 0


if __name__ == "__main__":
    from explorer.capture.exit import exit_now

    exit_now(main())
