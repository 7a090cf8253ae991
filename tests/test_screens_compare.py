"""The compare screen (`x`): Pilot tests of its state and keys, and snapshots at 80x24 and 120x40.

Fed the recorded bundle tests/fixtures/bundles/mnist_cnn (real cpu, gpu:h100 and tpu:v5e output).
Update the snapshots with `pytest tests/test_screens_compare.py --snapshot-update` and look at
the pictures before committing them.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from rich.console import Console

from screens.app import create_app
from screens.compare import CompareScreen
from screens.widgets.target_summary import TargetSummaryTable

from pilot_support import BUNDLE, needs_bundle, open_by_key, sync

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
pytestmark = needs_bundle


async def open_compare(app, pilot) -> CompareScreen:
    """Wait until the bundle is open (the app reads it after the first frame), then press x."""
    return await open_by_key(app, pilot, "x", CompareScreen)


def text_of(screen: CompareScreen, selector: str, width: int = 200) -> str:
    """What a Static of the screen shows, as plain text (wide, so nothing wraps)."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(screen.query_one(selector).content)
    return console.export_text()


@sync
async def test_x_compares_the_selected_layer_on_every_captured_target():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_compare(app, pilot)
        assert screen.layer_name == "conv2d"
        assert [t.target for t in screen.comparison.targets] == ["cpu", "gpu:h100", "tpu:v5e"]
        shown = text_of(screen, "#compare-layer")
        header = next(line for line in shown.splitlines() if "gpu:h100" in line)
        assert header.index("cpu") < header.index("gpu:h100") < header.index("tpu:v5e")
        assert "convolution.1: convolution" in shown  # cpu
        assert "cuDNN __cudnn$convBiasActivationForward" in shown  # gpu:h100
        assert "f32[26,8,4,8]{3,1,2,0:T(8,128)S(1)}" in shown  # tpu:v5e, as the optimized HLO writes it
        summary = text_of(screen, "#compare-summary")
        assert "19 steps" in summary and "cost analysis" in summary
        figures = text_of(screen, "#compare-figures")
        assert "ESTIMATE" in figures and "NVIDIA H100 Tensor Core GPU datasheet" in figures


@sync
async def test_layer_of_an_optimized_instruction_is_found_from_its_level():
    app = create_app(BUNDLE, level="optimized-hlo", target="tpu:v5e", select="multiply_reduce_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_compare(app, pilot)
        assert screen.layer_name == "dense"
        gpu = screen.comparison.target("gpu:h100")
        assert any(call.family == "Triton" for call in gpu.library_calls)


@sync
async def test_n_and_p_change_the_layer_and_escape_returns():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        assert screen.layer_name == "max_pooling2d"
        assert "Layer max_pooling2d per target" in text_of(screen, "#compare-layer")
        await pilot.press("n")
        await pilot.pause()
        assert screen.layer_name == "flatten"  # a reshape XLA turns into a bitcast: nothing of its own
        assert "no optimized-HLO instruction carries this layer's ops" in text_of(screen, "#compare-layer")
        await pilot.press("p", "p", "p")
        await pilot.pause()
        assert screen.layer_name == "image"
        assert "+1 parameter" in text_of(screen, "#compare-layer")  # the model's input is the input layer's
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen) and app.current_mode == "layers"


@sync
async def test_small_terminal_scrolls_with_the_keyboard():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(app, pilot)
        body = screen.query_one("#compare-body")
        assert body.has_focus and body.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y


@sync
async def test_targets_not_captured_say_so_and_name_key_and_command(tmp_path):
    copy = tmp_path / "mnist_cnn"
    shutil.copytree(BUNDLE, copy)
    raw = json.loads((copy / "manifest.json").read_text())
    raw["options"]["targets"] = ["cpu"]
    (copy / "manifest.json").write_text(json.dumps(raw))
    app = create_app(copy, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_compare(app, pilot)
        assert [t.captured for t in screen.comparison.targets] == [True, False, False]
        assert text_of(screen, "#compare-layer").count("not captured (see below)") == 2
        figures = text_of(screen, "#compare-figures")
        assert "press c" in figures and "tensorweg capture mnist_cnn --targets cpu,tpu:v5e" in figures
        summaries = screen.query_one("#compare-summary", TargetSummaryTable).summaries
        assert [s.captured for s in summaries] == [True, False, False]


@sync
async def test_before_anything_is_captured_the_screen_says_so():
    app = create_app(None, model_spec=None, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.comparison is None
        assert "Nothing to compare yet" in text_of(screen, "#compare-layer")
        await pilot.press("x")  # x closes the comparison as it opened it
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)


@sync
async def test_help_lists_the_compare_keys():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_compare(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        from screens.help import key_lines

        lines = key_lines(app.screen_stack[-2])
        assert any("Next layer" in line for line in lines) and any("Close" in line for line in lines)


@SIZES
def test_compare_conv2d_snapshot(snap_compare, size):
    """conv2d side by side: columns cpu | gpu:h100 | tpu:v5e. cpu: convolution.1 and
    broadcast_maximum_fusion (kLoop), library 'runtime library (symbol not recorded)', est. time
    'no peak figures'; gpu:h100: cudnn-conv-bias-activation.3 custom-call and '+1 get-tuple-element',
    library cuDNN __cudnn$convBiasActivationForward, 21.1 KiB / 21.1 KiB, est. time 7.49 ns (over the
    datasheet's 3.35 TB/s; 7.48 ns while XLA's device description's 3.35232 TB/s stood in); tpu:v5e: copy.13, slice,
    fusion.11, fusion (also max_pooling2d) and '+1 constant', T(8,128)S(1) layouts, padded bytes far
    above bytes. At 80x24 the table wraps and the rest scrolls; at 120x40 the 'Whole model per
    target' table starts below."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")

    async def press_x(pilot):
        await open_compare(app, pilot)

    assert snap_compare(app, run_before=press_x, terminal_size=size)


@SIZES
def test_compare_summary_snapshot(snap_compare, size):
    """Scrolled to the end: the 'Whole model per target' table (kernels 8 | 5 | 19 steps, fusions,
    peak memory, FLOPs from shapes or cost analysis, est. time, XLA optimal time only for tpu:v5e)
    and the figures each estimate used, in the words of their pages (H100 datasheet: 67 TFLOP/s f32 and
    3350 GB/s; TPU v5e documentation: 197 TFLOP/s bf16 and 819 GB/s)."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")

    async def press_x_end(pilot):
        await open_compare(app, pilot)
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(app, run_before=press_x_end, terminal_size=size)
