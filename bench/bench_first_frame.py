"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

First frame of tensorweg vs a hello-world Textual app, measured in the same run.

Each app starts in a fresh interpreter (imports count: they are what a user
waits for) and reports the seconds from interpreter start to its first
rendered frame (headless, fixed 120x40), to the end of the first
`pilot.pause()` (settled), and (tensorweg) to the first frame that shows the
bundle's rows: the bundle is read in a worker while the first screen is built,
and this is what a learner waits for (often the first frame itself). Prints
the medians and the ratios; ratios, not absolutes, are comparable across
machines.

    .venv/bin/python bench/bench_first_frame.py [--runs 5] [--bundle PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"

# Both apps time the same moments: the first frame handed to the (headless) driver, and the
# first frame whose list has rows (tensorweg's `_rows_on_screen`; the hello app has none).
FIRST_FRAME_HOOK = r"""
from textual.app import App
_first, _rows = [], []
_display = App._display
def _rows_on_screen(app):
    return False
def _timed_display(self, screen, renderable):
    if renderable is not None and not self._batch_count:
        now = time.perf_counter() - start
        if not _first:
            _first.append(now)
        if not _rows and _rows_on_screen(self):
            _rows.append(now)
    return _display(self, screen, renderable)
App._display = _timed_display
"""

HELLO = r"""
import time; start = time.perf_counter()
import asyncio
""" + FIRST_FRAME_HOOK + r"""
from textual.widgets import Static
class Hello(App):
    def compose(self):
        yield Static("hello")
async def main():
    app = Hello()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(_first[0], time.perf_counter() - start, time.perf_counter() - start)
asyncio.run(main())
"""

TENSORWEG = r"""
import time; start = time.perf_counter()
import asyncio, sys
""" + FIRST_FRAME_HOOK + r"""
def _rows_on_screen(app):
    from screens.widgets.item_rows import ItemRows
    return any(rows.row_count for rows in app.screen.query(ItemRows))
from screens.app import create_app
async def main():
    app = create_app(sys.argv[1], level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        settled = time.perf_counter() - start
        await app.opened.wait()  # the bundle is read in a worker
        while not _rows:
            await pilot.pause()
        print(_first[0], settled, _rows[0])
asyncio.run(main())
"""


# A learner's second start finds the modules' bytecode cached (the first one writes it). Textual's
# is written when it is installed, ours (an editable install) only on the first start: allow the
# write even where the shell forbids it, and start each app once before timing.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def one_run(code: str, *args: str, tree: Path = ROOT) -> tuple[float, float, float]:
    """(first frame, settled after the first pause, rows on screen) in seconds from interpreter start.
    `tree`: the checkout whose code runs (`-c` puts the working directory first on sys.path)."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tree, check=True,
                         env=ENV)
    first, settled, shown = map(float, out.stdout.strip().splitlines()[-1].split())
    return first, settled, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--baseline-tree", type=Path, default=None, metavar="DIR",
                        help="another checkout (e.g. `git worktree add DIR REV`) timed in the same rounds: "
                             "a change's start-up against the code before it")
    args = parser.parse_args()
    if args.baseline_tree is not None:
        compare_trees(args)
        return
    one_run(HELLO), one_run(TENSORWEG, str(args.bundle))  # writes the bytecode; not timed
    hello, ours = [], []
    for _ in range(args.runs):  # interleaved, so machine load affects both alike
        hello.append(one_run(HELLO))
        ours.append(one_run(TENSORWEG, str(args.bundle)))
    h_first, h_settled = (statistics.median(run[i] for run in hello) for i in (0, 1))
    t_first, t_settled, t_shown = (statistics.median(run[i] for run in ours) for i in (0, 1, 2))
    print(f"hello-world first frame: median {h_first:.3f} s, settled {h_settled:.3f} s over {args.runs} runs")
    print(f"tensorweg   first frame: median {t_first:.3f} s, settled {t_settled:.3f} s, "
          f"rows on screen {t_shown:.3f} s (optimized HLO of {args.bundle.name})")
    print(f"ratio tensorweg / hello-world, first frame: {t_first / h_first:.2f}")
    print(f"ratio tensorweg rows on screen / hello-world settled: {t_shown / h_settled:.2f}")

def compare_trees(args: argparse.Namespace) -> None:
    """This tree against `--baseline-tree`, interleaved with the hello-world app in every round."""
    bundle = str(args.bundle.resolve())
    trees = {"this tree": ROOT, "baseline": args.baseline_tree.resolve()}
    for tree in trees.values():  # writes the bytecode; not timed
        one_run(TENSORWEG, bundle, tree=tree)
    one_run(HELLO)
    shown = {name: [] for name in trees}
    settled = []
    for _ in range(args.runs):
        settled.append(one_run(HELLO)[1])
        for name, tree in trees.items():
            shown[name].append(one_run(TENSORWEG, bundle, tree=tree)[2])
    hello = statistics.median(settled)
    for name, runs in shown.items():
        median = statistics.median(runs)
        print(f"{name:<10} rows on screen: median {median:.3f} s = {median / hello:.2f}x hello-world settled "
              f"({hello:.3f} s), {args.runs} rounds")
    ratios = sorted(a / b for a, b in zip(shown["this tree"], shown["baseline"], strict=True))
    print(f"this tree / baseline, round by round: median {statistics.median(ratios):.2f} "
          f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f})")


if __name__ == "__main__":
    main()
