"""The filmstrip's costs: capture with per-pass dumps against without, opening it, stepping.

Usage: python bench/bench_passes.py [--model mnist_cnn] [--targets cpu,tpu:v5e] [--repeat 3]
       python bench/bench_passes.py --split [--model resnet50] [--repeat 2]
       python bench/bench_passes.py --grappler [--model resnet50] [--repeat 3]
Captures alternately with and without `--passes` (fresh processes, no cache) and prints the
median ratio (goal <= 1.5x); then, on the captured bundle, the time to open each target's
filmstrip from disk (list + first diff, goal < 1 s for ResNet50) and the median time to step
to the next pass and build its diff (goal <= 50 ms), over every frame; the same for Grappler's
film of the TensorFlow graph (written by the same `--passes` capture).

`--split` separates XLA's own cost from ours on the cpu target: plain TensorFlow (no tensorweg
code) compiles and runs the model as the capture does (the hlo and optimized_hlo stages, one
call), in fresh processes, with the capture's dump flags and without the per-pass ones, timed
in process CPU seconds (steadier than wall time on a shared machine); then tensorweg's
collection of the frames (`read_cpu_passes`: read, normalise, drop unchanged, count, compress)
is timed on that dump.

`--grappler` times the graph level alone (tensorweg's `graph_level_and_film`, in this process, on one
trace of the model) without and with Grappler's film, in process CPU seconds, alternating.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, run_timed  # bench/ is on sys.path when run as a script

sys.path.insert(0, str(ROOT))

from explorer.model.passes_grappler import GRAPPLER


def capture_seconds(model: str, targets: str, out: Path, env: dict, passes: bool) -> float:
    command = [sys.executable, "-m", "explorer.cli", "capture", model, "--targets", targets, "--no-cache",
               "-o", str(out)]
    return run_timed(command + (["--passes"] if passes else []), env)


def filmstrip_times(bundle_path: Path, target: str) -> tuple[float, float, int]:
    """(seconds to open the filmstrip and draw frame 0's list and diff, median step seconds, frames)."""
    from explorer.model.bundle import Bundle
    from explorer.views import passes as pass_view

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


# Plain TensorFlow, as the capture's cpu target drives XLA (explorer/capture/tf_worker.py), printing
# the process CPU seconds of the compiles and the run. argv: model, dump dir, extra XLA flags.
_PLAIN_TF = """
import os, sys, time
os.environ["XLA_FLAGS"] = f"--xla_dump_to={sys.argv[2]} --xla_dump_hlo_as_text {sys.argv[3]}"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
from sample_models import SAMPLES
model = SAMPLES[sys.argv[1]].build()
specs = [tf.TensorSpec([1 if d is None else d for d in x.shape], x.dtype) for x in model.inputs]
function = tf.function(lambda *x: model(*x, training=False), jit_compile=True)
start = time.process_time()
for stage in ("hlo", "optimized_hlo"):
    function.experimental_get_compiler_ir(*specs)(stage=stage)
function(*[tf.zeros(spec.shape, spec.dtype) for spec in specs])
print(time.process_time() - start)
"""


def xla_alone(model: str, dump: Path, flags: str) -> float:
    """CPU seconds plain TensorFlow spends compiling and running `model` with `flags` added."""
    done = subprocess.run([sys.executable, "-c", _PLAIN_TF, model, str(dump), flags], check=True, cwd=ROOT,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def split(model: str, repeat: int, work: Path) -> None:
    """XLA's own per-pass dump cost against ours (see the module's docstring)."""
    from explorer.capture.cpu_dump import CPU_PASS_MODULES, read_cpu_passes
    from explorer.model.passes_dump import pass_dump_flags

    plain, dumped, ours = [], [], []
    for i in range(repeat):  # alternating, so machine load hits both alike
        plain.append(xla_alone(model, work / f"{i}-plain", ""))
        dump = work / f"{i}-dump"
        dumped.append(xla_alone(model, dump, pass_dump_flags(CPU_PASS_MODULES)))
        start = time.process_time()
        read_cpu_passes(dump, work / f"{i}-out")
        ours.append(time.process_time() - start)
    base, xla, collect = (statistics.median(v) for v in (plain, dumped, ours))
    print(f"{model} cpu, CPU seconds (median of {repeat}): XLA compile+run without per-pass dump {base:.2f}, "
          f"with it {xla:.2f} ({xla / base:.2f}x, XLA's own cost +{xla - base:.2f}); "
          f"tensorweg's collection of the frames {collect:.2f} (+{collect / base:.2f}x on top)")


def grappler(model: str, repeat: int) -> None:
    """The graph level's cost without and with Grappler's film (see the module's docstring)."""
    from explorer.capture.tf_graph import graph_level_and_film, trace_model
    from explorer.capture.tf_loading import input_signature

    from sample_models import SAMPLES

    built = SAMPLES[model].build()
    traced = trace_model(built, input_signature(built, 1))
    graph_level_and_film(traced.concrete, traced.scope_map, per_optimizer=False)  # warm-up: TF's first-call costs
    seconds: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(repeat):  # alternating, so machine load hits both alike
        for film in (False, True):
            start = time.process_time()
            graph_level_and_film(traced.concrete, traced.scope_map, per_optimizer=film)
            seconds[film].append(time.process_time() - start)
    without, with_film = (statistics.median(seconds[film]) for film in (False, True))
    print(f"{model} graph level, CPU seconds (median of {repeat}): without Grappler's film {without:.2f}, "
          f"with it {with_film:.2f} ({with_film / without:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--targets", default="cpu,tpu:v5e")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--split", action="store_true", help="XLA's own dump cost against ours (cpu)")
    parser.add_argument("--grappler", action="store_true", help="the graph level without and with Grappler's film")
    args = parser.parse_args()
    if args.grappler:
        grappler(args.model, args.repeat)
        return
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    if args.split:
        split(args.model, args.repeat, work)
        return
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
