"""Headless screenshots: `tensorweg screenshot` renders a screen to SVG.

Runs the same app the terminal gets (`create_app`) under Textual's test
driver at a fixed size, so the picture is deterministic for a given bundle.
A picture of something other than what was asked for is an error, not a
picture: a bundle that cannot be read, or a `--select` name that is not there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from explorer.errors import TensorwegError

from screens.app import create_app


async def _render(bundle_path: Path, level: str, target: str, select: str | None,
                  size: tuple[int, int], lang: str) -> str:
    app = create_app(bundle_path, level=level, target=target, select=select, lang=lang)
    svg = ""
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # reading the bundle (it may end the app)
        await pilot.pause()
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
    from screens.widgets.item_table import ItemTable  # noqa: PLC0415

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
