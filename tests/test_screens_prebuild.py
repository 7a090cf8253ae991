"""Level screens built while the learner reads (screens/level_prebuild.py): once the open worker has
warmed the levels and no key came for a while, the levels not visited yet get their screens built;
a first visit then shows the built screen, and shows exactly what a screen built on the visit shows."""

from __future__ import annotations

from screens import level_prebuild
from screens.app import create_app
from screens.widgets.code_view import CodeView
from screens.widgets.item_table import ItemTable

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle

SIZE = (120, 40)


async def _prebuilt(pilot, mode: str) -> None:
    """Until `mode`'s screen is built ahead, laid out and drawn off screen."""
    for _ in range(400):  # bounded: the warm-up, then one step per idle tick
        if mode in pilot.app.laid_out_modes:
            return
        await pilot.pause(0.05)
    raise AssertionError(f"no screen built and laid out ahead for {mode}: {sorted(pilot.app.laid_out_modes)}")


async def _settle(pilot) -> None:
    await opened(pilot)
    for _ in range(4):
        await pilot.pause()


def _shown(app) -> tuple[str, str | None, list[str], tuple[int, set[int]]]:
    """The level, its selection, the screen's text outside the code, and the code view's place."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    code = app.screen.query_one(CodeView)
    return (app.level, app.items_table.current.name,
            [line for line in lines if line.strip()], (code.top, code._marked))


async def _dense_then_optimized_hlo(pilot) -> tuple:
    app = pilot.app
    app.items_table.select("dense")
    await pilot.pause()
    await pilot.press("4")
    await _settle(pilot)
    return _shown(app)


@sync
async def test_the_levels_not_visited_are_built_while_the_learner_reads():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "memory")  # the last one built
        assert app.prebuilt_modes == app.laid_out_modes == {"graph", "hlo", "optimized-hlo", "kernels", "memory"}
        built = app._prebuilt["optimized-hlo"]
        await pilot.press("4")
        await _settle(pilot)
        assert app.screen is built  # the visit shows the screen built ahead, not a new one
        assert "optimized-hlo" not in app.prebuilt_modes


@sync
async def test_a_first_visit_of_a_screen_built_ahead_shows_what_a_new_screen_shows(monkeypatch):
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "optimized-hlo")
        ahead = await _dense_then_optimized_hlo(pilot)

    monkeypatch.setattr(level_prebuild, "PREBUILD_ORDER", ())  # nothing is built ahead
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        assert not app.prebuilt_modes
        on_visit = await _dense_then_optimized_hlo(pilot)

    assert ahead[1] and ahead[1] == on_visit[1]  # dense's instruction, selected on both
    assert ahead == on_visit


@sync
async def test_keys_hold_the_building_back():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "graph")
        count = len(app.prebuilt_modes)
        for _ in range(12):  # a key every 0.1 s: never idle for PREBUILD_IDLE_S
            await pilot.press("down")
            await pilot.pause(0.1)
        assert len(app.prebuilt_modes) <= count + 1  # at most the one that was due as the keys began


@sync
async def test_a_screen_built_ahead_is_shown_at_once_and_resumed_once(monkeypatch):
    # Textual holds a mode switch's frames back 50 ms (to hide a screen built during it) and resumed a
    # screen handed over by its mode's factory twice, restyling every node each time.
    from screens.level_screen import LevelScreen, painting

    resumed: list[str] = []
    resume = LevelScreen.on_screen_resume

    def counting(self):
        resumed.append(self.LEVEL)
        resume(self)

    monkeypatch.setattr(LevelScreen, "on_screen_resume", counting)
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "optimized-hlo")
        built = app._prebuilt["optimized-hlo"]
        resumed.clear()
        app.action_goto_level("optimized-hlo")
        assert app.screen is built and painting(app)  # no frame held back
        await _settle(pilot)
        assert resumed == ["optimized-hlo"]


@sync
async def test_a_screen_built_on_its_visit_is_still_masked(monkeypatch):
    from screens.level_screen import painting

    monkeypatch.setattr(level_prebuild, "PREBUILD_ORDER", ())  # nothing is built ahead
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        app.action_goto_level("optimized-hlo")
        assert not painting(app)  # Textual's 50 ms mask while the new screen builds
        await _settle(pilot)
        await pilot.pause(0.1)
        assert painting(app)
        app.action_goto_level("layers")  # visited before: shown at once
        assert painting(app)


@sync
async def test_a_visit_draws_the_carried_selections_panes_in_its_first_frame(monkeypatch):
    # The whole screen is drawn on a visit: the panes follow the selection in that frame, not the next.
    from screens.widgets.item_rows import ItemRows
    from screens.widgets.pane_text import PaneText

    seen: list[tuple[str, bool]] = []
    render_line = ItemRows.render_line

    def recording(self, y):
        screen = self.screen
        if getattr(screen, "LEVEL", "") == "optimized-hlo" and not seen:
            item = screen.query_one("#items", ItemTable).current
            seen.append((item.name, item.name in screen.query_one("#device-cpu-text", PaneText).plain))
        return render_line(self, y)

    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "optimized-hlo")
        app.items_table.select("dense")
        await pilot.pause()
        monkeypatch.setattr(ItemRows, "render_line", recording)
        await pilot.press("4")
        await _settle(pilot)
        carried = app.items_table.current.name
    assert seen == [(carried, True)]


@sync
async def test_a_visit_of_a_screen_built_ahead_takes_one_layout(monkeypatch):
    # Left for the visit, a second pass (the list's scrollbars settling after its columns fit) was a
    # second full frame after the first.
    from textual.screen import Screen

    layouts: list[str] = []
    refresh_layout = Screen._refresh_layout

    def counting(self, *args, **kwargs):
        if getattr(self, "LEVEL", "") == "optimized-hlo" and self is self.app.screen:
            layouts.append(self.LEVEL)
        return refresh_layout(self, *args, **kwargs)

    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await _prebuilt(pilot, "optimized-hlo")
        monkeypatch.setattr(Screen, "_refresh_layout", counting)
        await pilot.press("4")
        await _settle(pilot)
        await pilot.pause(0.1)
    assert layouts == ["optimized-hlo"]
