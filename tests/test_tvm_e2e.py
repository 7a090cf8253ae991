"""End to end for the second compiler: mnist_cnn and mlp through XLA:CPU and Apache TVM in one capture.

Needs the `tvm` extra (`pip install -e ".[tvm]"`; CI installs it): without it the
capture stops with the install hint and these tests fail, they do not skip.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.views.panes import device_lines

pytestmark = [pytest.mark.e2e, pytest.mark.tvm]

OPTIONS = CaptureOptions(targets=("cpu", "tvm:cpu"))
WORKING_LAYERS = ("Conv2D", "Dense")


@pytest.fixture(scope="module", params=["mnist_cnn", "mlp"])
def bundle(request, tmp_path_factory):
    path = capture(request.param, OPTIONS, out_dir=tmp_path_factory.mktemp("b") / request.param)
    return Bundle.open(path)


def test_every_tvm_level_is_captured(bundle):
    for level in ("hlo", "optimized-hlo", "kernels", "memory"):
        status = bundle.status(level, "tvm:cpu")
        assert status.status == "ok", (level, status.error)
    assert "R.matmul" in bundle.hlo_text("tvm:cpu")  # Relax as imported
    fused = bundle.hlo_text("tvm:cpu", optimized=True)
    assert "@T.prim_func" in fused and "R.call_tir" in fused  # after FuseOps + FuseTIR
    assert bundle.memory("tvm:cpu").peak_source == "tvm static plan"


def test_every_conv_and_dense_layer_has_a_tvm_function_with_x86_code(bundle):
    program = bundle.tvm_program("tvm:cpu")
    kernels = {k.name: k for k in bundle.kernels("tvm:cpu")}
    layers = [layer.name for layer in bundle.layers if layer.class_name in WORKING_LAYERS]
    assert layers
    for layer in layers:
        functions = program.for_layer(layer)
        assert functions, f"{layer}: no TVM function linked"
        for function in functions:
            kernel = kernels[function.name]
            assert f"__tvm_ffi_{function.name}:" in kernel.asm and kernel.llvm_ir.startswith("define ")
            assert "T.prim_func" in function.tir
            assert all(node in function.onnx_nodes for node in kernel.hlo)
        assert any(kernels[f.name].vector_width_bits >= 128 for f in functions), layer  # SIMD code
        # the vertical trace: the cross-level index names the same layer for these kernels
        assert all(bundle.index.layer_of("kernels", f.name, "tvm:cpu") in f.layers for f in functions)


def test_tvm_fuses_the_activation_into_the_layers_main_op(bundle):
    program = bundle.tvm_program("tvm:cpu")
    fused = {f.name: f.ops for f in program.functions if f.fused}
    if bundle.model_name == "mnist_cnn":
        assert fused["fused_conv2d_relu"] == ("relax.nn.conv2d", "relax.nn.relu")
        assert program.for_layer("conv2d")[-1].name == "fused_conv2d_relu"
        conv = next(k for k in bundle.kernels("tvm:cpu") if k.name == "fused_conv2d_relu")
        assert conv.vector_width_bits == 512  # skylake-avx512: LLVM uses zmm registers
    else:  # Dense(relu): matmul + bias + relu in one function
        dense = [f for f in program.for_layer("dense") if f.fused]
        assert dense and {"relax.matmul", "relax.nn.relu"} <= set(dense[0].ops), program.for_layer("dense")


def test_compare_shows_xlas_fusion_beside_tvms_function(bundle):
    layer = "conv2d" if bundle.model_name == "mnist_cnn" else "dense"
    result = subprocess.run([sys.executable, "-m", "screens.cli", "compare", str(bundle.path), "--layer", layer],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    sections = re.split(r"\n(?=\S+ \(\w+\) on )", result.stdout)
    cpu = next(s for s in sections if "on cpu (" in s)
    tvm = next(s for s in sections if "on tvm:cpu (" in s)
    assert "fusion k" in cpu  # XLA's fusion (kLoop/kOutput...)
    assert re.search(r"fused_\w+ +fusion \w+\+relu", tvm), tvm
    assert re.search(r"vector code: .*fused_\w+ (256|512)-bit", tvm), tvm


def test_the_device_pane_shows_tvm_for_a_layer_selected_on_xla(bundle):
    layer = "conv2d" if bundle.model_name == "mnist_cnn" else "dense"
    lines = device_lines(bundle, "layers", layer, "cpu", "tvm:cpu")
    assert lines[0] == f"tvm:cpu  (layer {layer})"
    assert any("fused_" in line for line in lines), lines


def test_no_machine_path_in_the_tvm_target(bundle):
    for path in bundle.target_dir("tvm:cpu").iterdir():
        text = path.read_text(encoding="utf-8")
        assert "/tmp/" not in text and "/home/" not in text and "/root/" not in text, path.name


def test_a_model_tvm_cannot_import_fails_only_the_tvm_target(tmp_path):
    """lstm exports to ONNX with a `Loop`, which TVM's ONNX frontend does not implement: the
    tvm:cpu levels fail with that reason, XLA's cpu target and the layers stand."""
    bundle = Bundle.open(capture("lstm", OPTIONS, out_dir=tmp_path / "lstm"))
    for level in ("hlo", "optimized-hlo", "kernels", "memory"):
        status = bundle.status(level, "tvm:cpu")
        assert status.status == "failed", level
        assert "not supported for frontend ONNX: Loop" in status.error
        assert bundle.status(level, "cpu").status == "ok"
    assert bundle.layers


def test_inspecting_tvms_relax_prints_the_rows_the_screen_lists(bundle):
    from explorer.views import rows

    result = subprocess.run([sys.executable, "-m", "screens.cli", "inspect", str(bundle.path), "--level", "hlo",
                             "--target", "tvm:cpu"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()[1:]]
    assert names == [item.name for item in rows.rows(bundle, "hlo", "tvm:cpu")]


def test_relax_levels_list_bindings_and_functions_linked_down_to_code_and_t_keeps_the_work(bundle):
    from explorer.texts.lookup import explain
    from explorer.views import explain as explain_view
    from explorer.views import rows, tables, trace

    bindings = rows.rows(bundle, "hlo", "tvm:cpu")
    functions = rows.rows(bundle, "optimized-hlo", "tvm:cpu")
    assert bindings and functions
    kernels = {kernel.name for kernel in bundle.kernels("tvm:cpu")}
    assert {item.name for item in functions} == kernels
    for item in bindings:  # every Relax binding ends in a function that was compiled
        (function,) = trace.down(bundle, "hlo", item.name, "tvm:cpu")
        assert trace.down(bundle, "optimized-hlo", function, "tvm:cpu") == (function,)
    layer, work = ("conv2d", "convolution.1") if bundle.model_name == "mnist_cnn" else ("dense", "")
    start = work or next(n for n in trace.items_for_layer(bundle, layer, "optimized-hlo", "cpu")
                         if "dot" in tables.instruction(bundle, "optimized-hlo", "cpu", n).opcode
                         or tables.instruction(bundle, "optimized-hlo", "cpu", n).fusion_kind)
    landed = trace.counterpart(bundle, "optimized-hlo", start, "cpu", "tvm:cpu")
    assert trace.layer_of(bundle, "optimized-hlo", landed, "tvm:cpu") == layer
    for level in ("hlo", "optimized-hlo", "kernels"):
        for item in rows.rows(bundle, level, "tvm:cpu"):
            for group in explain_view.explanation_keys(bundle, level, "tvm:cpu", item.name):
                assert explain(level, list(group), "tvm:cpu", "de").key.startswith("compiler:tvm-"), (level, group)
