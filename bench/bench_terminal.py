"""What a learner waits for in a real terminal, each figure against a hello-world Textual app
(`bench/hello_world_app.py`) timed the same way in the same rounds, interleaved (machines are shared
and noisy: compare the ratios). tmux runs each program in a pane of a fixed size; the bench reads
the pane's text until what it waits for shows (`bench/terminal.py`). Needs tmux.

- `open`: process start to the rows on screen: cached `mnist_cnn` and cached ResNet50 (80x24), and to
  the whole first screen settled (rows, side panes and colours; the hello app's own settled screen);
  `open-defaults`: ResNet50 cached for cpu only, opened with the default targets (the missing ones
  are captured behind the rows: needs the compilers; off unless asked for with `--only`).
- `key`: `Down` in ResNet50's optimized-HLO list (160x50) to the first change on screen (the list
  answered) and to the last (the side panes and code view caught up): median and p95.
- `visit`: the first visit of a level (`4`, optimized HLO, on a generated 30,000-instruction
  module: tests/large_bundle.py; 160x50), pressed READ_S after the first screen settled (a learner
  reads it first), to its first change and to its settled screen.
- `quit`: `q` to the shell's prompt: on cached mnist_cnn, settled; on ResNet50 as soon as its rows show.

Which code runs: this checkout's, as `PYTHONPATH=TREE python -m screens.cli` (`--tree DIR` for
another checkout, e.g. `git worktree add DIR REV`), or `--installed` for the `tensorweg` console
script beside this Python. Both models must be cached for cpu first (an open that captures is closed
before its capture is stored, so every run would capture again and time TensorFlow, not the app):
`tensorweg inspect mnist_cnn --target cpu --level layers > /dev/null`, the same for `resnet50`.

    .venv/bin/python bench/bench_terminal.py [--runs 5] [--presses 40] [--only open,key,visit,quit]
"""

from __future__ import annotations

import argparse
import math
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from large_bundle import write_large_bundle  # noqa: E402
from terminal import PROMPT, Pane  # noqa: E402 (bench/ is on sys.path when run as a script)

HELLO = ROOT / "bench" / "hello_world_app.py"
SMALL, LARGE = (80, 24), (160, 50)
LARGE_MODULE = 30_000
# Before a first visit the learner reads the first screen a while: what the app warms meanwhile counts.
READ_S = 3.0


def hello_command() -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HELLO))}"


def parsed_with_code(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """`parser`'s arguments plus which code runs (`--tree`, `--installed`); exits without tmux."""
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--installed", action="store_true", help="run the installed `tensorweg` script")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("error: tmux is not installed (apt-get install tmux)")
    args.tree = args.tree.resolve()
    return args


def tensorweg_command(args: argparse.Namespace, *arguments: str) -> str:
    quoted = " ".join(shlex.quote(argument) for argument in arguments)
    if args.installed:
        return f"{shlex.quote(str(Path(sys.executable).with_name('tensorweg')))} {quoted}"
    tree = shlex.quote(str(args.tree))
    return f"cd {tree} && PYTHONPATH={tree} {shlex.quote(sys.executable)} -m screens.cli {quoted}"


def opened(command: str, size: tuple[int, int], marker: str) -> tuple[Pane, float]:
    """A pane running `command`, and the seconds from its start to `marker` on screen."""
    pane = Pane(command, size)
    started = pane.start()
    seconds, _ = pane.wait_for(lambda screen: marker in screen, started)
    return pane, seconds


def time_open(command: str, size: tuple[int, int], marker: str) -> float:
    pane, seconds = opened(command, size, marker)
    pane.close()
    return seconds


def time_first_screen(command: str, size: tuple[int, int], marker: str) -> float:
    """Process start to the whole first screen settled: the rows, the side panes, the colours (the
    last change before the screen stayed the same for QUIET_S)."""
    pane, _ = opened(command, size, marker)
    pane.styled = True  # a pane filling in or a highlight landing is a change a learner sees
    try:
        return pane.settle(pane.started)[0]
    finally:
        pane.close()


def time_keys(command: str, marker: str, before: str | None, presses: int) -> tuple[list[float], list[float]]:
    """`Down` pressed `presses` times, each once the screen settled: seconds to the first change, to the last."""
    pane, _ = opened(command, LARGE, marker)
    pane.styled = True  # the cursor's highlight moving is the answer a learner sees
    try:
        if before is not None:  # to the level measured first
            pane.settle(pane.send(before))
        pane.settle(0.0)
        answered, settled = [], []
        for _ in range(presses):
            screen = pane.screen()
            pressed = pane.send("Down")
            answered.append(pane.wait_for(lambda now, was=screen: now != was, pressed)[0])
            settled.append(pane.settle(pressed)[0])
        return answered, settled
    finally:
        pane.close()


def time_visit(command: str, marker: str, key: str) -> tuple[float, float]:
    """`key` pressed on the settled first screen: seconds to the first change and to the settled screen."""
    pane, _ = opened(command, LARGE, marker)
    pane.styled = True  # every change a learner sees counts, colours included
    try:
        pane.settle(0.0)
        time.sleep(READ_S)
        screen = pane.screen()
        pressed = pane.send(key)
        answered = pane.wait_for(lambda now: now != screen, pressed)[0]
        return answered, pane.settle(pressed)[0]
    finally:
        pane.close()


def time_quit(command: str, marker: str, settled: bool = True) -> float:
    """`q` pressed on the settled screen (`settled`), else as soon as the rows show."""
    pane, _ = opened(command, SMALL, marker)
    try:
        if settled:
            pane.settle(0.0)
        return pane.wait_for(lambda screen: PROMPT in screen, pane.send("q"))[0]
    finally:
        pane.close()


def median(values: list[float]) -> float:
    kept = [value for value in values if not math.isnan(value)]
    return statistics.median(kept) if kept else math.nan


def p95(values: list[float]) -> float:
    kept = sorted(value for value in values if not math.isnan(value))
    return kept[min(len(kept) - 1, math.ceil(0.95 * len(kept)) - 1)] if kept else math.nan


def report(what: str, ours: list[float], hello: list[float], unit: str = "s", with_p95: bool = False) -> None:
    scale, form = (1000.0, "{:.1f} ms") if unit == "ms" else (1.0, "{:.3f} s")

    def shown(values: list[float]) -> str:
        text = "median " + form.format(median(values) * scale)
        if with_p95:
            text += ", p95 " + form.format(p95(values) * scale)
        return text + f" ({len(values)})"

    ratio = median(ours) / median(hello) if median(hello) else math.nan
    print(f"{what:<44} tensorweg {shown(ours):<34} hello-world {shown(hello):<34} ratio {ratio:.2f}x", flush=True)


def rounds(runs: int, measure: Callable[[], tuple]) -> list[tuple]:
    return [measure() for _ in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--presses", type=int, default=40, help="Down presses per run of `key`")
    parser.add_argument("--only", default="open,key,visit,quit")
    args = parsed_with_code(parser)
    only = set(args.only.split(","))
    hello = hello_command()
    mnist = tensorweg_command(args, "open", "mnist_cnn", "--targets", "cpu")
    resnet = tensorweg_command(args, "open", "resnet50", "--targets", "cpu")
    for command, marker in ((hello, "hello-row-0"), (mnist, "conv2d"), (resnet, "conv1_conv")):
        time_open(command, SMALL, marker)  # bytecode written, caches warm: not timed
    print(f"code: {'installed tensorweg' if args.installed else args.tree}; {args.runs} runs, interleaved")
    if "open" in only:
        for measure, what in ((time_open, "rows of"), (time_first_screen, "whole first screen,")):
            times = rounds(args.runs, lambda measure=measure: (measure(hello, SMALL, "hello-row-0"),
                                                               measure(mnist, SMALL, "conv2d"),
                                                               measure(resnet, SMALL, "conv1_conv")))
            ours_hello = [t[0] for t in times]
            report(f"open: {what} cached mnist_cnn, 80x24", [t[1] for t in times], ours_hello)
            report(f"open: {what} cached ResNet50, 80x24", [t[2] for t in times], ours_hello)
    if "open-defaults" in only:
        defaults = tensorweg_command(args, "open", "resnet50")
        times = rounds(args.runs, lambda: (time_open(hello, SMALL, "hello-row-0"),
                                           time_open(defaults, SMALL, "conv1_conv")))
        report("open: ResNet50 cached for cpu, default targets", [t[1] for t in times], [t[0] for t in times])
    if "key" in only:
        times = rounds(args.runs, lambda: (time_keys(hello, "hello-row-0", None, args.presses),
                                           time_keys(resnet, "conv1_conv", "4", args.presses)))
        hello_answered = [s for t in times for s in t[0][0]]
        report("key: Down, optimized HLO 160x50, answered", [s for t in times for s in t[1][0]], hello_answered,
               "ms", with_p95=True)
        report("key: Down, optimized HLO 160x50, settled", [s for t in times for s in t[1][1]],
               [s for t in times for s in t[0][1]], "ms", with_p95=True)
    if "visit" in only:
        with tempfile.TemporaryDirectory() as folder:
            large = write_large_bundle(Path(folder) / "large", LARGE_MODULE)
            command = tensorweg_command(args, "open", str(large))
            times = rounds(args.runs, lambda: (time_visit(hello, "hello-row-0", "4"),
                                               time_visit(command, "conv2d", "4")))
        report(f"visit: first `4`, {LARGE_MODULE:,} instructions, answered", [t[1][0] for t in times],
               [t[0][0] for t in times], "ms")
        report(f"visit: first `4`, {LARGE_MODULE:,} instructions, settled", [t[1][1] for t in times],
               [t[0][1] for t in times], "ms")
    if "quit" in only:
        times = rounds(args.runs, lambda: (time_quit(hello, "hello-row-0"), time_quit(mnist, "conv2d"),
                                           time_quit(resnet, "conv1_conv", settled=False)))
        report("quit: q to the shell prompt (mnist_cnn, settled)", [t[1] for t in times], [t[0] for t in times])
        report("quit: q as ResNet50's rows show", [t[2] for t in times], [t[0] for t in times])


if __name__ == "__main__":
    main()
