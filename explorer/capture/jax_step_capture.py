"""The JAX worker's levels for a training step or a sharded call (`--mode train`, `--mesh`).

The same levels as an inference capture (explorer.capture.jax_worker; the shared steps are in
explorer.capture.jax_levels), from the
lowering in explorer.capture.jax_train, plus `step.json` (explorer.model.training.StepLayout):
which argument is a weight, optimizer state, input or label, what is donated, and
the inference call's memory figures on the same devices for comparison. `cpu` in
train mode is compiled here too, by XLA:CPU through JAX (the TensorFlow worker
compiles inference only), so every target's training step comes from the same trace.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from explorer.capture import jax_compile, jax_train
from explorer.capture.artifacts import write_parsed
from explorer.capture.cpu_dump import read_cpu_dump
from explorer.capture.gpu_dump import find_gpu_module, kernels_from_dump
from explorer.capture.jax_levels import (
    capture_memory,
    find_optimized_dump,
    lower_and_compile,
    run_level,
    tpu_program_steps,
    write_normalised,
)
from explorer.capture.mesh_shardings import keep_mesh_devices, keep_sharded_module
from explorer.capture.protocol import ProtocolWriter
from explorer.capture.worker_requests import request_options
from explorer.model.records import CaptureOptions, MemoryLevel
from explorer.model.serial import dump_json, load_json, write_text_atomic
from explorer.model.training import STEP_FILE
from explorer.targets import TargetSpec


def is_step_request(request: dict) -> bool:
    """Whether the request needs this path (else the plain inference capture runs)."""
    return request.get("mode", "inference") != "inference" or bool(request.get("mesh"))


def capture_step(request: dict, spec: TargetSpec, out_dir: Path, dump_dir: Path,
                 protocol: ProtocolWriter) -> None:
    options = request_options(request)
    if not request.get("passes"):  # (--passes filters the dump its own way)
        # XLA dumps only the step's module: the comparison calls and JAX's helper modules would
        # write thousands of files nobody reads (before jax is imported: XLA reads the flags once).
        os.environ["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} --xla_dump_hlo_module_re={step_module(request)}"
    loaded = []  # the model and the step's argument layout, which come with the lowering
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="compile")
    comparisons: dict[str, Future] = {}

    def lower(model):
        lowering, layout = jax_train.lower_step(model, request["signature"], spec, options)
        loaded.append((model, layout))
        # XLA compiles on other threads (a compile releases the GIL) while this one traces the calls
        # compiled only for comparison and writes the HLO level: on ResNet50 they overlap the step's compile.
        hlo = jax_compile.hlo_text(lowering)  # read before the compile starts: the module is not shared
        step = _Compiling(hlo, pool.submit(lowering.lowered.compile))
        comparisons.update(_start_comparisons(model, request, spec, options, pool))
        return dataclasses.replace(lowering, lowered=step)

    try:
        steps = lower_and_compile(request, out_dir, protocol, lower)
        if steps is None:
            return
        _capture_levels(steps, loaded[0], comparisons, request, spec, out_dir, dump_dir, protocol)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Compiling:
    """Stands for the step's JAX `Lowered` once its compile was started on another thread:
    `compile()` waits for it, `as_text()` is the text `jax_compile.hlo_text` reads."""

    def __init__(self, hlo: str, compiling: Future) -> None:
        self._hlo, self._compiling = hlo, compiling

    def compile(self):
        return self._compiling.result()

    def as_text(self, dialect: str, debug_info: bool) -> str:
        assert (dialect, debug_info) == ("hlo", True), "only the text hlo_text asks for was taken"
        return self._hlo


def step_module(request: dict) -> str:
    """The XLA module name of the step a request compiles (the dump is filtered to it)."""
    return jax_train.TRAIN_MODULE if request.get("mode", "inference") == "train" else jax_compile.MODULE_NAME


def _start_comparisons(model, request: dict, spec: TargetSpec, options: CaptureOptions,
                       pool: ThreadPoolExecutor) -> dict[str, Future]:
    """Trace (here: Keras and JAX tracing is not thread-safe) and start compiling what step.json
    compares the step with: the inference call (train mode), the step without remat (--remat)."""
    started = {}
    if options.mode == "train":
        inference, _ = jax_train.lower_step(model, request["signature"], spec, options, mode="inference")
        started["inference"] = pool.submit(inference.lowered.compile)
    if options.remat:
        plain, _ = jax_train.lower_step(model, request["signature"], spec, dataclasses.replace(options, remat=False))
        started["without remat"] = pool.submit(plain.lowered.compile)
    return started


def _capture_levels(steps, loaded, comparisons: dict[str, Future], request: dict, spec: TargetSpec,
                    out_dir: Path, dump_dir: Path, protocol: ProtocolWriter) -> None:
    module_name = step_module(request)
    _lowering, compiled = steps
    _model, layout = loaded
    # XLA:CPU's dump is read by file prefix: keep only this module's files (the inference
    # call compiled below, and JAX's helper modules, write there too).
    module_dump = _module_files(dump_dir, module_name) if spec.kind == "cpu" else dump_dir
    optimized_path = (_find_cpu_optimized(module_dump) if spec.kind == "cpu"
                      else find_optimized_dump(dump_dir, module_name))
    optimized = optimized_path.read_text(encoding="utf-8") if optimized_path else compiled.as_text()
    write_normalised(out_dir / "optimized_hlo.txt", optimized)
    write_parsed(out_dir / "optimized_hlo.txt")
    analysis = jax_compile.memory_figures(compiled)
    dump_json(layout, out_dir / STEP_FILE)  # the comparisons' figures are added once they are compiled
    if request.get("mesh"):  # the mesh view's source: every value's global shape and sharding
        keep_sharded_module(dump_dir, module_name, out_dir)
        keep_mesh_devices(compiled, out_dir)
    protocol.level_done("optimized-hlo")

    if spec.kind == "cpu":
        run_level(protocol, "memory", lambda: _cpu_levels(module_dump, out_dir, analysis))
        run_level(protocol, "kernels", lambda: None)  # written with the memory level from the same dump
    else:
        run_level(protocol, "memory", lambda: capture_memory(out_dir, optimized_path, compiled, analysis))
        run_level(protocol, "kernels", lambda: _kernels(spec, out_dir, module_dump, optimized, module_name))
    if comparisons:  # waited for last: reading the dump above overlapped their compiles
        dump_json(_with_comparisons(layout, compiled, comparisons), out_dir / STEP_FILE)


def _with_comparisons(layout, compiled, comparisons: dict[str, Future]):
    if "inference" in comparisons:  # the inference call on the same devices, for the comparison
        layout = dataclasses.replace(
            layout, inference_analysis=jax_compile.memory_figures(comparisons["inference"].result()))
    if "without remat" in comparisons:  # the same step keeping its activations: what remat saves and costs
        plain_compiled = comparisons["without remat"].result()
        plain_cost, own_cost = jax_compile.cost(plain_compiled), jax_compile.cost(compiled)
        layout = dataclasses.replace(
            layout, without_remat_analysis=jax_compile.memory_figures(plain_compiled),
            flops=(own_cost.flops if own_cost else 0.0, plain_cost.flops if plain_cost else 0.0))
    return layout


def _module_files(dump_dir: Path, module_name: str) -> Path:
    """A folder holding only this module's dump files: the worker's process compiles helper modules too."""
    own = dump_dir / f"only-{module_name}"
    own.mkdir(exist_ok=True)
    for path in dump_dir.glob(f"*.{module_name}.*"):
        if path.is_file() and not (own / path.name).exists():
            shutil.copy2(path, own / path.name)
    return own


def _find_cpu_optimized(module_dump: Path) -> Path | None:
    found = sorted(module_dump.glob("*.cpu_after_optimizations.txt"))
    return found[-1] if found else None


def _cpu_levels(module_dump: Path, out_dir: Path, analysis) -> None:
    """XLA:CPU's dump read as the TensorFlow worker reads its own (kernels, buffer assignment)."""
    hlo = (out_dir / "hlo.txt").read_text(encoding="utf-8")  # the traced module, with layer op_names
    read_cpu_dump(module_dump, out_dir)
    write_text_atomic(out_dir / "hlo.txt", hlo)
    path = out_dir / "memory.json"
    memory = load_json(MemoryLevel, path) if path.is_file() else MemoryLevel(allocations=(), peak_bytes=0)
    dump_json(dataclasses.replace(memory, analysis=analysis), path)


def _kernels(spec: TargetSpec, out_dir: Path, module_dump: Path, optimized: str, module_name: str) -> None:
    if spec.kind == "gpu":
        files = find_gpu_module(module_dump, module_name)
        if files is None or files.thunk_sequence is None:
            raise RuntimeError("XLA:GPU wrote no thunk sequence for this module")
        kernels = kernels_from_dump(files)
    else:
        kernels = tpu_program_steps(optimized)
    dump_json(kernels, out_dir / "kernels.json")
