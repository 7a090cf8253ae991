"""Concurrent targets against the slowest single target (issue: GPU and TPU side by side).

Usage: python bench/bench_targets.py [--model mnist_cnn] [--repeat 3]
Captures the default targets (cpu, gpu:h100, tpu:v5e) together, and each
target alone, alternating runs; prints medians and the ratio of the
together-run to the slowest single target (goal: at most 1.2x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script

TARGETS = ("cpu", "gpu:h100", "tpu:v5e")


def capture_seconds(model: str, targets: str, out: Path, env: dict) -> float:
    return run_timed([sys.executable, "-m", "explorer.cli", "capture", model, "--targets", targets,
                      "--no-cache", "-o", str(out)], env)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    times: dict[str, list[float]] = {t: [] for t in (*TARGETS, "together")}
    for i in range(args.repeat):
        for target in TARGETS:
            times[target].append(capture_seconds(args.model, target, work / f"{i}-{target}", env))
        times["together"].append(capture_seconds(args.model, ",".join(TARGETS), work / f"{i}-all", env))
    medians = {k: statistics.median(v) for k, v in times.items()}
    slowest = max(TARGETS, key=lambda t: medians[t])
    for name, value in medians.items():
        print(f"{args.model} {name:>9}: median {value:.2f} s")
    print(f"{args.model}: together / slowest single ({slowest}) = {medians['together'] / medians[slowest]:.2f}x "
          "(goal <= 1.2x)")


if __name__ == "__main__":
    main()
