"""Profiling bench (in-process, headless Pilot: no terminal; what a learner waits for is
bench/bench_terminal.py's to measure; this one finds where the time goes).

The mesh view (`D`) on a large sharded module against the recorded small one, in one run (issue 11).

For each bundle, in a fresh UI process (headless, 120x40, the layers level on the mesh target):
open from cache to rows on screen; once the open's workers are done, `D` to the mesh view's first
frame (the selected layer's device grids drawn); `n` (next layer) in the mesh view to its frame,
median and p95; Esc and `D` again (the screen's imports and stylesheet loaded, the layer's model
cached); the mesh model alone: reading the sharded module (once per bundle and target) and one
layer's MeshLayer from it. The small bundle is the recorded mlp step on v5e 2x2
(tests/fixtures/bundles/mlp_mesh_2x2). Goals, as for any module (issue 11): open < 1.5 s, a key
press (D and n included) <= 50 ms.

    .venv/bin/python bench/bench_mesh.py --bundle PATH [--target tpu:v5e] [--layer NAME] [--presses 20]

PATH is a sharded capture, e.g. `tensorweg capture resnet_block --targets tpu:v5e --mode train
--mesh 2x2 --shard model --batch 8 -o "$PWD/.bench/resnet_block_2x2"` (an absolute -o: with a
relative one the TPU levels failed here, "this model's Keras config could not be written").
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

from bench_keypress import _FRAMES, _record_frames  # noqa: E402 (bench/ is the script's own folder)

SMALL = ROOT / "tests" / "fixtures" / "bundles" / "mlp_mesh_2x2"
GOALS = {"open_s": 1.5, "first_draw_ms": 50, "next_median_ms": 50}


def _last_frame(start: float) -> float:
    return (_FRAMES[-1] if _FRAMES else time.perf_counter()) - start


async def _measure(bundle: Path, target: str, layer: str, presses: int) -> dict:
    from screens.app import create_app
    from screens.mesh import MeshScreen

    _record_frames()
    start = time.perf_counter()
    app = create_app(bundle, level="layers", target=target, select=layer)
    found: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        table = app.items_table
        while not table.table.lines_rendered:
            await pilot.pause()
        found["open_s"] = time.perf_counter() - start
        while not app.trace.index.entries:  # the index the layer lookup uses, built after the first rows
            await pilot.pause()
        await app.workers.wait_for_complete()
        while any(thread.name == "warm-after-open" for thread in threading.enumerate()):
            await asyncio.sleep(0.05)  # the open's own warming (a daemon thread) is done: D alone is timed
        await pilot.pause()
        _FRAMES.clear()
        t = time.perf_counter()
        await pilot.press("D")
        await pilot.pause()
        found["first_draw_ms"] = _last_frame(t) * 1000
        assert isinstance(app.screen, MeshScreen) and app.screen.layer_name, "D did not open the mesh view"
        found["layer"] = app.screen.layer_name
        timings = []
        for _ in range(presses):
            _FRAMES.clear()
            t = time.perf_counter()
            await pilot.press("n")
            await pilot.pause()
            timings.append(_last_frame(t))
        found["next_median_ms"] = statistics.median(timings) * 1000
        found["next_p95_ms"] = statistics.quantiles(timings, n=20)[-1] * 1000
        await pilot.press("escape")
        await pilot.pause()
        _FRAMES.clear()
        t = time.perf_counter()
        await pilot.press("D")  # again: the screen's imports and stylesheet are there, the layer's model cached
        await pilot.pause()
        found["again_ms"] = _last_frame(t) * 1000
    found.update(_model_alone(bundle, target, found["layer"]))
    return found


def _model_alone(bundle: Path, target: str, layer: str) -> dict:
    """The mesh model without the UI: reading the sharded module (once per bundle and target), then
    one layer's MeshLayer from it (what `n` computes for a layer not seen before)."""
    from explorer.model.bundle import Bundle
    from explorer.model.sharding import SHARDED_HLO
    from explorer.views.mesh import layer as mesh_layer
    from explorer.views.mesh import sharded_values

    opened = Bundle.open(bundle)
    text = (opened.target_dir(target) / SHARDED_HLO).read_text(encoding="utf-8")
    found = {"sharded_lines": text.count("\n")}
    for key, work in (("read_module_ms", lambda: sharded_values(text)),
                      ("layer_mesh_ms", lambda: mesh_layer.layer_mesh.__wrapped__(opened, target, layer))):
        times = []
        for _ in range(5):
            t = time.perf_counter()
            work()
            times.append(time.perf_counter() - t)
        found[key] = statistics.median(times) * 1000
    return found


def _child(bundle: Path, target: str, layer: str, presses: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(bundle), "--target", target, "--layer", layer,
                          "--presses", str(presses)], check=True, capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "TENSORWEG_CACHE_DIR": tempfile.mkdtemp()})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _largest_layer(bundle: Path, target: str) -> str:
    """The layer owning the most weights of the step (sub-layers' included): the most grids to draw."""
    from explorer.model.bundle import Bundle
    from explorer.model.training import WEIGHTS
    from explorer.views.mesh import own_variable
    from explorer.views.panes import step_layout

    opened = Bundle.open(bundle)
    layout = step_layout(opened, target)
    names = [name for group in (layout.arguments if layout else ()) if group.role == WEIGHTS for name in group.names]
    owned = {layer.name: sum(1 for name in names if own_variable(name, layer.path)) for layer in opened.layers}
    return max(owned, key=owned.get)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, help="a sharded capture (--mesh); required")
    parser.add_argument("--target", default="tpu:v5e")
    parser.add_argument("--layer", default="", help="the layer selected before D (default: the one with most weights)")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.child, args.target, args.layer, args.presses))))
        return
    if args.bundle is None:
        parser.error("--bundle PATH is required (a capture with --mesh)")
    layer = args.layer or _largest_layer(args.bundle, args.target)
    small = _child(SMALL, "tpu:v5e", "dense", args.presses)
    big = _child(args.bundle, args.target, layer, args.presses)
    print(f"mesh view, 120x40: {args.bundle.name} layer {big['layer']} ({big['sharded_lines']:,} lines of sharded "
          f"HLO) against mlp_mesh_2x2 layer dense ({small['sharded_lines']:,} lines)")
    for key, title in (("open_s", "open from cache to rows on screen (s)"),
                       ("first_draw_ms", "D to the mesh view's first frame (ms)"),
                       ("again_ms", "Esc, then D again, to its frame (ms)"),
                       ("next_median_ms", "n (next layer) in the view, median (ms)"),
                       ("next_p95_ms", "n (next layer) in the view, p95 (ms)"),
                       ("read_module_ms", "read the sharded module, no UI (ms)"),
                       ("layer_mesh_ms", "one layer's mesh model from it, no UI (ms)")):
        goal = f"  goal {GOALS[key]}" if key in GOALS else ""
        ok = "" if key not in GOALS else ("  ok" if big[key] <= GOALS[key] else "  OVER")
        print(f"{title:<42} large {big[key]:9.1f}   small {small[key]:8.1f}   ratio {big[key] / small[key]:6.2f}"
              f"{goal}{ok}")


if __name__ == "__main__":
    main()
