"""Graph pictures rendered by Graphviz: `tensorweg graph -o FILE.svg|png|pdf`, a hostile name through
`dot`, a handout's graph pictures, and the app's `e` writing the SVG beside the DOT.

Marked `e2e` and `graphviz`: they run in the e2e lane, where .ci/run installs Debian's graphviz. They
never skip: without `dot` they fail and say how to install it. Fed the recorded bundles (no compiler).
"""

from __future__ import annotations

import html
import re
import shutil

import pytest

from explorer.cli.main import main as core_main
from explorer.labels import label

from screens.app import create_app
from screens.cli import main

from pilot_support import BUNDLE, needs_bundle, opened, sync
from tests import test_safe_text as safe_text_tests
from tests.test_graph_dot import HOSTILE, hostile_bundle  # noqa: F401 (a fixture, used by name)
from tests.test_graph_screens import press_and_wait, status_text
from tests.test_pack_handout import SHORT, _tour_file

pytestmark = [pytest.mark.e2e, pytest.mark.graphviz, needs_bundle]


@pytest.fixture(autouse=True)
def graphviz_installed() -> None:
    assert shutil.which("dot"), "Graphviz's `dot` is not on PATH: apt install graphviz (.ci/run installs it)"


def svg_words(svg: str) -> str:
    """The text Graphviz drew (it writes `-` as `&#45;`)."""
    return html.unescape(" ".join(re.findall(r">([^<>]*)</text>", svg)))


def test_the_issues_example_renders_conv2ds_fusion_and_its_neighbours(tmp_path, capsys):
    """`tensorweg graph mnist_cnn --level optimized-hlo --select conv2d --depth 2 -o conv.svg`, on the
    recorded capture: the convolution, the fusion around bias and ReLU with its fused computation, the
    pooling after it, the legend."""
    out = tmp_path / "conv.svg"
    assert core_main(["graph", str(BUNDLE), "--level", "optimized-hlo", "--select", "conv2d", "--depth", "2",
                      "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg
    words = svg_words(svg)
    for shown in ("convolution.1", "broadcast_maximum_fusion", "fused_computation.4 kLoop", "Relu.0",
                  "wrapped_reduce-window", "f32[1,26,26,8]", "mnist_cnn · Optimized HLO · cpu", "heavy work"):
        assert shown in words, shown
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conv.svg"]  # no DOT, no partial file left


@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_png_and_pdf_are_rendered_too(tmp_path, suffix, magic):
    out = tmp_path / f"layers{suffix}"
    assert core_main(["graph", str(BUNDLE), "--level", "layers", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(magic)


def test_graphviz_reads_the_escaped_hostile_name(tmp_path, hostile_bundle):  # noqa: F811 (the fixture)
    out = tmp_path / "hostile.svg"
    assert core_main(["graph", str(hostile_bundle), "--level", "layers", "-o", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    assert "\x1b" not in svg and "\x07" not in svg and "<b>" not in svg
    assert 'conv"2d<b>&x␊␛]0;pwned␇\\' in svg_words(svg)  # drawn as the text it is
    assert HOSTILE not in svg


def test_a_handout_shows_each_selections_graph_beside_its_screen(tmp_path):
    tour = _tour_file(tmp_path / "tours", "short", SHORT["en"])
    out = tmp_path / "handout"
    assert main(["handout", str(tour), str(BUNDLE), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["handout.html", "handout.md", "step-01-graph.svg",
                                                     "step-01.svg", "step-02-graph.svg", "step-02.svg"]
    assert "conv2d" in svg_words((out / "step-01-graph.svg").read_text(encoding="utf-8"))
    assert "broadcast_maximum_fusion" in svg_words((out / "step-02-graph.svg").read_text(encoding="utf-8"))
    page = (out / "handout.html").read_text(encoding="utf-8")
    markdown = (out / "handout.md").read_text(encoding="utf-8")
    for number in (1, 2):
        assert f'<img src="step-0{number}-graph.svg"' in page and f"](step-0{number}-graph.svg)" in markdown
    assert label("handout.no_graphviz", "en") not in page


def test_a_handouts_graph_picture_of_a_hostile_name_holds_no_control_character(tmp_path, capsysbinary):
    """tests/test_safe_text.py's hostile handout, with Graphviz: the step's graph shows the name's stand-ins."""
    bundle = safe_text_tests.make_hostile_bundle(tmp_path)
    tour = tmp_path / "hostile.tour"
    tour.write_text(safe_text_tests.HOSTILE_TOUR, encoding="utf-8")
    out = tmp_path / "handout"
    assert main(["handout", str(tour), str(bundle), "-o", str(out)]) == 0
    graph = (out / "step-01-graph.svg").read_bytes()
    assert not any(char.encode("utf-8") in graph for char in safe_text_tests.NEVER_WRITTEN)
    assert "pwned␇".encode() in graph


@sync
async def test_e_writes_the_svg_beside_the_dot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = create_app(BUNDLE, level="graph", target="cpu", select="mnist_cnn_1/conv2d_1/convolution")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await press_and_wait(app, pilot, "e")
        stem = "mnist_cnn-graph-mnist_cnn_1_conv2d_1_convolution"
        assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.dot", f"{stem}.svg"]
        assert status_text(app) == label("graph.exported", "en").format(files=f"{stem}.dot, {stem}.svg")
        assert "mnist_cnn_1/conv2d_1/convolution" in svg_words((tmp_path / f"{stem}.svg").read_text())
