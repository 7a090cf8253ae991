"""The TVM capture worker: `tvm:cpu` (Keras -> ONNX -> Relax -> TIR -> x86) or `tvm:arm` (the same, LLVM's
aarch64 backend for the row's ARM core), in its own process.

Run as `python -m explorer.capture.tvm_worker` with one JSON request on stdin:
    {"model_file": ".../model.json", "unsafe": false,
     "signature": [["image", [1, 28, 28, 1], "float32"]],
     "target": "tvm:cpu", "out_dir": ".../targets/tvm-cpu"}
It writes, into out_dir (the levels the learner knows, filled with TVM's answer):
    hlo.txt             Relax as imported from ONNX (TVMScript)          level `hlo`
    optimized_hlo.txt   Relax after FuseOps + FuseTIR (TVMScript)          level `optimized-hlo`
    tvm.json            TvmProgram: each TIR function, its ops, ONNX nodes, layers, TIR
    kernels.json        one KernelRecord per TIR function: LLVM IR, x86 or AArch64 assembly   level `kernels`
    memory.json         TVM's static memory plan (StaticPlanBlockMemory)         level `memory`
    model.onnx is not kept (the weights are random: only shapes matter to a compiler).
There is no hlo.json: Relax is not HLO, so the HLO parser and the cross-level
index leave this target's text alone; explorer.views.compare links it to the layers.

A model that does not export to ONNX, or an op TVM rejects, fails this target's
levels with that reason; the rest of the capture stands.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

from explorer.capture import tvm_compile
from explorer.capture.listing import AARCH64, vector_registers
from explorer.capture.protocol import EXIT_BAD_INPUT, ProtocolWriter, one_line, read_request, take_over_stdout
from explorer.model.normalise import normalise_text
from explorer.model.records import KernelRecord
from explorer.model.serial import dump_json, write_text_atomic
from explorer.model.tvm_program import (
    TVM_PROGRAM_FILE,
    TvmProgram,
    asm_by_function,
    asm_labels,
    llvm_ir_by_function,
    plt_calls,
    static_memory_plan,
)
from explorer.targets import TARGETS, availability

LEVELS = ("hlo", "optimized-hlo", "memory", "kernels")


def _write(path: Path, text: str) -> None:
    write_text_atomic(path, normalise_text(text))


def run(request: dict, protocol: ProtocolWriter) -> None:
    out_dir = Path(request["out_dir"])
    out_dir.mkdir(parents=True, exist_ok=True)
    missing = availability(request["target"])
    if missing:
        for level in LEVELS:
            protocol.level_failed(level, missing)
        return
    os.environ["KERAS_BACKEND"] = "tensorflow"  # Keras exports ONNX through tf2onnx on this backend
    llvm = TARGETS[request["target"]].llvm_target
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

    protocol.level_started("hlo")
    try:
        with tempfile.TemporaryDirectory(prefix="tensorweg-onnx-") as folder:
            model = tvm_compile.load_keras_model(request["model_file"], bool(request.get("unsafe")))
            onnx_path = Path(folder) / "model.onnx"
            scopes = tvm_compile.export_onnx(model, request["signature"], onnx_path)
            imported = tvm_compile.import_onnx(onnx_path, request["signature"], scopes)
        _write(out_dir / "hlo.txt", imported.module.script())
        # {scope: layer} as the other workers write it: the index links TVM's kernels through it.
        write_text_atomic(out_dir / "scopes.json", json.dumps(scopes, indent=1))
    except Exception as exc:  # the exporter's or TVM's reason is what the user needs
        _fail_all(protocol, "ONNX export or TVM import failed", exc)
        return
    protocol.level_done("hlo")

    protocol.level_started("optimized-hlo")
    try:
        grouped_module, groups = tvm_compile.grouped(imported, llvm)
        fused = tvm_compile.run_passes(grouped_module, tvm_compile.PIPELINE[4:], llvm)
        functions = tvm_compile.functions(imported, fused, groups)
        _write(out_dir / "optimized_hlo.txt", fused.script())
        program = TvmProgram(functions, tvm_compile.target_text(llvm), " -> ".join(tvm_compile.PIPELINE),
                             tvm_compile.exporter_versions())
        dump_json(program, out_dir / TVM_PROGRAM_FILE)
    except Exception as exc:
        _fail_all(protocol, "TVM fusion failed", exc, LEVELS[1:])
        return
    protocol.level_done("optimized-hlo")

    protocol.level_started("memory")
    try:
        planned = tvm_compile.run_passes(fused, tvm_compile.PLAN_PASSES, llvm)
        dump_json(static_memory_plan(planned["main"].script()), out_dir / "memory.json")
        protocol.level_done("memory")
    except Exception as exc:
        _fail_all(protocol, "TVM memory planning failed", exc, ("memory",))

    protocol.level_started("kernels")
    try:
        asm, llvm_ir = tvm_compile.build(fused, llvm)
        dump_json(_kernels(program, asm, llvm_ir, TARGETS[request["target"]].isa), out_dir / "kernels.json")
    except Exception as exc:
        _fail_all(protocol, "TVM build failed", exc, ("kernels",))
        return
    protocol.level_done("kernels")


def _kernels(program: TvmProgram, asm: str, llvm_ir: str, isa: str) -> list:
    names = [f.name for f in program.functions]
    asm_of, ir_of = asm_by_function(asm, names), llvm_ir_by_function(llvm_ir, names)
    defined = asm_labels(asm) if isa == AARCH64 else None  # `bl expf` names no PLT: whatever the module lacks
    records = []
    for function in program.functions:
        width, registers = vector_registers(asm_of[function.name], isa)
        what = "fused by TVM: " + " + ".join(op.rsplit(".", 1)[-1] for op in function.ops) if function.fused \
            else "one op, not fused"
        records.append(KernelRecord(
            name=function.name, hlo=function.onnx_nodes, kind="fusion" if function.fused else "op",
            llvm_ir=normalise_text(ir_of[function.name]), asm=normalise_text(asm_of[function.name]),
            vector_width_bits=width, vector_registers=registers,
            library_calls=plt_calls(asm_of[function.name], defined),
            notes=f"TVM TIR function ({what}); hlo names the ONNX nodes it computes"))
    return records


def _fail_all(protocol: ProtocolWriter, what: str, exc: BaseException, levels: tuple[str, ...] = LEVELS) -> None:
    traceback.print_exc(file=sys.stderr)
    reason = f"{what}: {type(exc).__name__}: {one_line(exc)}"
    for level in levels:
        protocol.level_failed(level, reason)


def check_request(request: dict) -> dict:
    for key in ("model_file", "signature", "target", "out_dir"):
        if key not in request:
            raise ValueError(f"request has no {key!r}")
    if TARGETS.get(request["target"]) is None or TARGETS[request["target"]].compiler != "tvm":
        raise ValueError(f"the TVM worker does not compile for {request['target']!r}")
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
