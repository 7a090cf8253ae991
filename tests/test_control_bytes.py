"""One control byte in a bundle's code text (issue 36): shown as a stand-in, never a crash.

Rich drops BEL, BS, VT and FF from a `Text`; the code view measured its lines before Rich did, so a
single BEL inside an `op_name` of `hlo.txt` ended the explorer on its first screen (`RuntimeError:
generator raised StopIteration`), and with it `screenshot`, a lesson pack holding such a bundle and
every `serve` tab of that pack. Here the recorded mnist_cnn bundle gets all four inside every
`op_name` of its HLO texts and at the top of every kernel's code, and each way a learner meets that
text draws it, with the control pictures (`explorer.safe_text`) where the bytes were.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import shutil
from pathlib import Path

import aiohttp
import pytest

from explorer.course.pack import bundle_argument, open_pack
from explorer.model.bundle import Bundle

from screens.app import create_app
from screens.cli import main
from screens.passes import diff_text, side_by_side_text
from screens.widgets.code_view import CodeView
from screens.widgets.graph_drawing import draw_picture

from pilot_support import opened, sync
from tests.conftest import FIXTURES
from tests.serve_support import children, read_until, start_server, stop_server

CONTROL = "\x07\x08\x0b\x0c"  # BEL, BS, VT, FF: the bytes Rich drops
SHOWN = "␇␈␋␌"
CODE_FIELDS = ("asm", "ptx", "sass", "llvm_ir", "llvm_ir_optimized")
# Per level on cpu: an item whose own line is short enough to be drawn whole, op_name and all.
SELECTED = {"hlo": "Softmax.5", "optimized-hlo": "Softmax.5", "kernels": "broadcast_maximum_fusion"}


def _with_control(hlo: str) -> str:
    """`hlo` with CONTROL at the end of every op_name (so every scope prefix still names its layer)."""
    text, count = re.subn(r'(op_name="[^"]*)"', lambda match: match.group(1) + CONTROL + '"', hlo)
    assert count
    return text


def make_control_bundle(folder: Path) -> Path:
    bundle = folder / "control_bundle"
    shutil.copytree(FIXTURES / "bundles" / "mnist_cnn", bundle)
    for path in bundle.glob("targets/*/*hlo.txt"):
        path.write_text(_with_control(path.read_text()))
    for path in bundle.glob("targets/*/passes/frames.json.gz"):
        frames = json.loads(gzip.decompress(path.read_bytes()))
        # The filmstrip's diff drops the metadata: a quoted attribute value carries the bytes there.
        frames = [_with_control(frame).replace('grad_x="false"', f'grad_x="false{CONTROL}"') for frame in frames]
        path.write_bytes(gzip.compress(json.dumps(frames).encode()))
    for path in bundle.glob("targets/*/kernels.json"):
        kernels = json.loads(path.read_text())
        for kernel in kernels:
            for field in CODE_FIELDS:
                if kernel.get(field):
                    kernel[field] = f"; from op {CONTROL}\n" + kernel[field]
        path.write_text(json.dumps(kernels))
    return bundle


@pytest.fixture
def control_bundle(tmp_path) -> Path:
    return make_control_bundle(tmp_path)


def drawn_code(app) -> str:
    """The code view's rows as the terminal gets them: the shown level view's (under a tour's panel too)."""
    view = app.explorer.query_one(f"#view-{app.level}").query_one(CodeView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


def assert_shown(text: str) -> None:
    assert not any(char in text for char in CONTROL)
    assert SHOWN in text


@pytest.mark.parametrize("level", sorted(SELECTED))
@sync
async def test_every_levels_code_view_shows_the_control_bytes(control_bundle, level):
    app = create_app(control_bundle, level=level, target="cpu", select=SELECTED[level])
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        await pilot.pause()
        assert app.screen.query_one("#items").current.name == SELECTED[level]
        assert_shown(drawn_code(app))
        await pilot.press("tab", "right", "right", "end")  # scrolled sideways: the cut lines too
        await pilot.pause()
        drawn_code(app)
    assert app.return_code in (None, 0)


@pytest.mark.parametrize("level", sorted(SELECTED))
def test_screenshot_of_every_code_level_shows_the_control_bytes(control_bundle, tmp_path, level):
    out = tmp_path / f"{level}.svg"
    assert main(["screenshot", str(control_bundle), "--level", level, "--select", SELECTED[level],
                 "--size", "200x50", "--out", str(out)]) == 0
    assert_shown(out.read_text(encoding="utf-8"))


@sync
async def test_a_lesson_pack_of_such_a_bundle_runs_its_whole_lesson(control_bundle, tmp_path):
    """Every step (layers down to the GPU's kernels), each screen built ahead while the learner reads."""
    pack_file = tmp_path / "course.twpack"
    assert main(["pack", str(control_bundle), "--tours", "tensor_to_registers", "-o", str(pack_file)]) == 0
    tour = open_pack(pack_file).tour()
    app = create_app(bundle_argument(str(pack_file), tour), tour=tour)
    shown_code = []
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        for _ in tour.steps:
            await pilot.pause(0.7)  # idle past the build-ahead tick: the next level views are built hidden
            if app.level in SELECTED:
                shown_code.append(drawn_code(app))
            await pilot.press("n")
            await opened(pilot)
        assert app.is_running
    assert len(shown_code) == 7  # its one hlo, two optimized-hlo, two cpu and two GPU kernels steps
    assert_shown("".join(shown_code))


def test_a_served_tab_of_such_a_pack_lives_on_and_reaches_the_code(control_bundle, tmp_path):
    """The tab that died 2.5 s after it started (its screens built ahead hit the byte) stays."""
    pack_file = tmp_path / "course.twpack"
    assert main(["pack", str(control_bundle), "--tours", "tensor_to_registers", "-o", str(pack_file)]) == 0
    url, _page, process = start_server([str(pack_file)], tmp_path)

    async def in_tab() -> str:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=160&height=40") as ws:
            seen = await read_until(ws, "Step 1 of")
            await asyncio.sleep(4)  # the level screens are built ahead meanwhile
            assert children(process.pid), "the tab's process died"
            for step in range(2, 6):  # down to the optimized HLO
                await ws.send_json(["stdin", "n"])
                seen = await read_until(ws, f"Step {step} of", seen)
            await asyncio.sleep(2)
            await ws.send_json(["stdin", "n"])
            seen = await read_until(ws, "Step 6 of", seen)
            # The step's title and its code view may come in different frames: the byte's picture is
            # waited for (bounded), not assumed to be in the frame that carried the title.
            seen = await read_until(ws, "␇", seen, seconds=30)
            await ws.send_json(["stdin", "q"])
            return seen

    try:
        seen = asyncio.run(in_tab())
    finally:
        _out, err = stop_server(process)
    assert "Traceback" not in err and "StopIteration" not in err
    assert "␇" in seen  # the code view reached, with the bell shown as its picture


def test_a_drawn_graph_box_keeps_its_width_around_a_control_byte():
    """`g`'s boxes are measured on the label: a byte Rich drops would leave each box's right edge
    one column short of its frame."""
    name = "den\x07se"
    text, _ = draw_picture([name, "out"], [(name, "out")], "out", {name: "red"})
    lines = text.plain.split("\n")
    assert "den␇se" in text.plain
    top, middle, bottom = lines[0:3]
    assert len(top) == len(middle) == len(bottom)


def test_the_filmstrips_diff_keeps_its_columns_around_a_control_byte(control_bundle):
    """`f`'s side-by-side diff pads the frame's lines before Rich draws them: measured on the stand-ins."""
    strip = Bundle.open(control_bundle).passes("cpu")
    number = next(n for n in range(1, len(strip)) if "grad_x" in diff_text(strip, n).plain)
    side_by_side = side_by_side_text(strip, number, 400).plain
    rows = side_by_side.split("\n")[1:-1]
    assert {row.index(" | ") for row in rows} == {198}  # every before-column the same width
    for text in (side_by_side, diff_text(strip, number).plain):  # (long lines cut: BEL's stand-in shows)
        assert "␇" in text and not any(char in text for char in CONTROL)
