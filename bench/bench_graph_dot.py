"""The DOT of ResNet50's whole optimized HLO (cpu): written in under 1 s.

Usage: .venv/bin/python bench/bench_graph_dot.py [--bundle PATH] [--runs 5]

Without --bundle, the sample `resnet50` is captured for cpu through the user's cache (a cache hit
when it was captured before; else a few minutes on two cores). Prints, median of --runs:
  * in-process, the module already read and parsed (the open app's case, and most of the command):
    building the level's graph, the pydot graph, its text and the file (`tensorweg graph ... -o x.dot`
    after the bundle is read; goal < 1 s), next to the baseline of the same level written as
    `inspect --json` (its instructions and operands) in the same run, and their ratio;
  * the whole command in a fresh process, `python -m explorer.cli graph BUNDLE --level optimized-hlo
    -o x.dot`, next to `inspect BUNDLE --level optimized-hlo --json` (both read and parse the module).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script


def resnet50_bundle() -> Path:
    done = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "resnet50", "--targets", "cpu"],
                          cwd=ROOT, check=True, capture_output=True, text=True)
    return Path(done.stdout.strip().splitlines()[-1])


def in_process(path: Path, runs: int) -> tuple[float, float, int, int]:
    """Median seconds of (DOT written, inspect JSON written), boxes and bytes of the DOT."""
    from explorer.atomic_file import write_whole
    from explorer.model.bundle import Bundle
    from explorer.views.graphs.dot import dot_text
    from explorer.views.programs import program_for

    dots, jsons = [], []
    boxes = size = 0
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            bundle = Bundle.open(path)  # a new object: the per-bundle tables (graph, names) start empty
            bundle.hlo_module("cpu", optimized=True)  # read and parsed, as in the open app
            start = time.perf_counter()
            graph = program_for(bundle, "cpu").graph("optimized-hlo")
            text = dot_text(graph, bundle.model_name)
            write_whole(Path(folder) / f"resnet50-{run}.dot", text, overwrite=True)
            dots.append(time.perf_counter() - start)
            boxes, size = graph.node_count(), len(text)
            start = time.perf_counter()
            data = json.dumps(program_for(bundle, "cpu").level_data("optimized-hlo"))
            write_whole(Path(folder) / f"resnet50-{run}.json", data, overwrite=True)
            jsons.append(time.perf_counter() - start)
    return statistics.median(dots), statistics.median(jsons), boxes, size


def commands(path: Path, runs: int) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    graph_times, inspect_times = [], []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):  # the two take turns, so a busy machine slows each alike
            out = Path(folder) / f"r{run}.dot"
            graph_times.append(run_timed([sys.executable, "-m", "explorer.cli", "graph", str(path), "--level",
                                          "optimized-hlo", "-o", str(out)], env))
            inspect_times.append(run_timed([sys.executable, "-m", "explorer.cli", "inspect", str(path), "--level",
                                            "optimized-hlo", "--json"], env))
    return statistics.median(graph_times), statistics.median(inspect_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, help="a captured ResNet50 bundle (default: captured through the cache)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = args.bundle or resnet50_bundle()
    dot, baseline, boxes, size = in_process(path, args.runs)
    print(f"ResNet50 optimized HLO (cpu): {boxes:,} boxes, DOT {size / 1024:.0f} KiB")
    print(f"  DOT built and written: {dot:.3f} s (goal < 1 s); inspect --json of the level: {baseline:.3f} s; "
          f"ratio {dot / baseline:.2f}")
    whole, inspect = commands(path, args.runs)
    print(f"  `graph -o x.dot` command: {whole:.2f} s; `inspect --json`: {inspect:.2f} s; ratio {whole / inspect:.2f}")


if __name__ == "__main__":
    main()
