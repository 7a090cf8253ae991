"""What SASS costs a GPU capture (issue 17: at most 1.3x for ResNet50 on gpu:h100).

Usage: python bench/bench_sass.py [--model resnet50] [--target gpu:h100] [--repeat 3]
Times the whole `tensorweg capture --targets <target>` (with SASS, as users run it), then the
SASS step alone (explorer.capture.sass.with_sass) on the same bundle's kernels, and prints the
capture time over the capture time without that step. The model.json the JAX worker needs is
captured once first, so the TensorFlow worker is not in the times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script

sys.path.insert(0, str(ROOT))

from explorer.capture.sass import with_sass
from explorer.model.bundle import Bundle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--target", default="gpu:h100")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(ROOT)}
    base = work / "base"
    run_timed([sys.executable, "-m", "explorer.cli", "capture", args.model, "--targets", "cpu", "-o", str(base)], env)
    captures, steps = [], []
    for i in range(args.repeat):
        bundle_dir = work / f"bundle{i}"
        shutil.copytree(base, bundle_dir)  # grows by the GPU target only: the JAX worker alone
        captures.append(run_timed([sys.executable, "-m", "explorer.cli", "capture", args.model, "--targets",
                                   f"cpu,{args.target}", "-o", str(bundle_dir)], env))
        kernels = [replace(k, sass="", ptxas=None, sass_note="") for k in Bundle.open(bundle_dir).kernels(args.target)]
        start = time.perf_counter()
        with_sass(kernels, work / f"sass{i}")
        steps.append(time.perf_counter() - start)
    total, step = statistics.median(captures), statistics.median(steps)
    compiled = sum(1 for k in kernels if k.ptx)
    print(f"{args.model} on {args.target}: capture median {total:.2f} s, SASS for {compiled} kernels "
          f"{step:.2f} s; ratio {total / (total - step):.2f}x (goal <= 1.3x)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
