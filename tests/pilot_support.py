"""What the UI tests share: the recorded bundle, running async Pilot tests, waiting for data."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn"
needs_bundle = pytest.mark.skipif(not (BUNDLE / "manifest.json").is_file(), reason="recorded bundle missing")


def sync(test):
    """Run an async Pilot test without an async pytest plugin (none is a dependency)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))
    return run


async def opened(pilot) -> None:
    """The bundle is read in a worker after the first frame: wait for it, not for a clock."""
    await pilot.app.opened.wait()
    await pilot.pause()
    await wait_for_jumps(pilot)


async def wait_for_jumps(pilot) -> None:
    """A list's jump to its selection runs after a refresh: wait until none is pending."""
    from screens.widgets.item_table import ItemTable

    for _ in range(100):  # bounded: a bug must fail the snapshot, not hang the suite
        tables = [table for screen in pilot.app.screen_stack for table in screen.query(ItemTable)]
        if not any(table.scrolls_pending for table in tables):
            return
        await pilot.pause()
