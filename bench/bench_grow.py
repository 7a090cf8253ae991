"""Adding a target to a bundle against capturing that target alone (issue 12: bundles that grow).

Usage: python bench/bench_grow.py [--model mnist_cnn] [--target tpu:v5e] [--base cpu] [--repeat 3]
Each round captures `--target` alone into a fresh folder, and grows a bundle
captured for `--base` (untimed) by `--target`; both through `tensorweg capture
-o`, alternating. Prints the medians and the ratio grown / alone (goal: at most
1.0x: a grow runs only the new target's worker, the capture from nothing runs
TensorFlow too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script


def capture_seconds(model: str, targets: str, out: Path, env: dict) -> float:
    return run_timed([sys.executable, "-m", "explorer.cli", "capture", model, "--targets", targets,
                      "-o", str(out)], env)


def runs(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--target", default="tpu:v5e")
    parser.add_argument("--base", default="cpu")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    alone: list[float] = []
    grown: list[float] = []
    for i in range(args.repeat):
        alone.append(capture_seconds(args.model, args.target, work / f"{i}-alone", env))
        capture_seconds(args.model, args.base, work / f"{i}-grown", env)
        grown.append(capture_seconds(args.model, args.target, work / f"{i}-grown", env))
    median_alone, median_grown = statistics.median(alone), statistics.median(grown)
    print(f"{args.model} {args.target} alone: median {median_alone:.2f} s ({runs(alone)})")
    print(f"{args.model} {args.target} added to a {args.base} bundle: median {median_grown:.2f} s ({runs(grown)})")
    print(f"{args.model}: added / alone = {median_grown / median_alone:.2f}x (goal <= 1.0x)")


if __name__ == "__main__":
    main()
