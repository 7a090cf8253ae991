"""`tensorweg compare --layer` and the compare screen on cpu and tvm:cpu (recorded capture
tests/fixtures/bundles/mnist_cnn_tvm, see its README): what each compiler decided for the layer, with
the vector widths and registers of each function's code, in the CLI's text and JSON and on the screen."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import run_cli
from test_screens_compare import open_compare, text_of

from explorer.model.bundle import Bundle
from explorer.views import tables

from screens.app import create_app

from pilot_support import sync

TVM_BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn_tvm"
XLA_DECIDED = "XLA made 2: convolution.1 (convolution), broadcast_maximum_fusion (fusion kLoop)"
TVM_DECIDED = "TVM made 2: reshape (reshape), fused_conv2d_relu (fusion conv2d+relu)"


def registers(target: str, kernel: str) -> str:
    """`fused_conv2d_relu 512-bit (16 x 32-bit lanes, 31 vector registers, ` from the kernel record the capture
    wrote (x86 register names carry no element size: the widest register in 32-bit lanes); the listing's
    instruction count follows."""
    found = tables.kernel(Bundle.open(TVM_BUNDLE), target, kernel)
    assert found is not None and found.vector_width_bits and found.vector_registers
    width = found.vector_width_bits
    return f"{kernel} {width}-bit ({width // 32} x 32-bit lanes, {len(found.vector_registers)} vector registers, "


def compare(*args: str) -> str:
    result = run_cli("compare", str(TVM_BUNDLE), "--layer", "conv2d", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_text_says_what_each_compiler_made_of_the_convolution_and_its_vector_code():
    text = compare()
    cpu, tvm = text.split("conv2d (Conv2D) on cpu ", 1)[1].split("conv2d (Conv2D) on tvm:cpu ", 1)
    assert f"  decided: {XLA_DECIDED}\n" in cpu
    assert registers("cpu", "broadcast_maximum_fusion") in cpu
    tvm = tvm.split("conv2d (Conv2D) on gpu:h100", 1)[0]
    assert f"  decided: {TVM_DECIDED}\n" in tvm
    assert registers("tvm:cpu", "fused_conv2d_relu") in tvm


def test_json_decisions_follow_the_targets_and_leave_uncaptured_ones_empty():
    data = json.loads(compare("--json"))
    decisions = {d["target"]: d for d in data["decisions"]}
    assert [d["target"] for d in data["decisions"]] == data["targets"]
    assert decisions["cpu"]["decided"] == XLA_DECIDED
    assert decisions["tvm:cpu"]["decided"] == TVM_DECIDED
    assert registers("tvm:cpu", "fused_conv2d_relu") in decisions["tvm:cpu"]["vector_code"]
    assert decisions["gpu:h100"] == {"target": "gpu:h100", "decided": "", "vector_code": ""}


@sync
async def test_the_compare_screen_shows_the_same_decisions_in_german():
    app = create_app(TVM_BUNDLE, level="layers", target="tvm:cpu", select="conv2d", lang="de")
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_compare(app, pilot)
        shown = " ".join(text_of(screen, "#compare-layer", width=400).split())
        assert "entschieden" in shown and "Vektorcode" in shown
        assert TVM_DECIDED.replace(" made ", " erzeugte ") in shown
        assert "fused_conv2d_relu 512-bit (16 x 32-Bit-Lanes, 31 Vektorregister" in shown
