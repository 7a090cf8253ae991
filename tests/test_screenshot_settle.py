"""A screenshot waits for the app's workers (screens/screenshot.py): one a newer one of its group
replaced ends cancelled, and counts as done; it made a handout step fail now and then in CI."""

from __future__ import annotations

import asyncio

from screens.app import create_app
from screens.screenshot import workers_done

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


@sync
async def test_a_worker_replaced_by_a_newer_one_counts_as_done():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        release = asyncio.Event()
        app.run_worker(release.wait, group="read-selection", exclusive=True)
        newer = app.run_worker(release.wait, group="read-selection", exclusive=True)  # cancels the first
        await pilot.pause()
        release.set()
        await workers_done(app)
        assert newer.is_finished

