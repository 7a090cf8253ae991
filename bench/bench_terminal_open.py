"""Process start to the bundle's rows, as a learner in a terminal sees it: the app runs in tmux
(80x24 by default) and the screen is polled until the rows show, against the same for another
checkout (`--baseline-tree`, e.g. `git worktree add DIR REV`) in the same rounds, interleaved.

In-process benches (Pilot, headless) leave out the terminal; this one times what the learner waits
for. Needs tmux (Debian's `tmux`).

    .venv/bin/python bench/bench_terminal_open.py [--runs 7] [--size 80x24] [--bundle PATH] [--baseline-tree DIR]
"""

from __future__ import annotations

import argparse
import math
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"
TIMEOUT_S = 60.0


def rows_on_screen(tree: Path, bundle: Path, marker: str, size: tuple[int, int]) -> float:
    """Seconds from starting `python -m screens.cli BUNDLE` in `tree` to `marker` on the tmux screen."""
    session = f"tensorweg-bench-{time.time_ns()}"
    command = (f"cd {shlex.quote(str(tree))} && "
               f"exec {shlex.quote(sys.executable)} -m screens.cli {shlex.quote(str(bundle))}")
    start = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), command],
                   check=True)
    try:
        while time.perf_counter() - start < TIMEOUT_S:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                                    text=True).stdout
            if marker in screen:
                return time.perf_counter() - start
            time.sleep(0.01)
        return math.nan
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    parser.add_argument("--marker", default="conv2d", help="text that shows once the rows are on screen")
    parser.add_argument("--baseline-tree", type=Path, default=None, metavar="DIR")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("error: tmux is not installed (apt-get install tmux)")
    size = tuple(int(n) for n in args.size.split("x"))
    trees = {"this tree": ROOT}
    if args.baseline_tree is not None:
        trees["baseline"] = args.baseline_tree.resolve()
    bundle = args.bundle.resolve()
    for tree in trees.values():  # writes the bytecode; not timed
        rows_on_screen(tree, bundle, args.marker, size)
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.runs):  # interleaved, so machine load affects both alike
        for name, tree in trees.items():
            times[name].append(rows_on_screen(tree, bundle, args.marker, size))
    for name, runs in times.items():
        print(f"{name:<10} rows on screen in tmux {args.size}: median {statistics.median(runs):.3f} s "
              f"(min {min(runs):.3f}, max {max(runs):.3f}), {args.runs} runs")
    if "baseline" in times:
        ratios = sorted(a / b for a, b in zip(times["this tree"], times["baseline"], strict=True))
        print(f"this tree / baseline, run by run: median {statistics.median(ratios):.2f} "
              f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f})")


if __name__ == "__main__":
    main()
