"""Capture speed against a plain-script baseline, run side by side (issue: capture pipeline).

Usage: python bench/bench_capture.py [--model mnist_cnn] [--repeat 3]
Prints the median wall time of each and their ratio (goal: mnist_cnn <= 1.3x,
resnet50 <= 1.5x), then the median time to open a cached capture (goal < 0.5 s).
Runs alternate between the two so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    ours, baseline = [], []
    for i in range(args.repeat):
        baseline.append(run_timed([sys.executable, "bench/baseline_capture.py", args.model,
                                   str(work / f"dump{i}")], env))
        ours.append(run_timed([sys.executable, "-m", "explorer.cli", "capture", args.model, "--targets", "cpu",
                           "--no-cache", "-o", str(work / f"bundle{i}")], env))
    b, o = statistics.median(baseline), statistics.median(ours)
    print(f"{args.model}: baseline median {b:.2f} s, tensorweg capture median {o:.2f} s, ratio {o / b:.2f}x")

    subprocess.run([sys.executable, "-m", "explorer.cli", "capture", args.model, "--targets", "cpu"],
                   check=True, env=env, cwd=ROOT, capture_output=True)
    opens = []
    probe = ("import time; t=time.perf_counter();"
             "from explorer.capture.orchestrator import cached_bundle; from explorer.bundle import Bundle;"
             "from explorer.records import CaptureOptions;"
             f"b=Bundle.open(cached_bundle({args.model!r}, CaptureOptions(targets=('cpu',))));"
             "b.layers; b.hlo_module('cpu', True); print(time.perf_counter()-t)")
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", probe], check=True, env=env, cwd=ROOT,
                             capture_output=True, text=True)
        opens.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"{args.model}: cache hit opens in median {statistics.median(opens):.3f} s (goal < 0.5 s)")


if __name__ == "__main__":
    main()
