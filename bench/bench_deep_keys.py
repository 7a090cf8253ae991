"""A key while a deep model's level loads, as issue 36 measured it: the app in tmux at 80x24 on a
generated 5,000-layer bundle shaped as XLA:CPU compiled a real one (tests/deep_bundle.py, `one_part`:
one kernel holding every fusion's code), `5` pressed on its first screen, then a key
whose effect shows (`?`, the help) pressed while the kernels level loads, and timed until the help is
on screen. Against the same presses on the small recorded bundle in the same rounds, interleaved.

Per round, on each bundle, in a fresh process with an empty cache:
- `5` to the kernels level's first change on screen, and to its rows complete (the first kernel's
  row on screen and no "Listing" notice);
- in another visit, `?` pressed `--after` seconds after `5` (default 0: as soon as the screen answered `5`, i.e. while
  the level loads; `--after 5` is the issue's own "5 s into the first visit"), to the help on screen;
  the figure says whether the rows were complete when it was pressed.

Which code runs: as bench/bench_terminal.py (`--tree DIR`, or `--installed` for the `tensorweg`
console script beside this Python). Needs tmux.

    .venv/bin/python bench/bench_deep_keys.py [--runs 5] [--layers 5000] [--after 0] [--key ?|1] [--installed]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_terminal import SMALL, median, parsed_with_code, tensorweg_command  # noqa: E402 (bench/ is on sys.path as a script)
from deep_bundle import write_deep_bundle  # noqa: E402
from large_bundle import RECORDED  # noqa: E402
from terminal import Pane  # noqa: E402

HELP = "Help (Esc"
TITLE = "5 Kernels"
# What each key pressed during the load shows once it took effect: `?` pushes the help screen (Textual
# builds a screen: a quarter second on any bundle), `1` goes back to the layers (a view already built).
SHOWS = {"?": HELP, "1": "| 1 "}  # `1`: the title line names level 1 ("mnist_cnn | 1 Keras layers | cpu")


def took_effect(key: str):
    if key == "?":
        return lambda screen: HELP in screen
    return lambda screen: SHOWS[key] in screen.splitlines()[0]  # the title line names the level on show
LISTING = "Listing"


def rows_complete(first_kernel: str):
    return lambda screen: first_kernel in screen and LISTING not in screen and HELP not in screen


def one_visit(command: str, first_row: str, first_kernel: str, after: float | None, key: str = "?") -> dict:
    """The app opened to its rows; `5`; then, unless `after` is None, `key` `after` s later: seconds
    from `5` to the level on screen and to its rows complete (without `key`), or from `key` to its effect."""
    pane = Pane(command, SMALL)
    try:
        started = pane.start()
        pane.wait_for(lambda screen: first_row in screen, started)
        before = pane.screen()
        pressed = pane.send("5")
        answered, _ = pane.wait_for(lambda screen: screen != before and TITLE in screen, pressed)
        if after is None:
            return {"answered": answered, "complete": pane.wait_for(rows_complete(first_kernel), pressed)[0]}
        time.sleep(max(0.0, after - (time.perf_counter() - pressed)))
        loading = not rows_complete(first_kernel)(pane.screen())
        asked = pane.send(key)
        return {"help": pane.wait_for(took_effect(key), asked)[0], "loading": loading}
    finally:
        pane.close()


def show(what: str, deep: list[float], small: list[float]) -> None:
    ratio = median(deep) / median(small) if median(small) else math.nan
    print(f"{what:<46} deep median {median(deep) * 1000:9.1f} ms ({len(deep)})   "
          f"small median {median(small) * 1000:7.1f} ms   ratio {ratio:7.2f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layers", type=int, default=5_000)
    parser.add_argument("--after", type=float, default=0.0, help="seconds from `5` to the key")
    parser.add_argument("--key", choices=sorted(SHOWS), default="?", help="the key pressed while the level loads")
    args = parsed_with_code(parser)
    with tempfile.TemporaryDirectory() as folder:
        deep = write_deep_bundle(Path(folder) / "deep", args.layers, one_part=True)
        cases = {"deep": (deep, "dense_0", "part_00"), "small": (RECORDED, "conv2d", "convolution")}

        def visit(name: str, after: float | None) -> dict:
            bundle, first_row, first_kernel = cases[name]
            cache = tempfile.mkdtemp(dir=folder)  # every visit is a first one: nothing kept from the last
            command = f"TENSORWEG_CACHE_DIR={cache} " + tensorweg_command(args, "open", str(bundle))
            return one_visit(command, first_row, first_kernel, after, args.key)

        visit("deep", None), visit("small", None)  # bytecode written: not timed
        print(f"code: {'installed tensorweg' if args.installed else args.tree}; {args.layers:,} layers; "
              f"`{args.key}` {args.after:g} s after `5`; {args.runs} runs, interleaved", flush=True)
        rounds = [(visit("deep", None), visit("small", None), visit("deep", args.after), visit("small", args.after))
                  for _ in range(args.runs)]
    deep, small, deep_key, small_key = ([r[i] for r in rounds] for i in range(4))
    show("`5` to the kernels level on screen", [r["answered"] for r in deep], [r["answered"] for r in small])
    show("`5` to the kernels' rows complete", [r["complete"] for r in deep], [r["complete"] for r in small])
    show(f"`{args.key}` {args.after:g} s after `5`, to its effect on screen", [r["help"] for r in deep_key],
         [r["help"] for r in small_key])
    loading = sum(r["loading"] for r in deep_key)
    print(f"  the deep level was still listing its rows at `{args.key}` in {loading} of {len(deep_key)} runs")


if __name__ == "__main__":
    main()
