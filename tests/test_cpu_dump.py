"""XLA:CPU dump -> cpu target files (explorer.capture.cpu_dump) and the disassembler,
on the real dump in tests/fixtures/xla_dump_cpu, plus an end-to-end run of the compiler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture.cpu_dump import read_cpu_dump
from explorer.capture.disassembly import (
    disassemble_object,
    exported_functions,
    library_calls,
    listing_text,
    vector_registers,
)
from explorer.errors import ParseError
from explorer.hlo.parser import parse_module
from explorer.model.records import KernelRecord, MemoryLevel
from explorer.model.serial import load_json

FIXTURE = Path(__file__).parent / "fixtures" / "xla_dump_cpu"


def _object(kind: str, unit: str) -> bytes:
    (path,) = (FIXTURE / kind).glob(f"*obj-file.{unit}.o")
    return path.read_bytes()


def test_dot_emitter_call_is_resolved_through_its_relocation():
    elf = _object("cnn", "part_00")
    listings = dict(disassemble_object(elf))
    assert exported_functions(elf) == ("dot_add_fusion",)
    (helper,) = [name for name in listings if name.startswith("col_major_gemv_F32")]
    call_lines = [line for line in listings["dot_add_fusion"].splitlines() if "call" in line]
    assert call_lines and all(line.endswith(f"# {helper}") for line in call_lines)


def test_libm_calls_show_by_name():
    asm = listing_text(disassemble_object(_object("libm_calls", "power_add_fusion_kernel_module")))
    assert library_calls(asm) == ("atan2", "fmod", "pow", "sincos")
    assert library_calls(["pow", "atan2", "pow"]) == ("atan2", "pow")


def test_vector_registers():
    assert vector_registers("vaddps ymm1, ymm2, ymm3\nmovss xmm0, dword ptr [rax]") == (
        256, ("xmm0", "ymm1", "ymm2", "ymm3"))
    assert vector_registers("vaddps zmm31, zmm1, zmm2")[0] == 512
    assert vector_registers("ret") == (0, ())


def test_not_an_object_is_a_parse_error():
    with pytest.raises(ParseError):
        disassemble_object(b"HloModule m")


@pytest.fixture(scope="module")
def cnn_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cpu")
    read_cpu_dump(FIXTURE / "cnn", out)
    return out


def test_files_written(cnn_out):
    names = {p.name for p in cnn_out.iterdir()}
    assert {"hlo.txt", "optimized_hlo.txt", "buffer_assignment.txt", "memory_report.txt",
            "memory.json", "kernels.json"} <= names
    for path in cnn_out.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "/work/" not in text and "config_proto_" not in text


def test_memory_json_round_trips(cnn_out):
    memory = load_json(MemoryLevel, cnn_out / "memory.json")
    assert memory.allocations and memory.live_ranges and memory.peak_bytes > 0
    assert "Total bytes used" in memory.report


def _kernels(out: Path) -> list[KernelRecord]:
    return load_json(list[KernelRecord], out / "kernels.json")


def test_kernels_match_optimized_hlo_instructions(cnn_out):
    kernels = {k.name: k for k in _kernels(cnn_out)}
    optimized = (cnn_out / "optimized_hlo.txt").read_text()
    for kernel in kernels.values():
        for name in kernel.hlo:
            assert f"%{name} = " in optimized
    fusion = kernels["broadcast_maximum_fusion"]
    assert fusion.kind == "fusion" and fusion.hlo == ("broadcast_maximum_fusion",)
    assert "define" in fusion.llvm_ir and "define" in fusion.llvm_ir_optimized
    assert fusion.asm.startswith("broadcast_maximum_fusion:") and fusion.vector_width_bits >= 128
    assert kernels["dot_add_fusion"].kind == "emitter"


def test_every_working_instruction_is_traceable(cnn_out):
    module = parse_module((cnn_out / "optimized_hlo.txt").read_text())
    covered = {name: k for k in _kernels(cnn_out) for name in k.hlo}
    idle = {"parameter", "constant", "bitcast", "tuple", "get-tuple-element"}
    for instruction in module.entry.instructions:
        if instruction.opcode not in idle:
            assert instruction.name in covered, instruction.name
    # The convolution has no emitted code: XLA:CPU runs it in its runtime library.
    assert covered["convolution.1"].kind == "library" and not covered["convolution.1"].asm


def test_missing_files_write_what_exists(tmp_path):
    (source,) = (FIXTURE / "libm_calls").glob("*cpu_after_optimizations.txt")
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / source.name).write_text(source.read_text())
    read_cpu_dump(dump, tmp_path / "out")
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"optimized_hlo.txt", "kernels.json"}
    read_cpu_dump(tmp_path / "empty-does-not-exist", tmp_path / "out2")
    assert list((tmp_path / "out2").iterdir()) == []


@pytest.mark.e2e
def test_fresh_dump_from_the_real_compiler(tmp_path):
    dump = tmp_path / "dump"
    subprocess.run([sys.executable, str(FIXTURE / "regenerate.py"), "--raw", str(dump), "cnn"], check=True)
    out = tmp_path / "cpu"
    read_cpu_dump(dump, out)
    kernels = _kernels(out)
    assert any(k.kind == "fusion" and k.asm for k in kernels)
    memory = load_json(MemoryLevel, out / "memory.json")
    assert memory.peak_bytes > 0 and memory.live_ranges
