"""The what-if lab's two goals (issue 26), each a ratio against a baseline run side by side.

Usage: python bench/bench_variant_diff.py [--model resnet50] [--target tpu:v5e] [--repeat 3]

1. `tensorweg diff MODEL --vary batch=1,64` on two cached variants against `tensorweg compare MODEL`
   on one cached bundle (the same start-up, one bundle read): median seconds of each and their ratio
   (goal: the diff on screen in under 1 s for ResNet50's variants).
2. A variant's capture (`--dtype bfloat16`, `--xla-flag xla_disable_hlo_passes=algsimp`) against the
   same plain capture, alternating, `--no-cache`: the ratio of medians (goal: at most 1.0x plus noise).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _timing import run_timed  # bench/ is on sys.path when run as a script

VARIANTS = {"plain": [], "bfloat16": ["--dtype", "bfloat16"],
            "algsimp off": ["--xla-flag", "xla_disable_hlo_passes=algsimp"]}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "explorer.cli", *args]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--target", default="tpu:v5e")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache")}
    diff = cli("diff", args.model, "--vary", "batch=1,64", "--target", args.target)
    compare = cli("compare", args.model, "--targets", args.target)
    run_timed(diff, env)  # captures both variants into the cache; the timed runs are cache hits
    shown = {"diff": [], "compare": []}
    for _ in range(args.repeat):
        shown["compare"].append(run_timed(compare, env))
        shown["diff"].append(run_timed(diff, env))
    on_screen = {name: statistics.median(times) for name, times in shown.items()}
    print(f"{args.model} {args.target}: diff {on_screen['diff']:.2f} s, compare {on_screen['compare']:.2f} s, "
          f"ratio {on_screen['diff'] / on_screen['compare']:.2f}x (goal: diff under 1 s)")
    captures: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for i in range(args.repeat):
        for name, options in VARIANTS.items():
            out = work / f"{i}-{name.replace(' ', '-')}"
            captures[name].append(run_timed(cli("capture", args.model, "--targets", args.target, "--no-cache",
                                                "-o", str(out), *options), env))
    plain = statistics.median(captures["plain"])
    for name in VARIANTS:
        median = statistics.median(captures[name])
        print(f"{args.model} capture {name:>12}: median {median:.2f} s, {median / plain:.2f}x plain")


if __name__ == "__main__":
    main()
