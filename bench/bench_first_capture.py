"""The first open of a model nobody captured, as a learner in a terminal sees it, against the bare
Keras-on-JAX import in the same rounds, interleaved (machines are shared and noisy: compare the ratio).

Each round times (a) `KERAS_BACKEND=jax python -c "import keras"` (wall time, this Python) and (b) the
installed `tensorweg open mnist_cnn` in tmux at 80x24 with an empty cache (`TENSORWEG_CACHE_DIR`
pointed at a fresh temporary folder), from its start to the layer list's rows on screen (`conv2d`
shows). Then `q`, the shell's prompt awaited (the app cancels its capture and leaves no worker
behind), and the folder is removed. Issue 39's goal: (b) within 2x (a). Needs tmux and the compilers.

    .venv/bin/python bench/bench_first_capture.py [--runs 5] [--model mnist_cnn] [--marker conv2d]
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_terminal import median
from terminal import PROMPT, Pane

SIZE = (80, 24)
# The cache's placement (explorer.capture.cache.cache_root): an empty folder per round is a model
# nobody captured.
CACHE_VARIABLE = "TENSORWEG_CACHE_DIR"


def bare_keras_import() -> float:
    """Wall seconds of `KERAS_BACKEND=jax python -c "import keras"`."""
    env = {**os.environ, "KERAS_BACKEND": "jax"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import keras"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def first_open(model: str, marker: str) -> float:
    """Seconds from starting `tensorweg open MODEL` on an empty cache to `marker` on screen."""
    tensorweg = shlex.quote(str(Path(sys.executable).with_name("tensorweg")))
    with tempfile.TemporaryDirectory(prefix="tensorweg-first-capture-") as cache:
        pane = Pane(f"{tensorweg} open {shlex.quote(model)}", SIZE, env={CACHE_VARIABLE: cache})
        try:
            started = pane.start()
            seconds, _ = pane.wait_for(lambda screen: marker in screen, started)
            pane.wait_for(lambda screen: PROMPT in screen, pane.send("q"))  # its workers gone before the folder
        finally:
            pane.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", default="mnist_cnn", help="a sample model (captured afresh each round)")
    parser.add_argument("--marker", default="conv2d", help="text that shows once the layer rows are on screen")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("error: tmux is not installed (apt-get install tmux)")
    bare_keras_import()  # bytecode and the page cache warm for both: not timed
    first_open(args.model, args.marker)
    imports, opens = [], []
    for _ in range(args.runs):
        imports.append(bare_keras_import())
        opens.append(first_open(args.model, args.marker))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"{args.runs} rounds, interleaved; load average {load}")
    print(f"bare `KERAS_BACKEND=jax python -c 'import keras'`: median {median(imports):.3f} s "
          f"(min {min(imports):.3f}, max {max(imports):.3f})")
    print(f"`tensorweg open {args.model}`, empty cache, rows in tmux 80x24: median {median(opens):.3f} s "
          f"(min {min(opens):.3f}, max {max(opens):.3f})")
    ratio = median(opens) / median(imports) if median(imports) else math.nan
    print(f"first open / bare import: {ratio:.2f}x (goal: at most 2x)")


if __name__ == "__main__":
    main()
