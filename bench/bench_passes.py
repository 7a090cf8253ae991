"""The filmstrip's costs: capture with per-pass dumps against without, opening it, stepping.

Usage: python bench/bench_passes.py [--model mnist_cnn] [--targets cpu,tpu:v5e] [--repeat 3]
Captures alternately with and without `--passes` (fresh processes, no cache) and prints the
median ratio (goal <= 1.5x); then, on the captured bundle, the time to open each target's
filmstrip from disk (list + first diff, goal < 1 s for ResNet50) and the median time to step
to the next pass and build its diff (goal <= 50 ms), over every frame; the same for Grappler's
film of the TensorFlow graph (written by the same `--passes` capture).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script

sys.path.insert(0, str(ROOT))

from explorer.passes_grappler import GRAPPLER  # noqa: E402  (after ROOT is on the path)


def capture_seconds(model: str, targets: str, out: Path, env: dict, passes: bool) -> float:
    command = [sys.executable, "-m", "explorer.cli", "capture", model, "--targets", targets, "--no-cache",
               "-o", str(out)]
    return run_timed(command + (["--passes"] if passes else []), env)


def filmstrip_times(bundle_path: Path, target: str) -> tuple[float, float, int]:
    """(seconds to open the filmstrip and draw frame 0's list and diff, median step seconds, frames)."""
    from explorer import pass_view
    from explorer.bundle import Bundle

    from screens.passes import diff_text

    start = time.perf_counter()
    strip = pass_view.filmstrip(Bundle.open(bundle_path), target)
    [pass_view.cells(row, strip.index.film) for row in strip.rows()]
    diff_text(strip, 0)
    opened = time.perf_counter() - start
    steps = []
    for number in range(1, len(strip)):
        start = time.perf_counter()
        diff_text(strip, number)
        pass_view.narration(strip.frames[number].pass_name, "en", strip.index.film)
        steps.append(time.perf_counter() - start)
    return opened, statistics.median(steps), len(strip)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--targets", default="cpu,tpu:v5e")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    plain, passes = [], []
    for i in range(args.repeat):  # alternating, so machine load hits both alike
        plain.append(capture_seconds(args.model, args.targets, work / f"{i}-plain", env, passes=False))
        passes.append(capture_seconds(args.model, args.targets, work / f"{i}-passes", env, passes=True))
    without, with_passes = statistics.median(plain), statistics.median(passes)
    print(f"{args.model} [{args.targets}] capture without passes: median {without:.2f} s, "
          f"with --passes: {with_passes:.2f} s, ratio {with_passes / without:.2f}x (goal <= 1.5x)")
    for target in [*args.targets.split(","), GRAPPLER]:
        opened, step, frames = filmstrip_times(work / "0-passes", target)
        print(f"{args.model} {target}: {frames} frames; open {opened * 1000:.0f} ms (goal < 1 s), "
              f"step median {step * 1000:.1f} ms (goal <= 50 ms)")


if __name__ == "__main__":
    main()
