"""GPU kernels down to SASS: the real ptxas and cuobjdump (from the wheels the project installs)
on XLA:GPU's recorded H100 PTX, the parsing on their recorded output, the occupancy estimate,
and what the panes and `inspect --json` show of it.

Fixtures: tests/fixtures/xla_dump_gpu/cnn (XLA's own dump), tests/fixtures/sass (README.txt says
how the tools' output was recorded), tests/fixtures/bundles/mnist_cnn (a real capture).
"""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.capture import sass
from explorer.capture.gpu_dump import find_gpu_module, kernels_from_dump
from explorer.cli.main import main as cli_main
from explorer.model import occupancy
from explorer.model.bundle import Bundle
from explorer.model.records import KernelRecord, LaunchShape, PtxasReport
from explorer.model.serial import from_jsonable
from explorer.targets import TARGETS
from explorer.views import explain, panes, tables
from explorer.views.programs.xla import sass_keys

from pilot_support import BUNDLE, needs_bundle

FIXTURES = Path(__file__).parent / "fixtures"
WHEELS_PLATFORM = sys.platform == "linux" and platform.machine() == "x86_64"
needs_wheels = pytest.mark.skipif(not WHEELS_PLATFORM, reason="NVIDIA's tool wheels are Linux x86-64 only")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[str, KernelRecord]:
    """The CNN's kernels after the real ptxas and cuobjdump, by name."""
    if not WHEELS_PLATFORM:
        pytest.skip("NVIDIA's tool wheels are Linux x86-64 only")
    kernels = kernels_from_dump(find_gpu_module(FIXTURES / "xla_dump_gpu" / "cnn", "jit_fwd"))
    return {k.name: k for k in sass.with_sass(kernels, tmp_path_factory.mktemp("sass"))}


@needs_wheels
def test_the_tools_come_from_the_installed_wheels():
    tools = sass.find_tools()
    assert tools is not None
    for path, wheel_dir in ((tools.ptxas, "cuda_nvcc"), (tools.cuobjdump, "bin"), (tools.nvdisasm, "bin")):
        assert path.is_file() and "site-packages" in path.parts and wheel_dir in path.parts


def test_every_launched_kernel_gets_sass_and_its_ptxas_report(compiled):
    launched = [k for k in compiled.values() if k.ptx]
    assert len(launched) == 4
    for kernel in launched:
        assert kernel.sass and kernel.ptxas is not None and not kernel.sass_note, kernel.name
        assert kernel.ptxas.arch == "sm_90a"  # the PTX's `.target` decides the architecture
        assert "  BRA 0x" in kernel.sass.splitlines()[-1], "ends in the branch to itself after EXIT"


def test_the_transpose_loads_into_real_registers(compiled):
    """The issue's example: 10 registers, the thread index read into R0, a global load and store."""
    kernel = compiled["wrapped_transpose"]
    assert kernel.ptxas == PtxasReport(arch="sm_90a", registers=10)
    lines = kernel.sass.splitlines()
    assert lines[0] == "/*0000*/  LDC R1, c[0x0][0x28] ;"
    assert "/*0010*/  S2R R0, SR_TID.X ;" in lines
    assert any(" LDG." in line for line in lines) and any(" STG." in line for line in lines)
    assert not any("/* 0x" in line for line in lines), "the encodings are dropped"


def test_shared_memory_and_barriers_of_the_reduction(compiled):
    report = compiled["input_reduce_fusion"].ptxas
    assert (report.registers, report.shared_memory_bytes, report.barriers) == (30, 4224, 1)
    assert any(" BAR.SYNC" in line for line in compiled["input_reduce_fusion"].sass.splitlines())


def test_library_calls_have_no_sass_and_no_note(compiled):
    cudnn = compiled["cudnn-conv-bias-activation.3"]
    assert (cudnn.sass, cudnn.ptxas, cudnn.sass_note) == ("", None, "")


@needs_wheels
def test_the_a100_ptx_compiles_for_sm_80(tmp_path):
    ptx = (FIXTURES / "sass" / "a100_loop_add_fusion.ptx").read_text()
    (done,) = sass.with_sass([KernelRecord(name="loop_add_fusion", hlo=(), ptx=ptx)], tmp_path)
    assert done.ptxas == PtxasReport(arch="sm_80", registers=8, constant_memory_bytes=368)
    assert done.sass.startswith("/*0000*/  IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;") and not done.sass_note


@needs_wheels
@pytest.mark.parametrize(("ptx", "note"), [
    (".version 8.8\n.target sm_90a\n.address_size 64\n.visible .entry broken( {\n", "ptxas failed: "),
    (".version 8.8\n.target compute_90\n", "SASS not available: the PTX targets compute_90"),
    (".version 8.8\n", "SASS not available: the PTX targets no architecture"),
])
def test_bad_ptx_leaves_a_one_line_note(tmp_path, ptx, note):
    (done,) = sass.with_sass([KernelRecord(name="broken", hlo=(), ptx=ptx)], tmp_path)
    assert done.sass == "" and done.ptxas is None
    assert done.sass_note.startswith(note) and "\n" not in done.sass_note


def test_without_the_wheels_gpu_kernels_say_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(sass, "TOOL_WHEELS", (("ptxas", "no-such-wheel-for-tensorweg"),))
    kernels = [KernelRecord(name="k", hlo=(), ptx=".target sm_90a\n"), KernelRecord(name="cpu", hlo=(), asm="ret")]
    done = sass.with_sass(kernels, tmp_path)
    assert done[0].sass_note == sass.NOT_AVAILABLE and done[0].ptxas is None
    assert "nvidia-cuda-nvcc-cu12" in sass.NOT_AVAILABLE and "Linux x86-64" in sass.NOT_AVAILABLE
    assert done[1] == kernels[1]
    assert panes.register_lines(done[0], "gpu:h100") == (sass.NOT_AVAILABLE,)


# --- parsing recorded tool output -------------------------------------------------------------


def test_ptxas_report_parses_the_recorded_output():
    text = (FIXTURES / "sass" / "input_reduce_fusion.ptxas-v.txt").read_text()
    assert sass.parse_ptxas_report(text, "input_reduce_fusion", "sm_90a") == PtxasReport(
        arch="sm_90a", registers=30, shared_memory_bytes=4224, barriers=1)
    assert sass.parse_ptxas_report(text, "another_kernel", "sm_90a") is None


def test_normalised_sass_keeps_address_predicate_and_instruction():
    raw = (FIXTURES / "sass" / "wrapped_transpose.cuobjdump-sass.txt").read_text()
    text = sass.split_sass(raw)["wrapped_transpose"]
    lines = text.splitlines()
    assert lines[:2] == ["/*0000*/  LDC R1, c[0x0][0x28] ;", "/*0010*/  S2R R0, SR_TID.X ;"]
    assert lines[-2:] == ["/*0220*/  EXIT ;", "/*0230*/  BRA 0x230 ;"], "alignment NOPs after the end are dropped"
    assert "headerflags" not in text and "Function" not in text
    assert "other_kernel" not in sass.split_sass(raw)


def test_a_predicated_instruction_keeps_its_guard():
    raw = ("\t\tFunction : k\n"
           "        /*0060*/               @P0 EXIT ;                 /* 0x000000000000094d */\n"
           "                                                          /* 0x001fea0003800000 */\n")
    assert sass.split_sass(raw) == {"k": "/*0060*/  @P0 EXIT ;\n"}


# --- occupancy --------------------------------------------------------------------------------


def kernel_with(registers: int, threads: int, shared: int = 0, static_shared: int = 0) -> KernelRecord:
    return KernelRecord(name="k", hlo=(), ptx=".target sm_90a",
                        ptxas=PtxasReport("sm_90a", registers, shared_memory_bytes=static_shared),
                        launch=LaunchShape((1, 1, 1), (threads, 1, 1), shared))


@pytest.mark.parametrize(("target", "kernel", "blocks", "warps", "limited_by"), [
    # 10 registers x 72 threads (3 warps): 21 blocks fill 63 of 64 warps before registers run out.
    ("gpu:h100", kernel_with(10, 72), 21, 63, ("threads per SM",)),
    # 128 registers x 256 threads: 4096 registers a warp, 16 warps of 65536: 2 blocks of 8 warps.
    ("gpu:h100", kernel_with(128, 256), 2, 16, ("registers",)),
    # 33 registers round up to 40 a thread (256 a warp): 51 warps, 12 blocks of 4.
    ("gpu:h100", kernel_with(33, 128), 12, 48, ("registers",)),
    # 48 KiB dynamic shared memory + 1 KiB reserved a block: 228 KiB hold 4 blocks, 164 KiB 3.
    ("gpu:h100", kernel_with(16, 128, shared=48 * 1024), 4, 16, ("shared memory",)),
    ("gpu:a100", kernel_with(16, 128, shared=48 * 1024), 3, 12, ("shared memory",)),
    # One warp a block: the 32 blocks an SM holds are the limit.
    ("gpu:h100", kernel_with(18, 32), 32, 32, ("blocks per SM",)),
    # Static and dynamic shared memory add up; ties name both limits.
    ("gpu:h100", kernel_with(30, 1024, static_shared=4224), 2, 64, ("registers", "threads per SM")),
])
def test_occupancy_estimate(target, kernel, blocks, warps, limited_by):
    estimate = occupancy.estimate(kernel, TARGETS[target].sm_limits)
    assert (estimate.blocks, estimate.warps, estimate.limited_by) == (blocks, warps, limited_by)


def test_no_estimate_without_a_report_a_launch_or_sm_limits():
    assert occupancy.estimate(replace(kernel_with(10, 72), ptxas=None), TARGETS["gpu:h100"].sm_limits) is None
    assert occupancy.estimate(replace(kernel_with(10, 72), launch=None), TARGETS["gpu:h100"].sm_limits) is None
    assert occupancy.estimate(kernel_with(10, 72), TARGETS["gpu:local"].sm_limits) is None


def test_sm_limits_name_their_source():
    for name in ("gpu:h100", "gpu:a100"):
        limits = TARGETS[name].sm_limits
        assert limits.registers_per_sm == 65536 and "CUDA C++ Programming Guide" in limits.source


# --- what the screens and the CLI show (the recorded bundle: a real capture) ------------------


@needs_bundle
def test_memory_pane_shows_registers_and_the_occupancy_estimate():
    bundle = Bundle.open(BUNDLE)
    lines = panes.memory_facts(bundle, "kernels", "gpu:h100", "wrapped_transpose")
    assert "registers 10 per thread (ptxas -v, sm_90a)" in lines
    assert "occupancy (estimate) 63/64 warps/SM 98%" in lines
    assert "  10 registers x 72 threads: 21 blocks, limited by threads per SM" in lines


@needs_bundle
def test_device_pane_lists_registers_and_warps_per_kernel():
    bundle = Bundle.open(BUNDLE)
    lines = panes.device_lines(bundle, "kernels", "loop_multiply_fusion", "gpu:h100", "gpu:h100")
    kernel = tables.kernel(bundle, "gpu:h100", "loop_multiply_fusion")
    assert f"  kernel loop_multiply_fusion [fusion] {kernel.ptxas.registers} regs, 64/64 warps/SM" in lines


@needs_bundle
def test_every_gpu_kernel_of_the_recorded_bundle_has_sass_and_registers():
    kernels = Bundle.open(BUNDLE).kernels("gpu:h100")
    assert all(k.sass and k.ptxas.registers > 0 for k in kernels if k.ptx)


def test_a_kernel_record_without_the_new_fields_still_reads():
    old = {"name": "k", "hlo": ["fusion"], "kind": "fusion", "ptx": ".target sm_90a"}
    kernel = from_jsonable(KernelRecord, old)
    assert (kernel.sass, kernel.ptxas, kernel.sass_note) == ("", None, "")
    assert panes.register_lines(kernel, "gpu:h100") == ()


@needs_bundle
def test_inspect_json_has_sass_and_registers_for_gpu_kernels_only(capsys):
    assert cli_main(["inspect", str(BUNDLE), "--level", "kernels", "--target", "gpu:h100", "--json"]) == 0
    kernels = {k["name"]: k for k in json.loads(capsys.readouterr().out)["kernels"]}
    assert kernels["wrapped_transpose"]["registers"] == 10
    assert "S2R R0, SR_TID.X" in kernels["wrapped_transpose"]["sass"]
    assert "registers" not in kernels["cudnn-conv-bias-activation.3"]
    assert cli_main(["inspect", str(BUNDLE), "--level", "kernels", "--target", "cpu", "--json"]) == 0
    assert all("registers" not in k for k in json.loads(capsys.readouterr().out)["kernels"])


@needs_bundle
def test_a_gpu_kernel_explains_its_registers_and_occupancy_with_its_own_figures():
    bundle = Bundle.open(BUNDLE)
    keys = explain.explanation_keys(bundle, "kernels", "gpu:h100", "wrapped_transpose")
    assert keys[1:] == (("sass:registers",), ("sass:occupancy",))
    texts = {e.key: e.body for e in explain.explanations(bundle, "kernels", "gpu:h100", "wrapped_transpose", "en")}
    assert "this kernel uses 10, as `ptxas -v` reports" in texts["sass:registers"]
    assert "This kernel: 63 of 64 warps per SM." in texts["sass:occupancy"]
    german = {e.key: e.body for e in explain.explanations(bundle, "kernels", "gpu:h100", "wrapped_transpose", "de")}
    assert "Dieser Kernel: 63 von 64 Warps pro SM." in german["sass:occupancy"]
    assert explain.explanation_keys(bundle, "kernels", "cpu", "broadcast_maximum_fusion")[1:] == ()


def test_a_kernel_that_spills_gets_the_spill_text():
    spilling = replace(kernel_with(255, 128), ptxas=PtxasReport("sm_90a", 255, spill_store_bytes=64,
                                                                spill_load_bytes=64))
    assert sass_keys(spilling) == ("sass:registers", "sass:occupancy", "sass:spills")
    assert sass_keys(kernel_with(10, 72)) == ("sass:registers", "sass:occupancy")


@needs_wheels
def test_kernels_compiled_together_equal_kernels_compiled_alone(tmp_path):
    """The batch (one merged PTX module per run) gives each kernel what its own module gives."""
    kernels = kernels_from_dump(find_gpu_module(FIXTURES / "xla_dump_gpu" / "cnn", "jit_fwd"))
    launched = [k for k in kernels if k.ptx]
    tools = sass.find_tools()
    together = sass.compile_batch(tools, launched, "sm_90a", tmp_path)
    alone = [sass.compile_batch(tools, [k], "sm_90a", tmp_path)[0] for k in launched]
    assert [(k.sass, k.ptxas) for k in together] == [(k.sass, k.ptxas) for k in alone]
    assert ".target sm_90a" in sass.merge_ptx([k.ptx for k in launched])
    assert sass.merge_ptx([k.ptx for k in launched]).count(".version ") == 1


@needs_wheels
def test_a_kernel_that_breaks_the_batch_fails_alone(tmp_path):
    kernels = kernels_from_dump(find_gpu_module(FIXTURES / "xla_dump_gpu" / "cnn", "jit_fwd"))
    good = next(k for k in kernels if k.name == "wrapped_transpose")
    broken = KernelRecord(name="broken", hlo=(), ptx=".version 8.8\n.target sm_90a\n.address_size 64\n"
                                                      ".visible .entry broken( {\n")
    done = sass.compile_batch(sass.find_tools(), [good, broken], "sm_90a", tmp_path)
    assert done[0].ptxas.registers == 10 and done[0].sass and not done[0].sass_note
    assert done[1].sass_note.startswith("ptxas failed: ") and done[1].sass == ""


def test_a_tool_that_cannot_start_leaves_a_note_not_a_failed_level(tmp_path):
    missing = sass.Tools(ptxas=tmp_path / "ptxas", cuobjdump=tmp_path / "cuobjdump", nvdisasm=tmp_path / "nvdisasm")
    (done,) = sass.with_sass([KernelRecord(name="k", hlo=(), ptx=".version 8.8\n.target sm_90a\n")], tmp_path, missing)
    assert done.sass_note.startswith("SASS not available: ") and done.ptxas is None


@needs_bundle
def test_inspect_text_lists_registers_per_thread(capsys):
    assert cli_main(["inspect", str(BUNDLE), "--level", "kernels", "--target", "gpu:h100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "registers"
    assert next(line for line in lines if line.startswith("wrapped_transpose ")).split()[-1] == "10"


@needs_wheels
def test_a_kernel_launched_several_times_is_compiled_once(tmp_path, monkeypatch):
    """ResNet50 launches 108 kernels on the H100 from 39 distinct PTX modules: each is compiled once,
    and a batch never holds the same kernel twice (ptxas would refuse the duplicate definition)."""
    kernels = [k for k in kernels_from_dump(find_gpu_module(FIXTURES / "xla_dump_gpu" / "cnn", "jit_fwd")) if k.ptx]
    runs = []
    real_run = sass.subprocess.run

    def counted(command, **kwargs):
        runs.append(Path(command[0]).name)
        return real_run(command, **kwargs)

    monkeypatch.setattr(sass.subprocess, "run", counted)
    done = sass.with_sass(kernels + kernels, tmp_path)
    assert runs.count("ptxas") == min(len(kernels), sass._PARALLEL)  # one run per batch, no fallback
    assert done[:len(kernels)] == done[len(kernels):]
    assert all(k.sass and k.ptxas for k in done)
