"""Key press to updated screen: the median time for one cursor move in the
optimized-HLO list (side panes, code view and highlight all refreshed),
against the same move in a bare DataTable of as many rows (same run), so the
ratio shows what tensorweg adds on top of Textual and the test driver.

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
DEFAULT_BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"


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


async def press_timings(app, presses: int, rows: int | None = None) -> tuple[list[float], int]:
    timings = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        if rows is None:
            rows = len(app.screen.query_one("#items").shown)
        for i in range(presses):
            key = "down" if (i // max(rows - 1, 1)) % 2 == 0 else "up"  # sweep the list back and forth
            start = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()  # the screen has processed the move and refreshed
            timings.append(time.perf_counter() - start)
    return timings, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--target", default="cpu")
    args = parser.parse_args()
    from screens.app import create_app

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
