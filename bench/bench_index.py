"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

The cross-level index at scale: build time per 1,000 instructions, and opening NASNetMobile.

Usage: .venv/bin/python bench/bench_index.py [--bundle PATH] [--runs 3]

Without --bundle, NASNetMobile (keras.applications, random weights, 224x224) is
captured once for cpu, gpu:h100 and tpu:v5e into bench/.bench/cache (ignored by
git; about a minute on two cores) and reused. Prints:
  * per target: instructions, links, seconds to read its modules, seconds to
    build its part of the index, and the build time per 1,000 instructions
    (goal: the same per 1,000 on a 700-layer model as on a small one: linear);
  * "open cached NASNetMobile to its rows": seconds from interpreter start
    until the app has drawn the bundle's layer list (fresh process, headless,
    median of --runs; goal < 1.5 s, and as fast as a small model), next to the
    recorded mnist_cnn bundle and as their ratio. The side panes' per-target
    lines are read after that frame (the device pane says "reading" until then).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import ROOT  # bench/ is on sys.path when run as a script

MODEL = "sample_models.architectures:nasnet_mobile"
TARGETS = "cpu,gpu:h100,tpu:v5e"
CACHE = ROOT / "bench" / ".bench" / "cache"
SMALL = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"

OPEN = r"""
import time; start = time.perf_counter()
import asyncio, sys
from screens.app import create_app
async def main():
    app = create_app(sys.argv[1], level="layers", target="cpu")
    async with app.run_test(size=(120, 40)):
        # The bundle is read in a worker after the first frame; its rows are on screen once the
        # list has them and the screen has refreshed after that (a paint). Not `pilot.pause()`:
        # it waits for the whole process to idle, i.e. for the background warm-up too (up to 1 s).
        while not (app.bundle is not None and app.items_table is not None
                   and app.items_table.table.row_count):
            await asyncio.sleep(0.002)
        painted = asyncio.Event()
        app.screen.call_after_refresh(painted.set)
        await painted.wait()
        print(time.perf_counter() - start)
asyncio.run(main())
"""


def cached_capture() -> Path:
    """The NASNetMobile bundle, captured on first use (about a minute on two cores)."""
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(CACHE)}
    done = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", MODEL, "--targets", TARGETS],
                          env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    return Path(done.stdout.strip().splitlines()[-1])


def index_figures(path: Path) -> None:
    from explorer.model.bundle import Bundle
    from explorer.model.index_build import build_index

    bundle = Bundle.open(path)
    layers, graph, scopes = list(bundle.layers), bundle.graph, bundle.scopes
    print(f"{bundle.model_name}: {len(layers)} layers, {len(graph.ops) if graph else 0} graph ops")
    for target in bundle.targets:
        start = time.perf_counter()
        modules = {(target, level): module for level, optimized in (("hlo", False), ("optimized-hlo", True))
                   if (module := bundle.hlo_module(target, optimized)) is not None}
        kernels = {target: list(bundle.kernels(target))}
        read = time.perf_counter() - start
        instructions = sum(sum(1 for _ in module.all_instructions()) for module in modules.values())
        start = time.perf_counter()
        index = build_index(layers, graph, scopes, modules, kernels)
        built = time.perf_counter() - start
        print(f"  {target:>8}: {instructions:6,} instructions, {len(index.links):7,} links, "
              f"{len(index.shared):5,} shared op_names; "
              f"read {read:.2f} s, index {built:.2f} s = {built / instructions * 1000 * 1000:.1f} ms "
              f"per 1,000 instructions")


def open_seconds(paths: list[Path], runs: int) -> list[float]:
    """Median seconds to rows per bundle; the bundles take turns, so a busy machine slows each alike."""
    times: list[list[float]] = [[] for _ in paths]
    for _ in range(runs):
        for path, found in zip(paths, times, strict=True):
            out = subprocess.run([sys.executable, "-c", OPEN, str(path)], cwd=ROOT, check=True,
                                 capture_output=True, text=True)
            found.append(float(out.stdout.strip().splitlines()[-1]))
    return [statistics.median(found) for found in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, help="a captured bundle (default: NASNetMobile, cached)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path = args.bundle or cached_capture()
    index_figures(path)
    index_figures(SMALL)
    large, small = open_seconds([path, SMALL], args.runs)
    print(f"open cached {path.name if args.bundle else 'NASNetMobile'} to its rows: median {large:.2f} s "
          f"(goal < 1.5 s); mnist_cnn: {small:.2f} s; ratio {large / small:.2f} (goal: about 1)")


if __name__ == "__main__":
    main()
