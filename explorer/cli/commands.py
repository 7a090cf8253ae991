"""What each headless `tensorweg` subcommand does (the parser lives in `explorer.cli`).

The commands that open the UI (`open`, `tour`, `screenshot`) live in
`screens.cli`; the checks they make before the UI starts are here, in the core.
What `tensorweg MODEL` runs before the UI (capture_options, default_language) loads only the
option checks: tours, bundles and capture events load with the commands that use them.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.capture.option_table import GIVEN, Kind
from explorer.capture.options import build_capture_options
from explorer.errors import TensorwegError
from explorer.targets import parse_target
from explorer.texts.language import default_language as language_from_environment

if TYPE_CHECKING:
    from explorer.capture.events import CaptureEvent
    from explorer.course.tours import Tour
    from explorer.model.bundle import Bundle
    from explorer.model.records import CaptureOptions


def capture_keywords(args: argparse.Namespace, targets: str | None = None) -> dict:
    """The command line's capture options as build_capture_options' keywords (unchecked), one per row
    of explorer.capture.option_table with a flag; `targets` replaces `--targets` (inspect and passes
    name one `--target`), and a command without `--targets` captures cpu."""
    keywords = {row.field: getattr(args, row.dest, row.default) for row in GIVEN}
    keywords["targets"] = targets if targets is not None else getattr(args, "targets", "cpu")
    return keywords


def capture_files(args: argparse.Namespace) -> dict[str, Path]:
    """The files the command line's capture options name (`--layout-map`), by field, as absolute paths:
    what a `serve` tab is given (capture_flags' `files`), so it reads the very file serve read."""
    return {row.field: Path(getattr(args, row.dest)).resolve() for row in GIVEN
            if row.kind is Kind.FILE and getattr(args, row.dest, None) is not None}


def capture_options(args: argparse.Namespace, targets: str | None = None) -> CaptureOptions:
    """The command line's capture options, checked (explorer.capture.options.build_capture_options)."""
    return build_capture_options(**capture_keywords(args, targets))


def target_argument(text: str | None) -> str | None:
    """`--target` as given (`tpu` means its default chip, `tpu:v5e`), None when not given."""
    return parse_target(text) if text is not None else None


def shown_target(bundle: Bundle, asked: str | None) -> str:
    """The target a command shows: the one asked for, else `cpu`, else the bundle's first (a
    bundle captured for `tpu:v5e` alone opens on it, as the explorer does)."""
    if asked is not None:
        return asked
    targets = bundle.targets
    return "cpu" if "cpu" in targets or not targets else targets[0]


def with_capture_options(args: argparse.Namespace, tour: Tour) -> argparse.Namespace:
    """`tensorweg tour NAME MODEL`: the options the tour's `# capture:` names replace the command
    line's, unless the command line asks for a training step or a mesh of its own."""
    if not tour.capture or args.mode != "inference" or args.mesh:
        return args
    from explorer.course.tours import capture_header  # noqa: PLC0415 (start-up: the tours load only with a tour)

    # The header's words are the parser's destinations with the parser's types (`--batch 8` -> 8).
    return argparse.Namespace(**{**vars(args), **capture_header(tour)})


def _where(level: str, target: str) -> str:
    return level + (f" [{target}]" if target else "")


def progress_printer(stream=None):
    """Progress lines on stderr: one per level and target as it starts, ends or fails.

    `sys.stderr` is looked up when a line is printed, not when this module loads: the CLI's
    `main` swaps it for a stream that shows control characters from a worker's error."""
    from explorer.capture.events import (  # noqa: PLC0415 (start-up: the events load only with a capture)
        CacheHit,
        CaptureFinished,
        LevelCaptured,
        LevelFailed,
        LevelStarted,
    )

    def show(event: CaptureEvent) -> None:
        out = stream or sys.stderr
        match event:
            case LevelStarted(level=level, target=target):
                print(f"capturing {_where(level, target)} ...", file=out, flush=True)
            case LevelCaptured(level=level, target=target, seconds=seconds):
                print(f"captured  {_where(level, target)} ({seconds:.1f} s)", file=out, flush=True)
            case LevelFailed(level=level, target=target, error=error):
                print(f"failed    {_where(level, target)}: {error}", file=out, flush=True)
            case CacheHit():
                print("cached: opening the earlier capture", file=out, flush=True)
            case CaptureFinished(failed_targets=failed) if failed:
                print(f"warning: every level of {' and '.join(failed)} failed (see above); "
                      "the bundle holds the other targets", file=out, flush=True)

    return show


def open_or_capture(model: str, options: CaptureOptions, quiet: bool = False) -> Bundle:
    """A bundle directory or a lesson pack opens as it is; anything else is captured (or taken from the cache)."""
    from explorer.course.pack import bundle_argument  # noqa: PLC0415 (start-up: loads only for the commands that open a bundle)
    from explorer.model.bundle import Bundle  # noqa: PLC0415 (start-up: loads only for the commands that open a bundle)

    bundle_path = bundle_argument(model)
    if bundle_path is not None:
        return Bundle.open(bundle_path)
    from explorer.capture.orchestrator import capture  # noqa: PLC0415 (loads only for the command that uses it)

    if options.unsafe:
        print("warning: --unsafe lets the model file run its own code (Lambda layers)", file=sys.stderr)
    bundle_path = capture(model, options, on_event=None if quiet else progress_printer())
    return Bundle.open(bundle_path)


def cmd_samples(args: argparse.Namespace) -> int:
    from sample_models import SAMPLES  # noqa: PLC0415 (loads only for the command that uses it)

    for name, sample in SAMPLES.items():
        print(f"{name}\t{sample.description}")
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    from explorer.capture.orchestrator import capture  # noqa: PLC0415 (loads only for the command that uses it)

    options = capture_options(args)
    if options.unsafe:
        print("warning: --unsafe lets the model file run its own code (Lambda layers)", file=sys.stderr)
    path = capture(args.model, options, out_dir=args.output, on_event=progress_printer(),
                   use_cache=not args.no_cache)
    print(args.output or path)  # the folder as the user named it (capture() makes it absolute)
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from explorer.views import inspect as inspect_view  # noqa: PLC0415 (loads only for the command that uses it)

    asked = target_argument(args.target)
    bundle = open_or_capture(args.model, capture_options(args, targets=asked or "cpu"))
    render = inspect_view.as_json if args.json else inspect_view.as_text
    print(render(bundle, args.level, shown_target(bundle, asked), args.select))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from explorer.views.compare import text as comparison_view  # noqa: PLC0415 (loads only for the command that uses it)

    bundle = open_or_capture(args.model, capture_options(args))
    render = comparison_view.as_json if args.json else comparison_view.as_text
    print(render(bundle, args.layer))
    return 0


def cmd_passes(args: argparse.Namespace) -> int:
    from explorer.views import passes as pass_view  # noqa: PLC0415 (loads only for the command that uses it)

    asked = target_argument(args.target)
    options = replace(capture_options(args, targets=asked or "cpu"), passes=True)
    bundle = open_or_capture(args.model, options)
    render = pass_view.as_json if args.json else pass_view.as_text
    film = pass_view.GRAPPLER if args.grappler else shown_target(bundle, asked)
    print(render(bundle, film, args.frame, args.follow, args.lang or default_language()))
    return 0


# A screenshot's terminal: large enough to show a level, small enough to render in seconds
# (an unbounded size grows the SVG and the render without limit).
MIN_SIZE = (40, 12)
MAX_SIZE = (500, 200)


def screenshot_size(text: str) -> tuple[int, int]:
    """`--size COLUMNSxROWS`, bounded by MIN_SIZE and MAX_SIZE."""
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    size = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    if not all(low <= value <= high for low, value, high in zip(MIN_SIZE, size, MAX_SIZE, strict=True)):
        raise TensorwegError(f"bad --size '{text}': expected COLUMNSxROWS from {MIN_SIZE[0]}x{MIN_SIZE[1]} "
                             f"to {MAX_SIZE[0]}x{MAX_SIZE[1]}, e.g. 120x40")
    return size


def check_output_file(out: Path, suffix: str) -> None:
    """Fail before any work when `out` cannot become a new `suffix` file (checked again on writing)."""
    if out.suffix.lower() != suffix:
        raise TensorwegError(f"{out}: --out must name a {suffix} file")
    if out.is_dir():
        raise TensorwegError(f"{out}: --out is a folder; name a {suffix} file inside it")
    parent = out.parent
    if parent.exists() and not parent.is_dir():
        raise TensorwegError(f"{out}: {parent} is not a folder")
    if not parent.is_dir():
        raise TensorwegError(f"{out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise TensorwegError(f"{out}: the folder {parent} is not writable")


def load_tour_argument(text: str) -> Tour:
    """A tour file, else a built-in tour's name; a malformed file raises ParseError (FILE:LINE:COL)."""
    from explorer.course.tours import builtin_tour, parse_tour  # noqa: PLC0415 (start-up: the tours load only with a tour)
    from explorer.course.tours.parser import read_tour_file  # noqa: PLC0415 (start-up: the tours load only with a tour)

    path = Path(text)
    if path.is_file():  # errors name the file as the user typed it
        return parse_tour(read_tour_file(path, text), text)
    if path.suffix == ".tour" or path.parent != Path("."):
        raise TensorwegError(f"{text}: no such tour file")
    return builtin_tour(text)


def default_language() -> str:
    """The language of the user's locale (LC_ALL, LC_MESSAGES, LANG): de or en."""
    return language_from_environment(os.environ)


HANDLERS = {
    "samples": cmd_samples,
    "capture": cmd_capture,
    "inspect": cmd_inspect,
    "compare": cmd_compare,
    "passes": cmd_passes,
}


def dispatch(args: argparse.Namespace, handlers: dict | None = None) -> int:
    """Run the handler of `args.command` (course subcommands carry theirs in `args.handler`)."""
    handler = (handlers or HANDLERS).get(args.command) or getattr(args, "handler", None)
    if handler is None:
        raise TensorwegError(f"unknown command '{args.command}'")
    return handler(args)
