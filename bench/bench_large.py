"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

A 30,000-instruction module against the recorded small bundle, in one run (issue 13).

For each bundle, in a fresh UI process (headless, 120x40, optimized HLO on cpu):
open from cache to rows on screen; key press to updated screen (median, p95);
a filter keystroke over every row to updated screen, and the filter itself;
fold and unfold a group; a jump to the last instruction; the process's peak
memory. The large bundle is the recorded mnist_cnn bundle with its CPU
optimized HLO replaced by a generated module (tests/large_bundle.py), written
to a temporary directory. Goals: open < 1.5 s, key press median <= 50 ms and
p95 <= 100 ms, filter < 150 ms, peak memory < 400 MB.

    .venv/bin/python bench/bench_large.py [--instructions 30000] [--presses 40] [--bundle PATH]

`--bundle` measures a captured bundle (its cpu target) instead of the generated module, e.g. a
ResNet50 training step: `tensorweg capture resnet50 --mode train --targets cpu -o PATH`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_keypress import _FRAMES, _record_frames  # noqa: E402 (bench/ is the script's own folder)

GOALS = {"open_s": 1.5, "press_median_ms": 50, "press_p95_ms": 100, "filter_ms": 150, "peak_mb": 400}


def _last_frame(start: float) -> float:
    return (_FRAMES[-1] if _FRAMES else time.perf_counter()) - start


async def _measure(bundle: Path, presses: int, last: str) -> dict:
    from screens.app import create_app

    _record_frames()
    start = time.perf_counter()
    app = create_app(bundle, level="optimized-hlo", target="cpu")
    found: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        table = app.items_table
        while not table.table.lines_rendered:  # rows on screen, not just read
            await pilot.pause()
        found["open_s"] = time.perf_counter() - start
        found["open_cpu_s"] = time.process_time()  # the process's CPU so far: less at the mercy of a busy machine
        found["rows"] = len(table.items)
        timings = []
        for i in range(presses):
            _FRAMES.clear()
            t = time.perf_counter()
            await pilot.press("down" if (i // 10) % 2 == 0 else "up")
            await pilot.pause()
            timings.append(_last_frame(t))
        found["press_median_ms"] = statistics.median(timings) * 1000
        found["press_p95_ms"] = statistics.quantiles(timings, n=20)[-1] * 1000
        await pilot.press("slash")
        await pilot.pause()
        _FRAMES.clear()
        t = time.perf_counter()
        await pilot.press("1")  # a filter over every row: most of them match
        await pilot.pause()
        found["filter_key_ms"] = _last_frame(t) * 1000
        await pilot.press("escape")
        await pilot.pause()
        t = time.perf_counter()
        table.apply_filter("fusion")
        found["filter_ms"] = (time.perf_counter() - t) * 1000
        table.apply_filter("")
        await pilot.pause()
        group = next(iter(table.groups), "")
        if group:
            _FRAMES.clear()
            t = time.perf_counter()
            table.toggle_group(group)
            await pilot.pause()
            found["fold_ms"] = _last_frame(t) * 1000
        _FRAMES.clear()
        t = time.perf_counter()
        app.goto_level("optimized-hlo", last)
        await pilot.pause()
        found["jump_ms"] = _last_frame(t) * 1000
        assert table.current is not None and table.current.name == last, "the jump did not land"
    found["peak_mb"] = _peak_mb()
    return found


def _peak_mb() -> float:
    """This process's peak resident memory. Not `ru_maxrss`: Linux carries that over from the
    parent through fork and exec, so every child would report the bench's own peak."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # no /proc: an upper bound


def _child(bundle: Path, presses: int, last: str) -> dict:
    """One bundle measured in a fresh process (peak memory is the process's own)."""
    out = subprocess.run([sys.executable, __file__, "--child", str(bundle), "--presses", str(presses), "--last", last],
                         check=True, capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "TENSORWEG_CACHE_DIR": tempfile.mkdtemp()})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _last_instruction(bundle: Path) -> str:
    """The entry computation's last instruction of the bundle's cpu optimized HLO (the jump's goal)."""
    from explorer.model.bundle import Bundle

    module = Bundle.open(bundle).hlo_module("cpu", optimized=True)
    return module.entry.instructions[-1].name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=30_000)
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--bundle", type=Path, default=None, help="a captured bundle instead of the generated one")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--last", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.child, args.presses, args.last))))
        return
    from large_bundle import RECORDED, last_fusion_name, write_large_bundle

    with tempfile.TemporaryDirectory() as temp:
        if args.bundle is not None:
            large, last = args.bundle, _last_instruction(args.bundle)
        else:
            large = write_large_bundle(Path(temp) / "large", args.instructions)
            last = last_fusion_name(args.instructions)
        small = _child(RECORDED, args.presses, "dot_add_fusion")
        big = _child(large, args.presses, last)
    print(f"optimized HLO on cpu, 120x40: {big['rows']:,} rows against {small['rows']} (recorded mnist_cnn)")
    for key, title in (("open_s", "open from cache to rows on screen (s)"),
                       ("open_cpu_s", "  CPU time of the process until then (s)"),
                       ("press_median_ms", "key press, median (ms)"),
                       ("press_p95_ms", "key press, p95 (ms)"), ("filter_key_ms", "filter keystroke to screen (ms)"),
                       ("filter_ms", "filter over every row (ms)"), ("fold_ms", "fold a group to screen (ms)"),
                       ("jump_ms", "jump to the last instruction (ms)"), ("peak_mb", "UI process peak memory (MB)")):
        goal = f"  goal {GOALS[key]}" if key in GOALS else ""
        ok = "" if key not in GOALS else ("  ok" if big[key] <= GOALS[key] else "  OVER")
        ratio = big[key] / small[key]
        print(f"{title:<42} large {big[key]:9.1f}   small {small[key]:8.1f}   ratio {ratio:6.2f}{goal}{ok}")


if __name__ == "__main__":
    main()
