"""The source view (`0`, level 0 above the layers): Pilot tests of its keys (open from a layer and
from an HLO instruction, Enter on a line, Esc; Backspace keeps going back from a descent) and
snapshots at 80x24 and 120x40, fed the recorded `tiny_convnet` bundle (a `module:function` model:
tests/fixtures/bundles/record_tiny_convnet.py). Update the snapshots with
`pytest tests/test_screens_source.py --snapshot-update` and look at them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from screens.app import create_app
from screens.source import SourceScreen

from pilot_support import open_by_key, opened, sync
from tests.conftest import committed

TINY = Path(__file__).parent / "fixtures" / "bundles" / "tiny_convnet"


@pytest.fixture(autouse=True)
def _tiny_bundle():
    committed(TINY / "manifest.json")


async def open_source(app, pilot) -> SourceScreen:
    return await open_by_key(app, pilot, "0", SourceScreen)


@sync
async def test_0_opens_the_selected_layers_lines_with_the_users_own_first():
    app = create_app(TINY, level="layers", target="cpu", select="conv")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_source(app, pilot)
        assert (screen.view.layer, screen.view.level, screen.view.target) == ("conv", "layers", "cpu")
        lines = screen.query_one("#source-lines", OptionList)
        assert lines.option_count == len(screen.view.lines) and lines.highlighted == 0
        assert screen.view.lines[0].user and screen.view.lines[0].file == "tiny_convnet.py"


@sync
async def test_enter_on_a_line_goes_down_to_its_instruction():
    app = create_app(TINY, level="layers", target="cpu", select="conv")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_source(app, pilot)
        relu = next(n for n, line in enumerate(screen.view.lines) if line.text == "return tf.nn.relu(x)")
        for _ in range(relu):
            await pilot.press("down")
        await pilot.press("enter")
        await opened(pilot)
        assert not isinstance(app.screen, SourceScreen)
        assert app.level == "hlo"
        assert app.items_table.current.name == screen.view.lines[relu].instructions[0]


@sync
async def test_0_from_an_hlo_instruction_shows_its_lines_and_escape_closes():
    app = create_app(TINY, level="hlo", target="cpu", select="convolution.1")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_source(app, pilot)
        assert (screen.view.level, screen.view.item) == ("hlo", "convolution.1")
        assert {n for line in screen.view.lines for n in line.produced} == {"convolution.1"}
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SourceScreen) and app.level == "hlo"


@sync
async def test_backspace_still_goes_back_from_a_descent_and_never_opens_the_source():
    app = create_app(TINY, level="layers", target="cpu", select="conv")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("enter")  # layers -> the layer's graph ops
        await opened(pilot)
        assert app.level == "graph"
        await pilot.press("backspace")
        await opened(pilot)
        assert app.level == "layers" and not isinstance(app.screen, SourceScreen)
        assert app.selections["layers"] == "conv"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_source_snapshot(snap_compare, size):
    """conv of tiny_convnet on cpu: the title 'Python source of conv on cpu' with its keys, then one row
    per line: first 'tiny_convnet.py:14  build  (your line)' with the user's Conv2D line and '-> reaches:
    convolution.1, ...', then Keras's base_conv.py:256 call and the backend lines down to
    'keras/src/backend/tensorflow/nn.py:812  _conv' that emits convolution.1; at the bottom the
    evidence (the TensorFlow op's traceback). No absolute path anywhere."""
    app = create_app(TINY, level="layers", target="cpu", select="conv")

    async def press_0(pilot):
        await open_source(app, pilot)

    assert snap_compare(app, run_before=press_0, terminal_size=size)
