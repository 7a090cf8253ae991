"""The keys as a learner uses them (issue 24): the number keys carry the selection to the level
they show, `t` round every target comes back to the item it left, and a status line stays only
where it was made. What each key selects is decided in `explorer.views.session` (tests/test_session.py);
these drive the app with the keys and read what its list shows."""

from __future__ import annotations

import pytest

from explorer.views.trace import layer_of

from screens.app import create_app
from screens.tour import TourScreen
from screens.widgets.device_pane import DeviceTabs
from screens.widgets.status_line import StatusLine

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


def shown(app) -> tuple[str, str]:
    """The level on screen and the item its list has selected."""
    return app.level, app.items_table.current.name


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await opened(pilot)


def status(app) -> str:
    line = app.screen.query_one("#status", StatusLine)
    return str(line.render()) if line.display else ""


@sync
async def test_number_keys_keep_the_selection_on_the_way_down_and_up():
    """With `dense` selected on the layers, `4` shows dense's optimized HLO (not the convolution the
    level showed before), `2` dense's TF op (not `image`), `5` its kernel; from an HLO instruction
    `1` lands on its layer."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        bundle = app.bundle
        for key, level in (("4", "optimized-hlo"), ("1", "layers"), ("2", "graph"), ("1", "layers"),
                           ("5", "kernels"), ("1", "layers"), ("3", "hlo")):
            await press(pilot, key)
            mode, name = shown(app)
            assert mode == level
            assert layer_of(bundle, level, name, "cpu") == "dense", (key, name)
        app.goto_level("hlo", "convolution.1")
        await opened(pilot)
        await press(pilot, "4")
        assert layer_of(bundle, "optimized-hlo", shown(app)[1], "cpu") == "conv2d"
        await press(pilot, "3")  # back up: the instruction it left, not the list's first
        assert shown(app) == ("hlo", "convolution.1")
        await press(pilot, "1")
        assert shown(app) == ("layers", "conv2d")


@sync
async def test_t_round_every_target_returns_to_the_item_it_started_on():
    """Kernels and optimized HLO items whose layer has several items on the other targets:
    cpu -> gpu -> tpu -> cpu lands on the item it left."""
    app = create_app(BUNDLE, level="kernels", target="cpu", select="broadcast_maximum_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        for level, start in (("kernels", "broadcast_maximum_fusion"), ("optimized-hlo", "MaxPool2d.1")):
            app.goto_level(level, start)
            await opened(pilot)
            assert shown(app) == (level, start)
            seen = []
            for _ in app.bundle.targets:
                await press(pilot, "t")
                seen.append((app.target, shown(app)[1]))
            assert seen[-1] == ("cpu", start), seen


@sync
async def test_a_status_line_stays_only_where_it_was_made():
    """Enter from conv2d says how many TF ops implement it: under the graph level and the op it
    landed on only. Another item, another level, `L` or a lesson step clear it."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await press(pilot, "enter")  # layer -> its TF ops: several implement it
        assert "implement" in status(app)
        await press(pilot, "down")  # another item
        assert status(app) == ""
        await press(pilot, "up")
        assert "implement" in status(app)  # back on the op it is about
        await press(pilot, "1", "enter")
        assert "implement" in status(app)
        await press(pilot, "4")  # another level
        assert status(app) == ""
        await press(pilot, "2")  # back on the same op: the line was about then, not now
        assert status(app) == ""
        await press(pilot, "1", "enter")
        assert "implement" in status(app)
        await press(pilot, "L")
        assert status(app) == ""
        await press(pilot, "L", "1", "enter")
        assert "implement" in status(app)
        await press(pilot, "T", "enter")  # the first lesson's first step
        for _ in range(5):
            await pilot.pause()
        assert isinstance(app.screen, TourScreen)
        below = app.screen_stack[-2]
        assert below.query_one("#status", StatusLine).display is False


@pytest.mark.parametrize("plain", [True, False], ids=["terminal-colours-then-none", "NO_COLOR-in-a-test"])
@sync
async def test_without_colour_the_selected_row_is_drawn_in_reverse_video(monkeypatch, plain):
    """NO_COLOR: the cursor's background is gone; bold alone hid the selection. Reverse video, as
    terminals draw a selection, on the selected row and on the open device tab, nowhere else."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense", plain=plain)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        reversed_texts = ["".join(segment.text for segment in strip
                                  if segment.style is not None and segment.style.reverse)
                          for strip in app.screen._compositor.render_strips()]
        reversed_lines = [(y, text.strip()) for y, text in enumerate(reversed_texts) if text.strip()]
        tabs_row = app.screen.query_one(DeviceTabs).region.y
        assert [text for y, text in reversed_lines if y == tabs_row] == ["CPU"], reversed_lines
        rows = [text for y, text in reversed_lines if y != tabs_row]
        assert len(rows) == 1 and rows[0].split()[0] == "dense", reversed_lines


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize(("level", "target"), [("optimized-hlo", "gpu:h100"), ("optimized-hlo", "cpu"),
                                               ("graph", "cpu"), ("kernels", "tpu:v5e")])
@sync
async def test_the_list_fits_its_width_and_a_cut_cell_says_so(level, target, size):
    """The columns fit the list's width (no cell cut at its edge: `loop_multiply_fus`/`ion`);
    a cell too long for its column ends in an ellipsis, a name's in the middle."""
    app = create_app(BUNDLE, level=level, target=target)
    async with app.run_test(size=size) as pilot:
        await opened(pilot)
        table = app.items_table
        rows = table.table
        assert rows.virtual_size.width <= rows.scrollable_content_region.width
        region = rows.content_region
        lines = ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]
        listed = [item for item in table._listing[int(rows.scroll_y):][:rows.visible_rows]]
        checked = 0
        for y, item in enumerate(listed, start=region.y + 1):  # under the header
            line = lines[y][region.x:region.right]
            for cell in getattr(item, "cells", ()):  # whole, or its start and an ellipsis
                assert cell in line or (cell[:3] in line and "…" in line), (cell, line)
                checked += 1
        assert checked > 3
        if target == "gpu:h100" and level == "optimized-hlo":
            assert "loop_multiply_fusion " in "\n".join(lines)


@sync
async def test_o_says_which_operands_there_are_under_the_operand_it_lands_on():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", select="broadcast_maximum_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        operands = app.bundle.hlo_module("cpu", optimized=True)
        fusion = next(i for _, i in operands.all_instructions() if i.name == "broadcast_maximum_fusion")
        assert len(fusion.operands) > 1
        await press(pilot, "o")
        assert shown(app) == ("optimized-hlo", fusion.operands[0])
        assert fusion.operands[1] in status(app)
        await press(pilot, "backspace")
        assert status(app) == ""
