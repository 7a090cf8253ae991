"""The levels every JAX capture writes, inference call or training step alike.

Shared by the JAX worker (explorer.capture.jax_worker, the inference call), its training-step
and mesh path (explorer.capture.jax_step_capture) and the mesh snapshots
(explorer.capture.mesh_shardings), which import this module and not the worker: the HLO step
and the compile (`lower_and_compile`), finding XLA's optimized dump, the memory level from the
buffer assignment beside it, TPU program steps in place of kernels, and writing each file
normalised. Compilers are imported inside the functions that need them: the worker sets XLA's
flags before jax is imported.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import traceback
from pathlib import Path

from explorer.capture import jax_compile
from explorer.capture.artifacts import write_parsed
from explorer.capture.dtype_policy import set_global_policy
from explorer.capture.protocol import ProtocolWriter
from explorer.errors import ParseError, TensorwegError
from explorer.hlo.scan import INSTRUCTION, custom_call_target, entry_lines
from explorer.model.buffer_assignment import parse_buffer_assignment, parse_live_ranges, parse_xla_peak
from explorer.model.normalise import normalise_text
from explorer.model.records import KernelRecord, MemoryLevel
from explorer.model.serial import dump_json, write_text_atomic

LEVELS = ("hlo", "optimized-hlo", "memory", "kernels")


def normalise(text: str) -> str:
    return normalise_text(text)


def write_normalised(path: Path, text: str) -> None:
    """Everything a capture writes is normalised first (no absolute paths, no run hashes)."""
    write_text_atomic(path, normalise(text))


# --- the dump ------------------------------------------------------------------


def find_optimized_dump(dump_dir: Path, module_name: str) -> Path | None:
    """The accelerator's `*after_optimizations.txt` for `module_name` (latest wins).

    The dump also holds small XLA:CPU modules JAX compiles while loading the
    model; those are named `cpu_after_optimizations` and skipped.
    """
    candidates = sorted(
        p for p in dump_dir.glob(f"module_*.{module_name}.*after_optimizations.txt")
        if "cpu_after_optimizations" not in p.name
    )
    return candidates[-1] if candidates else None


def sibling(optimized: Path, suffix: str) -> Path | None:
    path = optimized.with_name(optimized.name[: -len(".txt")] + suffix)
    return path if path.exists() else None


# --- TPU: program steps instead of kernels --------------------------------------

# Entry instructions that are bookkeeping, not work the chip does.
_NOT_STEPS = frozenset({
    "parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy-done",
    "after-all", "partition-id", "replica-id", "opt-barrier",
})
TPU_NOTE = ("TPU: XLA:TPU emits no inspectable machine code; this is one step of the "
            "optimized entry computation.")


def tpu_program_steps(optimized_hlo: str) -> list[KernelRecord]:
    """One record per top-level fusion, custom call, copy or op of the entry computation."""
    records = []
    for line in entry_lines(optimized_hlo):
        match = INSTRUCTION.match(line)
        if not match or match["opcode"] in _NOT_STEPS:
            continue
        target = custom_call_target(line)
        kind = {"fusion": "fusion", "custom-call": "library", "copy": "copy",
                "copy-start": "copy"}.get(match["opcode"], "op")
        records.append(KernelRecord(
            name=match["name"], hlo=(match["name"],), kind=kind,
            library_calls=(target,) if target else (),
            notes=TPU_NOTE,
        ))
    return records


# --- memory --------------------------------------------------------------------


def memory_level(buffer_assignment: str, live_range: str, report: str,
                 analysis: tuple[tuple[str, int], ...]) -> MemoryLevel:
    """Allocations from XLA's buffer assignment, live ranges and peak from its
    live-range file, plus jax's memory_analysis() figures.

    When the buffer assignment does not parse, the level keeps the figures and
    the report (the reason goes to stderr, i.e. capture.log).
    """
    memory = MemoryLevel(allocations=(), peak_bytes=0)
    try:
        if buffer_assignment:
            memory = parse_buffer_assignment(buffer_assignment)
        if live_range and not memory.live_ranges:
            ranges = parse_live_ranges(live_range)
            memory = dataclasses.replace(memory, live_ranges=ranges,
                                         live_ranges_source="xla" if ranges else "")
        if live_range and not memory.peak_bytes:
            peak = parse_xla_peak(live_range)
            if peak is not None:
                memory = dataclasses.replace(memory, peak_bytes=peak, peak_source="xla")
    except ParseError as exc:
        print(f"buffer assignment not parsed: {exc}", file=sys.stderr)
    return dataclasses.replace(memory, report=report, analysis=analysis)


def capture_memory(out_dir: Path, optimized_path: Path | None, compiled, analysis=None) -> None:
    """memory.json (and the raw dump files) from XLA's buffer assignment beside the optimized
    module, with `analysis` (XLA's memory_analysis figures; the compiled module's by default)."""
    raw = {}
    for name, suffix in (("buffer_assignment.txt", "-buffer-assignment.txt"),
                         ("live_range.txt", "-live-range.txt"),
                         ("memory_report.txt", "-memory-usage-report.txt")):
        found = sibling(optimized_path, suffix) if optimized_path else None
        raw[name] = normalise(found.read_text(encoding="utf-8")) if found else ""
        if found:
            write_text_atomic(out_dir / name, raw[name])
    memory = memory_level(raw["buffer_assignment.txt"], raw["live_range.txt"],
                          raw["memory_report.txt"],
                          analysis if analysis is not None else jax_compile.memory_figures(compiled))
    dump_json(memory, out_dir / "memory.json")
    cost = jax_compile.cost(compiled)
    if cost is not None:
        dump_json(cost, out_dir / "cost.json")


# --- the run ---------------------------------------------------------------------


def lower_and_compile(request: dict, out_dir: Path, protocol: ProtocolWriter, lower):
    """The HLO step and the compile every JAX capture starts with (inference or a training step):
    `lower(model)` gives the lowering; its HLO text and scopes are written, then XLA compiles it.
    Returns (lowering, compiled), or None once the levels that cannot follow are reported failed."""
    protocol.level_started("hlo")
    try:
        set_global_policy(request.get("dtype", ""))  # model.json names each layer's; sub-layers take this one
        model = jax_compile.load_model(request["model_file"], bool(request.get("unsafe")))
        lowering = lower(model)
        write_normalised(out_dir / "hlo.txt", jax_compile.hlo_text(lowering))
        write_parsed(out_dir / "hlo.txt")
    except TensorwegError as exc:  # the user's input does not fit the model (a --layout-map key): nothing is kept
        protocol.fatal(exc)
        return None
    except Exception as exc:  # any failure is reported, not raised
        for level in LEVELS:
            protocol.level_failed(level, f"{type(exc).__name__}: {exc}")
        return None
    write_text_atomic(out_dir / "scopes.json", json.dumps(lowering.scopes, indent=1))
    protocol.level_done("hlo")

    protocol.level_started("optimized-hlo")
    try:
        compiled = lowering.lowered.compile()
    except Exception as exc:  # XLA's message is what the user needs
        for level in LEVELS[1:]:
            protocol.level_failed(level, exc)
        return None
    return lowering, compiled


def run_level(protocol: ProtocolWriter, level: str, capture) -> None:
    """Run one level's capture; a failure fails that level only."""
    protocol.level_started(level)
    try:
        capture()
    except Exception as exc:  # reported as the level's error

        traceback.print_exc(file=sys.stderr)
        protocol.level_failed(level, f"{type(exc).__name__}: {exc}")
        return
    protocol.level_done(level)
