"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

Key press to updated screen: the median time for one cursor move in the
optimized-HLO list (side panes, code view and highlight all refreshed), from
the press to the last frame it caused, against the same move in a bare
DataTable of as many rows (same run), so the ratio shows what tensorweg adds
on top of Textual and the test driver. Defaults to a local ResNet50 bundle.

    .venv/bin/python bench/bench_keypress.py [--presses 60] [--bundle PATH] [--target cpu]

`--first-visit`: the first press of each level key (2, 3, 4, 5, Enter, m, x) after the app
opened on the layer list, each in a fresh interpreter (a learner's first visit imports and
builds the screen), median over `--runs` starts, against the same key's second visit in the
same run. `--profile KEY` prints where one first visit's time goes (cProfile, cumulative).
`--large N` measures a generated bundle of N optimized instructions (tests/large_bundle.py).

    .venv/bin/python bench/bench_keypress.py --first-visit [--runs 5] [--large 30000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# A ResNet50 bundle (~2,500 optimized instructions) when one was captured locally with
#   .venv/bin/tensorweg capture resnet50 --targets cpu -o .bench/resnet50
# (too big for the repository; .bench/ is git-ignored), else the recorded test bundle.
RESNET50 = ROOT / ".bench" / "resnet50"
RECORDED_BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"
DEFAULT_BUNDLE = RESNET50 if (RESNET50 / "manifest.json").is_file() else RECORDED_BUNDLE


def bare_table_app(rows: int):
    from textual.app import App
    from textual.widgets import DataTable

    class Bare(App):
        def compose(self):
            table = DataTable(cursor_type="row")
            table.add_columns("instruction", "opcode", "shape")
            table.add_rows([(f"row{i}", "fusion", "f32[2,10]") for i in range(rows)])
            yield table

    return Bare()


# Times at which a frame went to the (headless) driver: a press counts until the last frame
# it caused, not until the test driver's idle detection notices that nothing is left to do.
_FRAMES: list[float] = []


def _record_frames() -> None:
    from textual.app import App

    display = App._display

    def timed_display(self, screen, renderable):
        if renderable is not None and not self._batch_count:
            _FRAMES.append(time.perf_counter())
        return display(self, screen, renderable)

    App._display = timed_display


async def press_timings(app, presses: int, rows: int | None = None) -> tuple[list[float], int]:
    timings = []
    async with app.run_test(size=(120, 40)) as pilot:
        if hasattr(app, "opened"):
            await app.opened.wait()  # the bundle is read in a worker after the first frame
        await pilot.pause()
        if rows is None:
            rows = len(app.items_table.shown)
        for i in range(presses):
            key = "down" if (i // max(rows - 1, 1)) % 2 == 0 else "up"  # sweep the list back and forth
            _FRAMES.clear()
            start = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()  # the screen has processed the move and refreshed
            timings.append((_FRAMES[-1] if _FRAMES else time.perf_counter()) - start)
    return timings, rows


# Level keys from the layer list, and the key that leaves what each one showed.
FIRST_VISIT_KEYS = {"2": "1", "3": "1", "4": "1", "5": "1", "enter": "1", "m": "1", "x": "escape"}


async def _timed_press(pilot, key: str) -> tuple[float, float]:
    """(wall, CPU) seconds from the press to its last frame. The process's CPU time is what the
    press cost, less at the mercy of a busy machine (the app is idle before it)."""
    _FRAMES.clear()
    start, cpu = time.perf_counter(), time.process_time()
    await pilot.press(key)
    await pilot.pause()
    return (_FRAMES[-1] if _FRAMES else time.perf_counter()) - start, time.process_time() - cpu


def _descending_layer(path: Path) -> str:
    """The first layer that Enter takes down a level (the first rows are often inputs, with nothing below)."""
    from explorer.model.bundle import Bundle
    from explorer.views.rows import rows
    from explorer.views.trace import descend

    bundle = Bundle.open(path)
    return next(item.name for item in rows(bundle, "layers", "cpu")
                if (down := descend(bundle, "layers", item.name, "cpu")) is not None and down.select)


async def first_visit(bundle: Path, key: str, profile: bool = False) -> tuple[float, float, float, float]:
    """(wall, CPU) of the first press of `key`, then of the second, once the app is open and idle."""
    from screens.app import create_app

    _record_frames()
    app = create_app(bundle, level="layers", target="cpu", select=_descending_layer(bundle))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await app.workers.wait_for_complete()
        while any(thread.name == "warm-after-open" for thread in threading.enumerate()):
            await asyncio.sleep(0.05)  # the warm-up after opening (a daemon thread) is done: the learner reads
        await pilot.pause()
        if profile:
            import cProfile
            import pstats

            with cProfile.Profile() as prof:
                first = await _timed_press(pilot, key)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
        else:
            first = await _timed_press(pilot, key)
        await pilot.press(FIRST_VISIT_KEYS[key])
        await pilot.pause()
        second = await _timed_press(pilot, key)
    return *first, *second


def _first_visit_run(bundle: Path, key: str) -> tuple[float, ...]:
    out = subprocess.run([sys.executable, __file__, "--one-visit", key, "--bundle", str(bundle)],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    return tuple(map(float, out.stdout.split()[-4:]))


def first_visits(bundle: Path, runs: int) -> None:
    _first_visit_run(bundle, "2")  # writes the bytecode; not timed
    for key in FIRST_VISIT_KEYS:
        timings = [_first_visit_run(bundle, key) for _ in range(runs)]
        first, first_cpu, second, second_cpu = (statistics.median(run[i] for run in timings) for i in range(4))
        print(f"first {key:>5}: median {first * 1000:6.0f} ms (CPU {first_cpu * 1000:4.0f}), second visit "
              f"{second * 1000:4.0f} ms (CPU {second_cpu * 1000:4.0f}), ratio {first / second:4.1f} "
              f"({runs} starts, {bundle.name})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--first-visit", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--large", type=int, default=0)
    parser.add_argument("--profile", choices=FIRST_VISIT_KEYS)
    parser.add_argument("--one-visit", choices=FIRST_VISIT_KEYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_visit or args.profile:
        print(*asyncio.run(first_visit(args.bundle, args.one_visit or args.profile, bool(args.profile))))
        return
    if args.first_visit:
        with tempfile.TemporaryDirectory() as tmp:
            if args.large:
                sys.path.insert(0, str(ROOT / "tests"))
                from large_bundle import write_large_bundle

                args.bundle = write_large_bundle(Path(tmp) / "large", args.large)
            first_visits(args.bundle, args.runs)
        return
    from screens.app import create_app

    _record_frames()
    app = create_app(args.bundle, level="optimized-hlo", target=args.target)
    timings, rows = asyncio.run(press_timings(app, args.presses))
    bare, _ = asyncio.run(press_timings(bare_table_app(rows), args.presses, rows))
    ours, base = statistics.median(timings), statistics.median(bare)
    print(f"{args.presses} presses over {rows} instructions ({args.bundle.name}, {args.target})")
    print(f"tensorweg  key press to updated screen: median {ours * 1000:.1f} ms, max {max(timings) * 1000:.1f} ms")
    print(f"bare DataTable, same rows:              median {base * 1000:.1f} ms")
    print(f"ratio tensorweg / bare DataTable: {ours / base:.2f}")


if __name__ == "__main__":
    main()
