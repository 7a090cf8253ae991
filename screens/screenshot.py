"""Headless screenshots: `tensorweg screenshot` renders a screen to SVG.

Runs the same app the terminal gets (`create_app`) under Textual's test
driver at a fixed size, so the picture is deterministic for a given bundle.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from screens.app import create_app


async def _render(bundle_path: Path, level: str, target: str, select: str | None,
                  size: tuple[int, int]) -> str:
    app = create_app(bundle_path, level=level, target=target, select=select, size=size)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        return app.export_screenshot(title=f"tensorweg {level}")


def render_screenshot(bundle_path: Path | str, level: str = "layers", target: str = "cpu",
                      select: str | None = None, size: tuple[int, int] = (120, 40),
                      out_path: Path | str = "tensorweg.svg") -> Path:
    """Render one screen of a bundle to an SVG file; returns the path written."""
    svg = asyncio.run(_render(Path(bundle_path), level, target, select, size))
    out = Path(out_path)
    out.write_text(svg, encoding="utf-8")
    return out
