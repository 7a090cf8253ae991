"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

The longest UI pause while a real capture runs in the app (issue 8: none over 100 ms).

The app captures the `resnet50` sample (keras.applications.ResNet50, random
weights) for cpu from an empty cache, headless at 120x40, from its first frame
until the finished bundle is read and on screen. A timer in the app fires every
5 ms and records when it ran: the longest gap between two runs, less the
interval, is the longest time the event loop could not answer (a key press
would have waited that long). The same timer in a hello-world Textual app for
as long gives the floor of the machine and the test driver. Prints the medians
over the runs, the ratio, and the longest stalls.

    .venv/bin/python bench/bench_capture_stall.py [--runs 1] [--model resnet50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TICK = 0.005  # seconds between timer callbacks


def _gap_recorder(app) -> list[float]:
    """Start a timer on `app`; the returned list fills with the times it ran."""
    times: list[float] = []
    app.set_interval(TICK, lambda: times.append(time.perf_counter()))
    return times


def _longest_stall(times: list[float]) -> float:
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    return max(gaps, default=0.0) - TICK


async def _capture_stall(model: str) -> tuple[float, float, int]:
    """(longest stall in seconds, capture seconds, timer runs) for one capture of `model` in the app."""
    from explorer.model.records import CaptureOptions

    from screens.app import create_app

    app = create_app(model_spec=model, options=CaptureOptions(targets=("cpu",)), level="optimized-hlo")
    async with app.run_test(size=(120, 40)) as pilot:
        times = _gap_recorder(app)
        start = time.perf_counter()
        # Done when the finished bundle (not the staging one) is read and its rows are on screen.
        while not (app.has_manifest() and app.opening is None and app.level_ready("optimized-hlo")):
            if app.load_error:
                raise SystemExit(f"error: capture failed: {app.load_error}")
            await asyncio.sleep(0.1)
        await pilot.pause()
        return _longest_stall(times), time.perf_counter() - start, len(times)


async def _idle_stall(seconds: float) -> float:
    """The longest gap of the same timer in a hello-world app doing nothing for `seconds`."""
    from textual.app import App
    from textual.widgets import Static

    class Hello(App):
        def compose(self):
            yield Static("hello")

    app = Hello()
    async with app.run_test(size=(120, 40)) as pilot:
        times = _gap_recorder(app)
        await asyncio.sleep(seconds)
        await pilot.pause()
        return _longest_stall(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--model", default="resnet50")
    args = parser.parse_args()
    stalls, idles, durations = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TENSORWEG_CACHE_DIR"] = cache  # an empty cache: a real capture every run
            stall, seconds, ticks = asyncio.run(_capture_stall(args.model))
        stalls.append(stall)
        durations.append(seconds)
        idles.append(asyncio.run(_idle_stall(min(seconds, 10.0))))
    stall, idle = statistics.median(stalls), statistics.median(idles)
    print(f"capture of {args.model} in the app: median {statistics.median(durations):.1f} s over {args.runs} runs")
    print(f"longest UI stall during the capture: median {stall * 1000:.1f} ms (runs: "
          + ", ".join(f"{s * 1000:.0f}" for s in stalls) + " ms)")
    print(f"hello-world app, same timer, idle:    median {idle * 1000:.1f} ms")
    print(f"ratio capture stall / idle stall: {stall / idle:.2f}" if idle > 0 else "idle stall: 0 ms")


if __name__ == "__main__":
    main()
