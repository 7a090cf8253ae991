"""XLA:GPU dump reading and the roofline estimate, on real H100 compile-only dumps.

Fixtures (tests/fixtures/xla_dump_gpu/README.txt) are XLA's own files from a
compile of small Keras models for `gpu:h100`; nothing in them was written by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.capture.gpu_dump import (
    find_gpu_module,
    kernels_from_dump,
    parse_thunk_metadata,
    parse_thunk_sequence,
    ptx_target,
)
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Shape
from explorer.model.roofline import estimate, instruction_flops
from explorer.targets import TARGETS
from explorer.views.programs.target_layer import PLUMBING

FIXTURES = Path(__file__).parent / "fixtures" / "xla_dump_gpu"


@pytest.fixture(scope="module")
def cnn_files():
    files = find_gpu_module(FIXTURES / "cnn", "jit_fwd")
    assert files is not None
    return files


def test_find_gpu_module_collects_the_module_files(cnn_files):
    assert cnn_files.stem == "module_0001.jit_fwd"
    assert cnn_files.after_optimizations.name.endswith("sm_9.0a_gpu_after_optimizations.txt")
    assert cnn_files.thunk_sequence and cnn_files.thunk_metadata
    assert len(cnn_files.ptx) == 5
    assert find_gpu_module(FIXTURES / "cnn", "jit_other") is None


def test_every_launch_has_grid_block_and_its_ptx(cnn_files):
    kernels = kernels_from_dump(cnn_files)
    launched = [k for k in kernels if k.launch is not None]
    assert launched, "the CNN launches kernels"
    for kernel in launched:
        assert kernel.ptx, kernel.name
        assert f".entry {kernel.name}(" in kernel.ptx
        assert ptx_target(kernel.ptx) == "sm_90a"
        assert kernel.launch.block[0] >= 1 and kernel.launch.grid[0] >= 1
        assert kernel.llvm_ir_optimized, kernel.name


def test_kernel_hlo_names_exist_in_the_optimized_module(cnn_files):
    text = cnn_files.after_optimizations.read_text()
    for kernel in kernels_from_dump(cnn_files):
        assert kernel.hlo and f"%{kernel.hlo[0]} = " in text


def test_library_calls_and_triton_fusions_are_told_apart(cnn_files):
    kernels = {k.hlo[0]: k for k in kernels_from_dump(cnn_files)}
    cudnn = [k for k in kernels.values() if k.kind == "library"]
    assert cudnn and all(c.library_calls[0].startswith("__cudnn$") for c in cudnn)
    assert all(c.launch is None and not c.ptx for c in cudnn)
    # The sanitised kernel name differs from the HLO name; metadata links them.
    triton = [k for k in kernels.values() if k.kind == "triton"]
    assert triton and all("." in k.hlo[0] and "." not in k.name for k in triton)


def test_thunk_sequence_parses_nested_while_bodies():
    folder = FIXTURES / "lstm"
    thunks = parse_thunk_sequence((folder / "module_0001.jit_fwd.thunk_sequence.txt").read_text())
    metadata = parse_thunk_metadata((folder / "module_0001.jit_fwd.thunk_metadata.txt").read_text())
    assert [t.id for t in thunks] == sorted(metadata)  # every thunk, in id order, none lost
    loop = next(t for t in thunks if t.kind == "kWhile")
    nested = [t for t in thunks if t.depth > 0]
    assert nested and all(t.id > loop.id for t in nested)
    gemms = [t for t in nested if t.name.startswith("gemm_fusion")]
    assert gemms and all(t.launch.shared_memory_bytes > 0 for t in gemms)


# --- roofline ---------------------------------------------------------------


def _shape(*dims: int, dtype: str = "f32") -> Shape:
    return Shape(dtype, dims)


def _dot_module() -> tuple[HloModule, HloComputation]:
    lhs = HloInstruction("a", "parameter", _shape(64, 128))
    rhs = HloInstruction("b", "parameter", _shape(128, 32))
    dot = HloInstruction("d", "dot", _shape(64, 32), operands=("a", "b"),
                         attributes=(("lhs_contracting_dims", "{1}"), ("rhs_contracting_dims", "{0}")),
                         is_root=True)
    entry = HloComputation("main", (lhs, rhs, dot), is_entry=True)
    return HloModule("m", (entry,)), entry


def test_roofline_dot_counts_2mnk_and_bytes_of_operands_and_output():
    module, entry = _dot_module()
    spec = TARGETS["gpu:h100"]
    result = estimate(module, entry, entry.instructions[2], spec)
    assert result.flops == 2 * 64 * 32 * 128
    assert result.bytes == (64 * 128 + 128 * 32 + 64 * 32) * 4
    assert result.seconds == pytest.approx(max(result.flops / 67e12, result.bytes / spec.memory_bandwidth))
    assert result.bound == "memory"
    assert "ESTIMATE" in result.note and spec.roofline_source("f32") in result.note
    assert "NVIDIA H100 Tensor Core GPU datasheet" in result.note  # f32 peak and bandwidth: one page, named once


def test_roofline_prefers_the_callers_cost_analysis_flops():
    module, entry = _dot_module()
    result = estimate(module, entry, entry.instructions[2], TARGETS["tpu:v5e"], flops=1e15)
    assert result.flops_source == "cost analysis" and result.bound == "compute"
    assert result.peak_dtype == "bf16"  # TPU's only published figure


def test_roofline_unavailable_without_figures():
    module, entry = _dot_module()
    assert estimate(module, entry, entry.instructions[2], TARGETS["gpu:local"]) is None


def test_roofline_on_real_optimized_hlo_counts_the_cudnn_convolution(cnn_files):
    from explorer.hlo.parser import parse_module

    module = parse_module(cnn_files.after_optimizations.read_text())
    conv = next(i for _, i in module.all_instructions() if i.custom_call_target.startswith("__cudnn$conv"))
    # 3x3 kernel, 1 input channel, 8 filters, 26x26 output: 2 * 26*26*8 * 3*3*1.
    assert instruction_flops(module, module.entry, conv) == 2 * 26 * 26 * 8 * 9
    # What the comparison estimates: the entry's instructions that do work (explorer.views.compare).
    estimates = (estimate(module, module.entry, i, TARGETS["gpu:h100"]) for i in module.entry.instructions
                 if i.opcode not in PLUMBING)
    results = {r.instruction: r for r in estimates if r is not None}
    assert conv.name in results
    assert all(r.bound in ("compute", "memory") and r.seconds > 0 for r in results.values())
