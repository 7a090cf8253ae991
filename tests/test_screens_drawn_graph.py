"""`g` at 80x24: the drawn graph's pane has six rows, so it opens on the selected box (the picture
scrolled to centre it), follows the selection, and `z` fills the screen with it (issue 39, item 5:
the selected node was out of view and `z` said "Nothing focused to maximise")."""

from __future__ import annotations

from screens.app import create_app

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle

SELECTED_BOX = "║ dense ║"  # the selection's box is double-lined


def screen_lines(app) -> list[str]:
    """The screen's rows as the terminal would show them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def drawn(app, pilot) -> None:
    await pilot.press("g")
    await pilot.pause()
    await pilot.pause()  # the scroll to the selection follows the drawing's layout


async def drawn_wide(app, pilot) -> None:
    """The graph at radius 4: every layer of the model, taller than the pane."""
    await pilot.press("plus", "plus", "plus")
    await drawn(app, pilot)


@sync
async def test_the_graph_opens_on_the_selected_box_at_80x24():
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await drawn(app, pilot)
        assert any(SELECTED_BOX in line for line in screen_lines(app)), "\n".join(screen_lines(app))
        for _ in range(3):  # a wider neighbourhood is a taller picture: the selection stays in view
            await pilot.press("plus")
            await pilot.pause()
            await pilot.pause()
            assert any(SELECTED_BOX in line for line in screen_lines(app)), "\n".join(screen_lines(app))


@sync
async def test_the_graph_follows_the_selection_up_the_list():
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await drawn_wide(app, pilot)
        await pilot.press("up", "up", "up")  # dense -> flatten -> max_pooling2d -> conv2d
        await pilot.pause()
        await pilot.pause()
        assert any("║ conv2d ║" in line for line in screen_lines(app)), "\n".join(screen_lines(app))


@sync
async def test_z_fills_the_screen_with_the_graph_and_again_restores():
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await drawn_wide(app, pilot)
        await pilot.press("z")
        await pilot.pause()
        lines = screen_lines(app)
        assert app.screen.maximized is app.screen.query_one("#drawing-box")
        assert sum("│" in line and "┌" in line for line in lines) >= 4, "\n".join(lines)  # four boxes at once
        assert not any("Memory layout" in line for line in lines)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None
        assert any("Memory layout" in line for line in screen_lines(app))


@sync
async def test_z_with_the_graph_hidden_still_fills_the_screen_with_the_focused_list():
    app = create_app(BUNDLE, level="layers", target="cpu", select="dense")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("z")
        await pilot.pause()
        maximized = app.screen.maximized
        assert maximized is not None and app.items_table in maximized.ancestors_with_self
