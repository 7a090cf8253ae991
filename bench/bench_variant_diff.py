"""The what-if lab's two goals (issue 26), each against a baseline measured in the same run.

1. The diff SCREEN (`V`) on two cached variants of a model (default: ResNet50 at batch 1 and 64 on
   tpu:v5e): in a fresh headless UI process (120x40), the layers level open on the first variant
   from the cache with its rows drawn and the open's workers done, then `V` to the frame that shows
   the diff. Baselines, same processes: `x` (the compare screen, which also reads every layer of the
   bundle on each target) on the same bundle, and `V` on the recorded mnist_cnn variants
   (tests/fixtures/bundles/variants, batch 1 and 64 on cpu). Goal: the ResNet50 diff on screen in
   under 1 s. Then `n` (next layer) in the diff screen, median of 5. Medians over `--repeat` fresh
   processes, V and x alternating which goes first. Last, the same from the command line, from the
   cache (`tensorweg diff` printing the text against `tensorweg compare`).
2. A variant's capture (`--batch 64`, `--dtype bfloat16`, `--xla-flag xla_disable_hlo_passes=fusion`)
   against the same plain capture, `--no-cache`, one target, each variant first in turn: the ratio of
   medians (goal: at most 1.0x plus noise). Run it with an interpreter whose `explorer` is this tree
   (the capture workers start as `python -I -m explorer.capture...`). Default model
   mnist_cnn (a ResNet50 capture takes minutes on this machine; `--capture-model resnet50` for it).

The variants must be in the cache first (part 1 does not capture):

    tensorweg diff resnet50 --vary batch=1,64 --target tpu:v5e

    .venv/bin/python bench/bench_variant_diff.py [--model resnet50] [--target tpu:v5e] [--repeat 3]
        [--capture-model mnist_cnn] [--capture-target cpu] [--skip-capture]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _timing import run_timed  # noqa: E402 (bench/ is the script's own folder)
from bench_keypress import _FRAMES, _record_frames  # noqa: E402 (bench/ is the script's own folder)

SMALL = ROOT / "tests" / "fixtures" / "bundles" / "variants"
CAPTURE_VARIANTS = {"plain": [], "batch 64": ["--batch", "64"], "bfloat16": ["--dtype", "bfloat16"],
                    "fusion off": ["--xla-flag", "xla_disable_hlo_passes=fusion"]}
GOAL_S = 1.0


# --- 1. the diff screen -------------------------------------------------------------------------------


def _last_frame(start: float) -> float:
    return (_FRAMES[-1] if _FRAMES else time.perf_counter()) - start


async def _timed_key(pilot, key: str) -> float:
    _FRAMES.clear()
    start = time.perf_counter()
    await pilot.press(key)
    await pilot.pause()
    return _last_frame(start)


async def _measure(bundle: Path, target: str, layer: str, order: str) -> dict:
    """In this process: open `bundle`, then `V` and `x` in `order` ("Vx" or "xV"), each from the layers level."""
    from screens.app import create_app
    from screens.compare import CompareScreen
    from screens.variant_diff import WhatIfScreen

    _record_frames()
    app = create_app(bundle, level="layers", target=target, select=layer)
    found: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        table = app.items_table
        while not table.table.lines_rendered or not app.trace.index.entries:
            await pilot.pause()
        await app.workers.wait_for_complete()
        while any(thread.name == "warm-after-open" for thread in threading.enumerate()):
            await asyncio.sleep(0.05)  # the open's own warming is done: the key alone is timed
        await pilot.pause()
        for key in order:
            found[key] = await _timed_key(pilot, key)
            expected = WhatIfScreen if key == "V" else CompareScreen
            assert isinstance(app.screen, expected), f"{key} did not open {expected.__name__}"
            if key == "V":
                shown = str(app.screen.query_one("#whatif-model").content)
                assert "batch" in app.screen.panes.title and shown, "V showed no diff"
                found["n"] = statistics.median([await _timed_key(pilot, "n") for _ in range(5)])
            await pilot.press("escape")
            await pilot.pause()
    return found


def _cache_with(other: Path) -> str:
    """A capture cache holding only `other` (the variant V compares with), so the lead's or anyone's
    other captures in the real cache do not change which variant V shows first."""
    root = Path(tempfile.mkdtemp(prefix="tensorweg-bench-cache-"))
    (root / "bundles").mkdir()
    (root / "bundles" / other.name).symlink_to(other, target_is_directory=True)
    return str(root)


def _screen_child(bundle: Path, other: Path, target: str, layer: str, order: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(bundle), "--target", target, "--layer", layer,
                          "--order", order], check=True, capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "TENSORWEG_CACHE_DIR": _cache_with(other)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cached_variants(model: str, target: str) -> tuple[Path, Path]:
    """The cache's bundles of `model` at batch 1 and 64 with `target` (what `tensorweg diff` left)."""
    from explorer.capture.orchestrator import cached_bundle
    from explorer.capture.vary import variants

    found = []
    for variant in variants("batch=1,64", {"targets": target}):
        path = cached_bundle(model, variant.options)
        if path is None:
            sys.exit(f"{model} {variant.label} on {target} is not cached: run "
                     f"`tensorweg diff {model} --vary batch=1,64 --target {target}` first")
        found.append(path)
    return found[0], found[1]


def screen_bench(model: str, target: str, layer: str, repeat: int) -> None:
    big, big_other = _cached_variants(model, target)
    small, small_other = SMALL / "batch1", SMALL / "batch64"
    runs: dict[str, list[float]] = {"V big": [], "n big": [], "x big": [], "V small": []}
    for i in range(repeat):
        order = "Vx" if i % 2 == 0 else "xV"
        timed = _screen_child(big, big_other, target, layer, order)
        runs["V big"].append(timed["V"])
        runs["n big"].append(timed["n"])
        runs["x big"].append(timed["x"])
        runs["V small"].append(_screen_child(small, small_other, "cpu", "conv2d", "V")["V"])
    median = {name: statistics.median(times) for name, times in runs.items()}
    print(f"diff screen, 120x40, {repeat} fresh processes each; load average {os.getloadavg()[0]:.1f}")
    print(f"  V on {model} batch 1 vs 64, {target}: median {median['V big']:.3f} s "
          f"(runs {', '.join(f'{t:.2f}' for t in runs['V big'])}; goal under {GOAL_S:.0f} s: "
          f"{'met' if median['V big'] < GOAL_S else 'NOT met'})")
    print(f"  n (next layer) in that diff screen: median {median['n big'] * 1000:.0f} ms")
    print(f"  x (compare screen) on the same bundle: median {median['x big']:.3f} s; "
          f"V / x = {median['V big'] / median['x big']:.2f}x")
    print(f"  V on the recorded mnist_cnn variants (cpu): median {median['V small']:.3f} s; "
          f"{model} / mnist_cnn = {median['V big'] / median['V small']:.1f}x")
    printed = {"diff": cli("diff", model, "--vary", "batch=1,64", "--target", target),
               "compare": cli("compare", model, "--targets", target)}
    whole = {name: statistics.median([run_timed(command, dict(os.environ)) for _ in range(repeat)])
             for name, command in printed.items()}
    print(f"  the command line, from the cache, process start to exit: `diff {model} --vary batch=1,64` "
          f"{whole['diff']:.2f} s, `compare {model}` {whole['compare']:.2f} s, "
          f"ratio {whole['diff'] / whole['compare']:.2f}x")


# --- 2. a variant's capture against the plain one -----------------------------------------------------------


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "explorer.cli", *args]


def capture_bench(model: str, target: str, repeat: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="tensorweg-bench-"))
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(work / "cache")}
    captures: dict[str, list[float]] = {name: [] for name in CAPTURE_VARIANTS}
    names = list(CAPTURE_VARIANTS)
    for i in range(repeat):
        for name in names[i % len(names):] + names[:i % len(names)]:  # each variant first in turn
            options = CAPTURE_VARIANTS[name]
            out = work / f"{i}-{name.replace(' ', '-')}"
            captures[name].append(run_timed(cli("capture", model, "--targets", target, "--no-cache",
                                                "-o", str(out), *options), env))
    plain = statistics.median(captures["plain"])
    print(f"capture {model} on {target}, --no-cache, rotating the order, {repeat} runs each; "
          f"load average {os.getloadavg()[0]:.1f}")
    for name in CAPTURE_VARIANTS:
        median = statistics.median(captures[name])
        print(f"  {name:>10}: median {median:.2f} s (runs {', '.join(f'{t:.1f}' for t in captures[name])}), "
              f"{median / plain:.2f}x plain")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--target", default="tpu:v5e")
    parser.add_argument("--layer", default="conv1_conv", help="the layer selected before V")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--capture-model", default="mnist_cnn")
    parser.add_argument("--capture-target", default="cpu")
    parser.add_argument("--skip-capture", action="store_true", help="only the diff screen")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--order", default="Vx", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.child, args.target, args.layer, args.order))))
        return
    screen_bench(args.model, args.target, args.layer, args.repeat)
    if not args.skip_capture:
        capture_bench(args.capture_model, args.capture_target, args.repeat)


if __name__ == "__main__":
    main()
