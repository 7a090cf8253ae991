"""What the UI tests share: the recorded bundle, running async Pilot tests, waiting for data."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn"
# The recorded bundle is committed: a test that reads it fails when it is missing (never skips).
needs_bundle = pytest.mark.usefixtures("recorded_bundle")


OPEN_TIMEOUT_S = 120  # far beyond any open of the recorded bundles, even on a loaded machine


def sync(test):
    """Run an async Pilot test without an async pytest plugin (none is a dependency)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))
    return run


async def opened(pilot) -> None:
    """The bundle is read in a worker after the first frame: wait for it, not for a clock (bounded: a
    session that never settles fails the test with what it still waits for, instead of hanging CI)."""
    app = pilot.app
    try:
        await asyncio.wait_for(app.opened.wait(), OPEN_TIMEOUT_S)
    except TimeoutError:
        session = app.session
        raise AssertionError(f"never settled: opening {session.opening}, reading {sorted(session.reading)}") from None
    await pilot.pause()
    await wait_for_jumps(pilot)


async def wait_for_jumps(pilot) -> None:
    """A list's jump to its selection, and its rows, are drawn a frame after they are set: wait until
    the list on screen has drawn what it was last given (bounded: a bug must fail the snapshot, not hang)."""
    for _ in range(100):
        table = getattr(pilot.app, "items_table", None)
        if table is None or not table.is_mounted or table.drawn:
            break
        await pilot.pause()
    await pilot.pause()  # the frame after it: what depends on the drawn rows (the panes) follows


async def target_key_keeps_layers(app, pilot) -> int:
    """From each layer's last item at each per-target level, `t` round all targets: after every
    press the list's selection belongs to that layer on the new target, wherever the layer owns an
    item there. Returns how many presses were checked."""
    from explorer.views import trace


    bundle, checked = app.bundle, 0
    first = bundle.targets[0]

    def owned(layer, level, target):
        return [n for n in trace.items_for_layer(bundle, layer, level, target)
                if trace.layer_of(bundle, level, n, target) == layer]

    for level in ("hlo", "optimized-hlo", "kernels"):
        for layer in (record.name for record in bundle.layers):
            start = owned(layer, level, first)
            if not start:
                continue
            app.session.show_target(first)
            app.goto_level(level, start[-1])
            await opened(pilot)
            assert app.items_table.current.name == start[-1]
            for _ in bundle.targets:
                await pilot.press("t")
                await opened(pilot)
                current = app.items_table.current.name
                assert app.selections[level] == current
                if owned(layer, level, app.target):
                    checked += 1
                    assert trace.layer_of(bundle, level, current, app.target) == layer, (level, layer, app.target)
            assert app.target == first
            # round all targets, back on the very item it started on
            assert app.items_table.current.name == start[-1], (level, layer)
    return checked


async def open_by_key(app, pilot, key: str, screen_class):
    """Wait until the bundle is open and indexed (the app reads it after the first frame), then
    press `key`; the screen it opened, checked to be a `screen_class`."""
    for _ in range(200):  # bounded, as above
        await pilot.pause()
        if app.bundle is not None and app.trace.index.entries:
            break
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(app.screen, screen_class)
    return app.screen
