"""First frame of tensorweg vs a hello-world Textual app, measured in the same run.

Each app starts in a fresh interpreter (imports count: they are what a user
waits for) and reports the seconds from interpreter start to its first
rendered frame (headless, fixed 120x40). Prints the medians and the ratio;
ratios, not absolutes, are comparable across machines.

    .venv/bin/python bench/bench_first_frame.py [--runs 5] [--bundle PATH]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT / "tests" / "fixtures" / "bundles" / "mnist_cnn"

HELLO = r"""
import time; start = time.perf_counter()
import asyncio
from textual.app import App
from textual.widgets import Static
class Hello(App):
    def compose(self):
        yield Static("hello")
async def main():
    app = Hello()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(time.perf_counter() - start)
asyncio.run(main())
"""

TENSORWEG = r"""
import time; start = time.perf_counter()
import asyncio, sys
from screens.app import create_app
async def main():
    app = create_app(sys.argv[1], level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(time.perf_counter() - start)
asyncio.run(main())
"""


def one_run(code: str, *args: str) -> float:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE)
    args = parser.parse_args()
    hello, ours = [], []
    for _ in range(args.runs):  # interleaved, so machine load affects both alike
        hello.append(one_run(HELLO))
        ours.append(one_run(TENSORWEG, str(args.bundle)))
    h, t = statistics.median(hello), statistics.median(ours)
    print(f"hello-world first frame: median {h:.3f} s over {args.runs} runs")
    print(f"tensorweg   first frame: median {t:.3f} s (optimized HLO of {args.bundle.name})")
    print(f"ratio tensorweg / hello-world: {t / h:.2f}")


if __name__ == "__main__":
    main()
