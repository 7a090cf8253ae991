"""The passport (`P`) on a cached ResNet50: computed after the app's own warm-up, against Enter.

Usage: .venv/bin/python bench/bench_passport.py [--bundle PATH] [--target cpu] [--layers 12]

Without --bundle, ResNet50 (keras.applications, random weights) is captured once for cpu,
gpu:h100 and tpu:v5e into bench/.bench/cache (ignored by git; minutes on two cores) and reused;
a cached bundle from the user's cache can be named with --bundle. The bundle is then opened and
warmed as the app's open worker does (`build_trace`, `prepare_first_screen`, `warm_layer_facts`,
`prepare_levels`), so what is timed is what a `P` press computes. Prints, for --layers layers
spread over the model, the median and the slowest passport in ms (goal: under 200 ms), beside
`trace.descend` for the same layers (what Enter computes) and their ratio. The warm-up builds the
tables a first passport reads (`explorer.views.warm.warm_passport`: without it the first one on
ResNet50's cpu target took 450-530 ms, reading the memory level and the kernels' code).
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

sys.path.insert(0, str(ROOT))

from explorer.model.bundle import Bundle
from explorer.views.panes import warm_layer_facts
from explorer.views.passport import passport
from explorer.views.trace import build_trace, descend
from explorer.views.warm import prepare_first_screen, prepare_levels

MODEL = "resnet50"
TARGETS = "cpu,gpu:h100,tpu:v5e"
CACHE = ROOT / "bench" / ".bench" / "cache"


def cached_capture() -> Path:
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(CACHE)}
    done = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", MODEL, "--targets", TARGETS],
                          env=env, cwd=ROOT, check=True, capture_output=True, text=True)
    return Path(done.stdout.strip().splitlines()[-1])


def warmed(path: Path, target: str) -> Bundle:
    bundle = Bundle.open(path)
    build_trace(bundle)
    prepare_first_screen(bundle, "layers", target, "en", lambda _target: None)
    warm_layer_facts(bundle, "en", lambda: False)
    prepare_levels(bundle, target, "en", lambda: False)
    return bundle


def timed(function, *args, **kwargs) -> float:
    start = time.perf_counter()
    function(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=None)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args()
    path = args.bundle or cached_capture()
    start = time.perf_counter()
    bundle = warmed(path, args.target)
    print(f"{bundle.model_name} on {args.target}: opened and warmed in {time.perf_counter() - start:.1f} s")
    names = [record.name for record in bundle.layers]
    step = max(1, len(names) // args.layers)
    chosen = names[1::step][:args.layers]
    first = timed(passport, bundle, args.target, chosen[0])
    passports = [timed(passport, bundle, args.target, name) for name in chosen[1:]]
    enters = [timed(descend, bundle, "layers", name, args.target) for name in chosen[1:]]
    median, slowest, enter = statistics.median(passports), max(passports), statistics.median(enters)
    print(f"first passport after the warm-up ({chosen[0]}): {first:.1f} ms")
    print(f"passport over {len(passports)} layers: median {median:.1f} ms, slowest {slowest:.1f} ms (goal < 200 ms)")
    print(f"Enter (trace.descend) on the same layers: median {enter:.2f} ms; passport / Enter = "
          f"{median / enter if enter else float('inf'):.0f}x")


if __name__ == "__main__":
    main()
