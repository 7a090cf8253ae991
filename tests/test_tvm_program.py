"""TVM's printed output cut into per-function pieces, on output recorded from a real run.

The fixtures (tests/fixtures/tvm/, re-recorded by its record.py) are mnist_cnn
compiled by apache-tvm 0.27 for skylake-avx512: the module's x86 assembly and
LLVM IR, and Relax `main` after the static memory plan. No TVM is imported here.
"""

from __future__ import annotations

import pytest

from explorer.capture.disassembly import vector_registers
from explorer.model.tvm_program import (
    TvmFunction,
    TvmProgram,
    asm_by_function,
    llvm_ir_by_function,
    plt_calls,
    static_memory_plan,
)

from tests.conftest import FIXTURES

TVM = FIXTURES / "tvm"
# The TIR functions TVM made of mnist_cnn (FuseOps + FuseTIR), as the worker lists them.
FUNCTIONS = ("reshape", "fused_conv2d_relu", "max_pool2d", "fused_transpose_reshape1", "matmul", "softmax")


@pytest.fixture(scope="module")
def asm() -> dict[str, str]:
    return asm_by_function((TVM / "mnist_cnn.s").read_text(encoding="utf-8"), FUNCTIONS)


def test_every_function_gets_its_wrapper_and_its_body(asm):
    for name in FUNCTIONS:
        assert asm[name].startswith(f"__tvm_ffi_{name}:"), name
        assert f"\n{name}_compute_:" in asm[name], name


def test_a_function_never_takes_the_code_of_a_longer_name():
    text = (TVM / "mnist_cnn.s").read_text(encoding="utf-8")
    pieces = asm_by_function(text, ("reshape", "fused_transpose_reshape1"))
    assert "reshape1_compute_" not in pieces["reshape"]
    assert "__tvm_ffi_fused_transpose_reshape1" not in pieces["reshape"]


def test_the_fused_convolution_uses_avx512_registers(asm):
    width, registers = vector_registers(asm["fused_conv2d_relu"])
    assert width == 512
    assert any(name.startswith("zmm") for name in registers)


def test_softmax_calls_expf_through_the_plt(asm):
    assert "expf" in plt_calls(asm["softmax"])
    assert plt_calls(asm["reshape"]) == ()


def test_llvm_ir_is_cut_at_each_define():
    text = (TVM / "mnist_cnn.ll").read_text(encoding="utf-8")
    pieces = llvm_ir_by_function(text, FUNCTIONS)
    conv = pieces["fused_conv2d_relu"]
    assert conv.startswith("define ")
    assert "@__tvm_ffi_fused_conv2d_relu(" in conv and "@fused_conv2d_relu_compute_(" in conv
    assert conv.count("\ndefine ") == 1  # exactly two defines: the wrapper and the body
    assert "@matmul_compute_(" not in conv


def test_static_plan_storages_are_shared_by_tensors():
    memory = static_memory_plan((TVM / "mnist_cnn_planned_main.txt").read_text(encoding="utf-8"))
    sizes = [a.size for a in memory.allocations]
    # conv output 1x8x26x26 f32, pool output 1x8x13x13, dense output 1x10; then the program's output.
    assert sizes == [21632, 5408, 40, 40]
    assert [a.kind for a in memory.allocations] == ["temp", "temp", "temp", "output"]
    assert memory.peak_bytes == sum(sizes)
    assert memory.peak_source == "tvm static plan"
    # The flattened activations reuse the convolution's storage once it is dead.
    storage_line = next(line for line in memory.report.splitlines() if line.startswith("storage:"))
    assert "alloc [1, 8, 26, 26]" in storage_line and "alloc2 [1, 1352]" in storage_line


def test_static_plan_of_a_program_without_storages_is_empty():
    memory = static_memory_plan("def main():\n    return x\n")
    assert memory.allocations == () and memory.peak_bytes == 0 and memory.peak_source == ""


def test_a_program_lists_a_layers_functions_in_order():
    program = TvmProgram(
        functions=(TvmFunction("reshape", ("relax.reshape",), ("m/conv2d_1/convolution__6",), ("conv2d",)),
                   TvmFunction("fused_conv2d_relu", ("relax.nn.conv2d", "relax.nn.relu"),
                               ("m/conv2d_1/convolution", "m/conv2d_1/Relu"), ("conv2d",)),
                   TvmFunction("matmul", ("relax.matmul",), ("m/dense_1/MatMul",), ("dense",))),
        target="llvm", pipeline="", onnx_exporter="")
    assert [f.name for f in program.for_layer("conv2d")] == ["reshape", "fused_conv2d_relu"]
    assert [f.fused for f in program.for_layer("conv2d")] == [False, True]
    assert program.for_layer("flatten") == ()
