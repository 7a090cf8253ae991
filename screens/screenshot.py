"""Headless screenshots: `tensorweg screenshot` renders a screen to SVG.

Runs the same app the terminal gets (`create_app`) under Textual's test
driver at a fixed size, so the picture is deterministic for a given bundle.
A picture of something other than what was asked for is an error, not a
picture: a bundle that cannot be read, or a `--select` name that is not there.

A tour step is pictured as the learner sees it, the tour panel over its level
(`screenshot --tour --step`, and every step of `tensorweg handout`): the app is
started in the tour at that step, as `tensorweg tour --step` starts it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.worker import WorkerCancelled

from explorer.errors import TensorwegError
from explorer.session.course import Tour

from screens.app import create_app
from screens.tour import TourScreen
from screens.widgets.item_table import ItemTable

_MAX_SETTLE_PAUSES = 100  # bounded: a screen that never settles fails, it does not hang


async def workers_done(app) -> None:
    """Until the app's workers running now have ended. One replaced by a newer one of its group (a side
    pane's read for a selection moved on) ends cancelled: that is done too (Textual's
    `wait_for_complete` raised WorkerCancelled for it, and a handout step failed)."""
    for worker in list(app.workers):
        try:
            await worker.wait()
        except WorkerCancelled:
            continue


async def _until_settled(pilot) -> None:
    """Until the explorer screen has everything on screen (`ExplorerScreen.settled`), a bounded
    number of frames: a picture of a screen still filling in differs from run to run under load."""
    app = pilot.app
    for _ in range(_MAX_SETTLE_PAUSES):
        await workers_done(app)
        if app.failure is not None or app.load_error or app.explorer.settled:
            break
        await pilot.pause()
    await pilot.pause()


async def _render(bundle_path: Path, level: str, target: str, select: str | None,
                  size: tuple[int, int], lang: str) -> str:
    app = create_app(bundle_path, level=level, target=target, select=select, lang=lang)
    svg = ""
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await workers_done(app)  # reading the bundle (it may end the app)
        await app.opened.wait()  # and what the side panes show of each target
        await workers_done(app)  # a level's rows, when they were not built with it
        await _until_settled(pilot)  # and the side panes that follow them
        if app.failure is None:
            if app.load_error:
                raise TensorwegError(app.load_error)
            if select is not None:
                _check_selected(app, level, target, select)
            svg = app.export_screenshot(title=f"tensorweg {level}")
    if app.failure is not None:  # a TensorwegError raised inside the app
        raise app.failure
    return svg


def _check_selected(app, level: str, target: str, select: str) -> None:
    """The screen's own list must have landed on `select` (what the picture shows)."""
    tables = list(app.screen.query(ItemTable))
    if not tables:
        raise TensorwegError(f"--select: the {level} screen has no list to select '{select}' in")
    current = tables[0].current
    if current is None or current.name != select:
        raise TensorwegError(f"--select: no item named '{select}' at level {level} on target {target}")


def render_screenshot(bundle_path: Path | str, level: str = "layers", target: str = "cpu",
                      select: str | None = None, size: tuple[int, int] = (120, 40), lang: str = "en") -> str:
    """One screen of a bundle as SVG text; raises TensorwegError when it cannot show what was asked."""
    return asyncio.run(_render(Path(bundle_path), level, target, select, size, lang))


async def _settle_tour(pilot) -> None:
    """Until the step is on screen: the bundle read, the panel pushed, the list's jump done."""
    app = pilot.app
    await app.opened.wait()
    await workers_done(app)
    for _ in range(3):  # a step pops the panel, switches level, pushes a new panel
        await pilot.pause()
    await _until_settled(pilot)


async def _render_tour(bundle_path: Path, tour: Tour, steps: range, size: tuple[int, int], lang: str) -> list[str]:
    app = create_app(bundle_path, lang=lang, tour=tour, tour_step=steps.start)
    pictures: list[str] = []
    async with app.run_test(size=size) as pilot:
        for index in steps:
            if index != steps.start:
                await app.show_tour_step(tour, index)  # what `n` does on the panel
            await _settle_tour(pilot)
            if app.failure is not None:
                break
            if app.load_error:
                raise TensorwegError(app.load_error)
            if not (isinstance(app.screen, TourScreen) and app.screen.index == index):
                raise TensorwegError(f"{tour.source}: step {index + 1} did not come on screen")
            pictures.append(app.export_screenshot(title=f"tensorweg {tour.steps[index].level}"))
    if app.failure is not None:
        raise app.failure
    return pictures


def render_tour_screenshots(bundle_path: Path | str, tour: Tour, steps: range | None = None,
                            size: tuple[int, int] = (120, 40), lang: str | None = None) -> list[str]:
    """SVG pictures of `tour`'s steps (`steps`: 0-based indices, default all), each with the tour
    panel over its level, in `lang` (default the tour's language).

    One app walks the steps as the learner does; a picture of step N alone, from an app started
    at N, is the same SVG (tests/test_pack_handout.py runs the command that makes one).
    """
    steps = range(len(tour.steps)) if steps is None else steps
    return asyncio.run(_render_tour(Path(bundle_path), tour, steps, size, lang or tour.lang))
