"""`e` on the drawn-graph screens and the compare screen: the picture as files, named in the status line.

Pilot tests on the recorded bundle, in a temporary current directory where Graphviz cannot be found (an
empty PATH: the unit lane runs without it), so each press writes the DOT and says why the SVG is
missing; tests/test_graph_e2e.py presses the same keys with Graphviz and finds the SVG too.
"""

from __future__ import annotations

import pydot

from explorer.labels import label

from screens.app import create_app
from screens.compare import CompareScreen

from pilot_support import BUNDLE, needs_bundle, open_by_key, opened, sync

pytestmark = needs_bundle


def status_text(app) -> str:
    return str(app.screen.query_one("#status").render())


async def press_and_wait(app, pilot, key: str) -> None:
    await pilot.press(key)
    await app.workers.wait_for_complete()  # the writing runs on a thread worker
    await pilot.pause()


@sync
async def test_e_writes_the_drawn_neighbourhood_under_a_fresh_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert app.level == "layers"
        await press_and_wait(app, pilot, "e")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["mnist_cnn-layers-conv2d.dot"]
        assert status_text(app) == label("graph.exported_dot_only", "en").format(files="mnist_cnn-layers-conv2d.dot")
        dot = pydot.graph_from_dot_data((tmp_path / "mnist_cnn-layers-conv2d.dot").read_text())[0]
        assert {n.get_name().strip('"') for n in dot.get_nodes()} >= {"image", "conv2d", "max_pooling2d"}
        await pilot.press("plus")  # radius 2: the next press writes a wider picture, beside the first
        await press_and_wait(app, pilot, "e")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["mnist_cnn-layers-conv2d-2.dot",
                                                             "mnist_cnn-layers-conv2d.dot"]
        wider = pydot.graph_from_dot_data((tmp_path / "mnist_cnn-layers-conv2d-2.dot").read_text())[0]
        assert len(wider.get_nodes()) > len(dot.get_nodes())
        assert "mnist_cnn-layers-conv2d-2.dot" in status_text(app)


@sync
async def test_e_on_the_compare_screen_writes_the_layer_on_every_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d", lang="de")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await open_by_key(app, pilot, "x", CompareScreen)
        await press_and_wait(app, pilot, "e")
        written = tmp_path / "mnist_cnn-compare-conv2d.dot"
        assert sorted(p.name for p in tmp_path.iterdir()) == [written.name]
        assert app.screen.query_one("#status").display
        assert status_text(app) == label("graph.exported_dot_only", "de").format(files=written.name)
        dot = pydot.graph_from_dot_data(written.read_text())[0]
        boxes = [sub.get("label") for sub in dot.get_subgraphs()]
        assert [b for b in boxes if "<B>" in b] == ["<<B>cpu</B>>", "<<B>gpu:h100</B>>", "<<B>tpu:v5e</B>>"]
        assert '"cpu/convolution.1"' in {n.get_name() for sub in dot.get_subgraphs() for n in sub.get_nodes()}
        assert "Optimiertes HLO" in dot.get("label")  # the legend and title in the app's language
