"""Capture speed against a plain-script baseline, run side by side (issue: capture pipeline).

Usage: python bench/bench_capture.py [--model mnist_cnn] [--repeat 3]
       python bench/bench_capture.py --mode train --model resnet50 --target tpu:v5e --repeat 1
Prints the median wall time of each and their ratio (goal: mnist_cnn <= 1.3x,
resnet50 <= 1.5x; a ResNet50 training step <= 1.2x the plain JAX compile calls of
bench/baseline_capture_train.py: the step's, and the inference call's the capture compiles
for the peak comparison the learner sees), then the median time to open a cached capture
(goal < 0.5 s) and where the last bundle lies (for bench_large.py --bundle).
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
    parser.add_argument("--mode", choices=("inference", "train"), default="inference",
                        help="train: one training step (Adam) through Keras on JAX")
    parser.add_argument("--target", default="cpu", help="train mode: cpu or tpu:v5e (default cpu)")
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    if args.mode == "inference" and args.target != "cpu":
        parser.error("the inference baseline compiles for cpu only")
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    ours, baseline = [], []
    train = args.mode == "train"
    options = ["--targets", args.target, "--batch", str(args.batch), *(["--mode", "train"] if train else [])]
    for i in range(args.repeat):
        plain = (["bench/baseline_capture_train.py", args.model, args.target, str(args.batch)] if train
                 else ["bench/baseline_capture.py", args.model, str(work / f"dump{i}")])
        baseline.append(run_timed([sys.executable, *plain], env))
        ours.append(run_timed([sys.executable, "-m", "explorer.cli", "capture", args.model, *options,
                               "--no-cache", "-o", str(work / f"bundle{i}")], env))
    b, o = statistics.median(baseline), statistics.median(ours)
    print(f"{args.model} ({args.mode}, {args.target}): baseline median {b:.2f} s, "
          f"tensorweg capture median {o:.2f} s, ratio {o / b:.2f}x")

    last = work / f"bundle{args.repeat - 1}"
    if train:  # no further compile: the last bundle is opened as the cache would open it
        where = f"Bundle.open({str(last)!r})"
    else:
        subprocess.run([sys.executable, "-m", "explorer.cli", "capture", args.model, "--targets", "cpu"],
                       check=True, env=env, cwd=ROOT, capture_output=True)
        where = f"Bundle.open(cached_bundle({args.model!r}, CaptureOptions(targets=('cpu',))))"
    opens = []
    probe = ("import time; t=time.perf_counter();"
             "from explorer.capture.orchestrator import cached_bundle; from explorer.model.bundle import Bundle;"
             "from explorer.model.records import CaptureOptions;"
             f"b={where};"
             f"b.layers; b.hlo_module({args.target!r}, True); print(time.perf_counter()-t)")
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, "-c", probe], check=True, env=env, cwd=ROOT,
                             capture_output=True, text=True)
        opens.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"{args.model}: cache hit opens in median {statistics.median(opens):.3f} s (goal < 0.5 s)")
    print(f"last bundle: {last}")


if __name__ == "__main__":
    main()
