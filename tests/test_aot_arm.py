"""An ARM target without running a compiler: XLA's ahead-of-time dump (tests/fixtures/xla_dump_aot, recorded
by its regenerate.py) read into the target's files, the AArch64 listing readers, the worker's request check,
and the bad input a capture refuses before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture import aarch64, listing
from explorer.capture.cpu_dump import read_cpu_dump
from explorer.capture.disassembly import EM_AARCH64, disassemble_object, exported_functions, machine
from explorer.capture.protocol import parse_event
from explorer.hlo.parser import parse_module
from explorer.model.records import KernelRecord, MemoryLevel
from explorer.model.serial import load_json
from explorer.targets import AOT_INSTALL_HINT, TARGETS

FIXTURE = Path(__file__).parent / "fixtures" / "xla_dump_aot" / "cnn"


def _object() -> bytes:
    (path,) = FIXTURE.glob("*obj-file.cloned_to_local_context.o")
    return path.read_bytes()


@pytest.fixture(scope="module")
def arm_files(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("arm-cortex-a76")
    read_cpu_dump(FIXTURE, out)
    return out


def test_the_ahead_of_time_object_is_aarch64_and_its_kernels_are_its_exported_functions():
    elf = _object()
    assert machine(elf) == EM_AARCH64 and listing.isa_of_object(elf) == listing.AARCH64
    functions = exported_functions(elf)
    assert "tfcompile_xla_generated_tfcompile_5_Model_dot_kernel" in functions
    assert "tfcompile_xla_generated_tfcompile_5_Model_wrapped_reduce_window" in functions


def test_a_branch_to_a_local_function_is_annotated_with_its_name():
    listings = dict(disassemble_object(_object()))
    dot = listings["tfcompile_xla_generated_tfcompile_5_Model_dot_kernel"]
    (call,) = [line for line in dot.splitlines() if " bl " in line]
    assert call.endswith("# row_major_gemv_F32_8_4_10_1352_1")


def test_the_whole_module_unit_becomes_one_kernel_per_instruction(arm_files):
    kernels = {k.name: k for k in load_json(list[KernelRecord], arm_files / "kernels.json")}
    module = parse_module((arm_files / "optimized_hlo.txt").read_text(encoding="utf-8"))
    names = {i.name for _c, i in module.all_instructions()}
    assert set(kernels) <= names  # named after the instruction each implements, not the symbol
    assert {"dot", "wrapped_reduce-window", "broadcast_maximum_fusion", "subtract_exponential_fusion"} <= set(kernels)
    dot = kernels["dot"]
    assert dot.kind == "emitter" and dot.hlo == ("dot",)
    # Its listing holds the gemv routine it branches to, with NEON's four f32 lanes per FMLA.
    assert "row_major_gemv_F32_8_4_10_1352_1:" in dot.asm and "fmla v" in dot.asm and ".4s" in dot.asm
    assert dot.vector_width_bits == 128 and all(r.startswith("v") for r in dot.vector_registers)
    assert "define internal fastcc void @row_major_gemv_F32" in dot.llvm_ir_optimized  # its IR and the callee's
    assert "@tfcompile_xla_generated_tfcompile_5_Model_wrapped_reduce" not in dot.llvm_ir_optimized


def test_the_convolution_is_a_runtime_call_on_arm_as_on_x86(arm_files):
    kernels = load_json(list[KernelRecord], arm_files / "kernels.json")
    (conv,) = [k for k in kernels if k.name.startswith("convolution")]
    assert conv.kind == "library" and not conv.asm  # XLA emits no code for it: the runtime's Eigen does the work


def test_memory_and_hlo_levels_are_those_of_the_cpu_target(arm_files):
    memory = load_json(MemoryLevel, arm_files / "memory.json")
    assert memory.allocations and memory.live_ranges
    assert (arm_files / "buffer_assignment.txt").is_file() and (arm_files / "memory_report.txt").is_file()
    parse_module((arm_files / "hlo.txt").read_text(encoding="utf-8"))
    after = (arm_files / "optimized_hlo.txt").read_text(encoding="utf-8")
    assert "op_name=\"mnist_cnn_1/conv2d_1/convolution\"" in after  # Keras's name scopes: the thread to the layers


# --- the AArch64 readers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("line, access, registers, memory", [
    ("      94:  mla v4.4s, v16.4s, v17.4s", "compute", ("v4.4s", "v16.4s", "v17.4s"), ""),
    ("      8c:  ldr q16, [x14], #0x10", "load", ("v16",), "[x14]"),
    ("     2a0:  fdiv s1, s1, s0", "compute", ("v1.s[0]", "v0.s[0]"), ""),
    ("     33c:  stp s1, s2, [x10, #-0x10]", "store", ("v1.s[0]", "v2.s[0]"), "[x10, #-0x10]"),
    ("\tfmla\tv18.4s, v22.4s, v1.s[0]", "compute", ("v18.4s", "v22.4s", "v1.s[0]"), ""),
    ("      60:  movi v4.2d, #0000000000000000", "", ("v4.2d",), ""),
    ("     390:  b.ne #0x328", "", (), ""),
], ids=["mla", "ldr-q", "scalar-fdiv", "stp-scalars", "llvm-text-fmla", "movi", "branch"])
def test_an_aarch64_line_reads_into_its_access_registers_and_memory(line, access, registers, memory):
    read = aarch64.read_line(line)
    assert (read.access, read.vector_registers, read.memory) == (access, registers, memory)


def test_vector_width_lanes_and_registers_of_an_aarch64_listing():
    asm = ("  0:  fmla v0.4s, v4.4s, v6.4s\n  4:  fmla v0.4s, v5.4s, v6.4s\n  8:  ldr q4, [x0]\n"
           "  c:  faddp v1.2s, v2.2s, v3.2s")
    width, names = aarch64.vector_registers(asm)
    assert width == 128 and names == ("v0.4s", "v1.2s", "v2.2s", "v3.2s", "v4.4s", "v5.4s", "v6.4s")
    assert listing.lanes(asm, listing.AARCH64, width) == (4, 32)  # the arithmetic's, not the moves' `.16b`
    assert listing.lanes("  0:  mov v1.16b, v0.16b\n  4:  fadd v1.4s, v1.4s, v2.4s", listing.AARCH64, 128) == (4, 32)
    assert listing.register_count(("v0.4s", "v0.2d", "v1.4s")) == 2
    assert aarch64.vector_registers("  0:  fdiv s1, s1, s0") == (0, ())  # scalar code: no vector width
    assert aarch64.scalar_only(("v1.s[0]", "v0.s[0]")) and not aarch64.scalar_only(("v1.4s",))
    assert listing.instruction_count(asm + "\nlabel:\n", listing.AARCH64) == 4
    assert listing.lanes("vaddps zmm0, zmm1, zmm2", listing.X86_64, 512) == (16, 32)  # x86: 32-bit lanes


# --- the worker and the command line -------------------------------------------------------------------


@pytest.mark.parametrize("request_line, fragment", [
    ('{"model": "mnist_cnn", "signature": [], "out_dir": "x"}', "request has no 'target'"),
    ('{"model": "mnist_cnn", "signature": [], "target": "cpu", "out_dir": "x"}',
     "the ahead-of-time worker does not compile for 'cpu'"),
    ('{"model": "mnist_cnn", "signature": [], "target": "tvm:arm", "out_dir": "x"}',
     "the ahead-of-time worker does not compile for 'tvm:arm'"),
], ids=["no-target", "the-jit-cpu", "tvm-arm"])
def test_the_worker_refuses_a_bad_request(request_line, fragment):
    result = subprocess.run([sys.executable, "-I", "-m", "explorer.capture.aot_worker"], input=request_line + "\n",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    events = [parse_event(line) for line in result.stdout.splitlines()]
    assert [e.kind for e in events] == ["fatal"] and fragment in events[0].error
    assert "Traceback" not in result.stderr


# The real entry point on a TensorFlow without XLA's ahead-of-time compiler (`sys.modules[name] = None`
# is Python's mark of a module that must not import).
WITHOUT_TFCOMPILE = ("import sys; sys.modules['tensorflow.python._pywrap_tfcompile'] = None; "
                     "from screens.cli import main; sys.exit(main(sys.argv[1:]))")


def test_a_tensorflow_without_the_ahead_of_time_compiler_is_one_error_line_and_nothing_written(tmp_path):
    out = tmp_path / "bundle"
    result = subprocess.run([sys.executable, "-c", WITHOUT_TFCOMPILE, "capture", "mnist_cnn", "--targets",
                             "cpu,arm:cortex-a76", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [f"error: target arm:cortex-a76: {AOT_INSTALL_HINT}"]
    assert not out.exists()


@pytest.mark.parametrize("words, fragment", [
    (["--targets", "arm:cortex-a99"], "unknown target 'arm:cortex-a99': the arm targets are arm:cortex-a76"),
    (["--targets", "arm:cortex-a76", "--mode", "train"], "--mode train: arm:cortex-a76 compiles the inference"),
    (["--targets", "arm:neoverse-n1", "--mesh", "2x2", "--shard", "data"], "arm:neoverse-n1 is one device"),
], ids=["unknown-core", "train-mode", "mesh"])
def test_what_no_ahead_of_time_compile_could_make_is_refused_before_a_worker_starts(tmp_path, words, fragment):
    out = tmp_path / "bundle"
    result = subprocess.run([sys.executable, "-m", "screens.cli", "capture", "mnist_cnn", *words, "-o", str(out)],
                            capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and fragment in line
    assert not out.exists() and not (tmp_path / "cache" / "bundles").exists()


def test_the_arm_rows_are_compiled_by_the_ahead_of_time_worker():
    for name in ("arm:cortex-a76", "arm:neoverse-n1"):
        spec = TARGETS[name]
        assert spec.worker == "aot" and spec.compiler == "xla" and spec.kind == "cpu" and spec.inference_only
        assert spec.llvm("mtriple") == "aarch64-linux-gnu" and spec.isa == "aarch64"
    assert TARGETS["arm:neoverse-n1"].llvm("mcpu") == "neoverse-n1"
