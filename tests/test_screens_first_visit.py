"""The first visit of a level or a pushed screen (issue 8): it neither re-parses the app's
stylesheet nor looks any different from the same level opened at start.

Textual re-parses every sheet from scratch and restyles every node when a pushed screen's sheet is
new to the app; the app reads those sheets once its rows are shown (`TensorwegApp._read_other_sheets`),
and a level is a view of the one explorer screen, styled by the app's sheet. The timing is
bench/bench_terminal.py's job; these tests hold the mechanism and its result.
"""

from __future__ import annotations

import re

import pytest
from textual.css.stylesheet import Stylesheet

from screens.app import create_app

from pilot_support import BUNDLE, needs_bundle, opened, sync, wait_for_jumps

pytestmark = needs_bundle
SIZE = (120, 40)


def _count_reparses(monkeypatch) -> list[int]:
    calls = []
    reparse = Stylesheet.reparse

    def counted(self):
        calls.append(1)
        return reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    return calls


async def _screenshot(pilot) -> str:
    """The screen as SVG, its unique id left out: Rich makes that id from a hash of the segments it
    drew, their metadata included (where the mouse selects text), which the picture never shows."""
    await pilot.pause()
    await wait_for_jumps(pilot)
    return re.sub(r"terminal-\d+", "terminal", pilot.app.export_screenshot())


@pytest.mark.parametrize("key,level", [("2", "graph"), ("3", "hlo"), ("4", "optimized-hlo"), ("5", "kernels"),
                                       ("m", "memory")])
@sync
async def test_a_level_reached_by_its_key_looks_as_when_opened_there(key, level):
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press(key)
        visited = await _screenshot(pilot)
        carried = app.selections.get(level)  # the key took the layer's selection along (`image`'s)
    direct = create_app(BUNDLE, level=level, target="cpu", select=carried)
    async with direct.run_test(size=SIZE) as pilot:
        await opened(pilot)
        started = await _screenshot(pilot)
    assert visited == started


@pytest.mark.parametrize("keys", [("2",), ("enter",), ("4", "5", "m"), ("x",), ("f",), ("question_mark",)],
                         ids=["graph", "enter", "three-levels", "compare", "passes", "help"])
@sync
async def test_a_first_visit_does_not_reparse_the_stylesheet(monkeypatch, keys):
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")  # Enter: its graph ops
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await app.workers.wait_for_complete()
        reparses = _count_reparses(monkeypatch)
        shown = []
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            shown.append((type(app.screen).__name__, app.level))
        assert len(set(shown)) == len(keys)  # each key showed a screen of its own
        assert reparses == []


@sync
async def test_the_other_sheets_join_once_the_rows_are_shown():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        assert not app.stylesheet.has_source(str(app.css_path[0].with_name("compare.tcss")))
        await opened(pilot)
        for name in ("compare", "passes", "tour", "help", "passport"):
            assert app.stylesheet.has_source(str(app.css_path[0].with_name(f"{name}.tcss"))), name


@sync
async def test_code_drawn_before_pygments_is_in_is_highlighted_the_frame_after():
    """The frame that first shows code does not wait for Pygments' import; the code does not stay plain."""
    from textual.app import App

    from screens.widgets import code_view

    hlo = "ENTRY %main {\n  %p = f32[2] parameter(0)\n  ROOT %r = f32[2] add(%p, %p)\n}"

    class OneView(App):
        def compose(self):
            yield code_view.CodeView(id="code")

        def on_mount(self):
            self.query_one(code_view.CodeView).set_code(hlo, "hlo")

    code_view._lexer.cache_clear()  # as in a fresh process: no lexer built yet
    app = OneView()
    async with app.run_test(size=(60, 6)) as pilot:
        await pilot.pause()
        view = app.query_one(code_view.CodeView)
        drawn = view.render_line(1)
    assert view._lines  # highlighted lines replaced the plain ones
    assert len({segment.style for segment in drawn if segment.text.strip()}) > 2  # gutter, keyword, name...


@sync
async def test_a_first_visit_highlights_only_the_code_lines_it_shows(monkeypatch):
    """The module text is drawn at the selection's place in the first frame that shows it: no line
    above it (the module's start) is lexed on the way."""
    from screens.explorer_screen import ExplorerScreen
    from screens.widgets.code_view import CodeView

    monkeypatch.setattr(ExplorerScreen, "build_ahead", lambda self: False)  # the view is built on the visit
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("4")
        await opened(pilot)
        for _ in range(4):
            await pilot.pause()
        view = app.explorer.view.query_one(CodeView)
        shown = range(view.top, view.top + view.size.height)
        assert view.top > 0 and view._marked  # dense's lines, far below the module's start
        assert view._lines and set(view._lines) <= set(shown)
