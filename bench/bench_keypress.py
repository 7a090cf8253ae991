"""Key press to updated screen: the median time for one cursor move in the
optimized-HLO list (side panes, code view and highlight all refreshed), from
the press to the last frame it caused, against the same move in a bare
DataTable of as many rows (same run), so the ratio shows what tensorweg adds
on top of Textual and the test driver. Defaults to a local ResNet50 bundle.

    .venv/bin/python bench/bench_keypress.py [--presses 60] [--bundle PATH] [--target cpu]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
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
            rows = len(app.screen.query_one("#items").shown)
        for i in range(presses):
            key = "down" if (i // max(rows - 1, 1)) % 2 == 0 else "up"  # sweep the list back and forth
            _FRAMES.clear()
            start = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()  # the screen has processed the move and refreshed
            timings.append((_FRAMES[-1] if _FRAMES else time.perf_counter()) - start)
    return timings, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--target", default="cpu")
    args = parser.parse_args()
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
