"""The device pane's tabs: the tab of the target on screen opens, and the learner opens another
with Left/Right (the strip focused, as Tab reaches it) or a click, each over its own text."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from screens.app import create_app
from screens.widgets.device_pane import DevicePane, DeviceTabs, tab_spans
from screens.widgets.pane_text import PaneText

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


def shown(pane: DevicePane) -> tuple[str, str, str]:
    """(open tab, text shown, that text) as the learner sees them: the one text displayed."""
    displayed = [text for text in pane.query(PaneText).results(PaneText) if text.display]
    assert len(displayed) == 1, [text.id for text in displayed]
    return pane.open_kind, displayed[0].id, displayed[0].plain


@asynccontextmanager
async def explorer_on(target: str):
    """The optimized HLO level on `target`, opened: the app, its pilot and the device pane."""
    app = create_app(BUNDLE, level="optimized-hlo", target=target)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        yield app, pilot, app.screen.query_one(DevicePane)


async def focus_the_strip(pilot) -> DeviceTabs:
    strip = pilot.app.screen.query_one(DeviceTabs)
    for _ in range(12):  # Tab walks the focus chain: the strip is on it
        if strip.has_focus:
            return strip
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached the device tabs: focus on {pilot.app.focused!r}")


@sync
async def test_left_and_right_open_the_next_tab_round_the_strip():
    async with explorer_on("cpu") as (app, pilot, pane):
        assert shown(pane)[:2] == ("cpu", "device-cpu-text") and "cpu" in shown(pane)[2]
        await focus_the_strip(pilot)
        await pilot.press("right")
        kind, current, text = shown(pane)
        assert (kind, current) == ("gpu", "device-gpu-text") and "gpu:" in text
        await pilot.press("left", "left")
        kind, current, text = shown(pane)
        assert (kind, current) == ("tpu", "device-tpu-text") and "tpu:" in text
        # the list's cursor keys are the list's again once focus leaves the strip
        await pilot.press("tab")
        assert not app.screen.query_one(DeviceTabs).has_focus


@pytest.mark.parametrize("kind", ["gpu", "tpu", "cpu"])
@sync
async def test_a_click_on_a_title_opens_its_tab(kind):
    async with explorer_on("tpu:v5e" if kind == "cpu" else "cpu") as (_, pilot, pane):
        start, end, _ = next(span for span in tab_spans() if span[2] == kind)
        assert await pilot.click(DeviceTabs, offset=((start + end) // 2, 0))
        await pilot.pause()
        assert shown(pane)[:2] == (kind, f"device-{kind}-text")


@sync
async def test_a_click_between_titles_opens_nothing():
    async with explorer_on("cpu") as (_, pilot, pane):
        gap = tab_spans()[0][1]
        await pilot.click(DeviceTabs, offset=(gap, 0))
        await pilot.click(DeviceTabs, offset=(tab_spans()[-1][1] + 5, 0))
        await pilot.pause()
        assert pane.open_kind == "cpu"


@sync
async def test_a_tab_the_learner_opens_stays_while_the_target_stays_and_a_new_target_opens_its_own():
    async with explorer_on("cpu") as (app, pilot, pane):
        start, end, _ = tab_spans()[2]
        await pilot.click(DeviceTabs, offset=(start + 1, 0))
        await pilot.press("down", "down")
        await opened(pilot)
        assert pane.open_kind == "tpu"  # the cursor moved on cpu: the learner's tab stays
        seen = set()
        for _ in range(len(app.bundle.targets)):
            await pilot.press("t")
            await opened(pilot)
            assert pane.open_kind == app.target.split(":")[0], app.target
            seen.add(pane.open_kind)
        assert seen == {"cpu", "gpu", "tpu"}
