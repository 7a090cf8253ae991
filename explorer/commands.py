"""What each `tensorweg` subcommand does (the parser lives in `explorer.cli`)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from explorer.bundle import Bundle, is_bundle
from explorer.errors import TensorwegError
from explorer.records import CaptureOptions

_SHAPE = re.compile(r"^([^=]+)=(\d+(?:[x,]\d+)*)$")


def parse_input_shapes(values: list[str]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """`NAME=1x128` or `NAME=128` (repeatable) -> ((name, dims), ...).

    The dims may include the batch dim or not; the capture worker, which knows
    the input's rank, decides which (explorer.capture.tf_loading.input_signature).
    """
    from explorer.records import MAX_INPUT_ELEMENTS  # noqa: PLC0415

    shapes = []
    for value in values:
        match = _SHAPE.match(value.strip())
        if not match:
            raise TensorwegError(f"bad --input-shape '{value}': expected NAME=DIMxDIM..., e.g. image=1x224x224x3")
        dims = tuple(int(d) for d in re.split(r"[x,]", match.group(2)))
        if any(d <= 0 for d in dims):
            raise TensorwegError(f"bad --input-shape '{value}': dimensions must be positive")
        elements = 1
        for dim in dims:
            elements *= dim
        if elements > MAX_INPUT_ELEMENTS:
            raise TensorwegError(f"bad --input-shape '{value}': {elements:,} elements; "
                                 f"at most {MAX_INPUT_ELEMENTS:,} are captured")
        shapes.append((match.group(1).strip(), dims))
    return tuple(shapes)


def capture_options(args: argparse.Namespace, targets: str | None = None) -> CaptureOptions:
    if args.batch < 1:
        raise TensorwegError(f"bad --batch {args.batch}: must be at least 1")
    target_text = targets if targets is not None else getattr(args, "targets", "cpu")
    return CaptureOptions(
        targets=tuple(t.strip() for t in target_text.split(",") if t.strip()),
        batch=args.batch,
        input_shapes=parse_input_shapes(args.input_shape),
        unsafe=args.unsafe,
        passes=getattr(args, "passes", False),
    )


def progress_printer(stream=sys.stderr):
    """Progress lines on stderr: one per level and target as it starts, ends or fails."""
    from explorer.capture.orchestrator import CaptureEvent

    def show(event: CaptureEvent) -> None:
        where = f"{event.level}" + (f" [{event.target}]" if event.target else "")
        if event.kind == "level_started":
            print(f"capturing {where} ...", file=stream, flush=True)
        elif event.kind == "level_done":
            print(f"captured  {where} ({event.seconds:.1f} s)", file=stream, flush=True)
        elif event.kind == "level_failed":
            print(f"failed    {where}: {event.error}", file=stream, flush=True)
        elif event.kind == "cache_hit":
            print("cached: opening the earlier capture", file=stream, flush=True)

    return show


def open_or_capture(model: str, options: CaptureOptions, quiet: bool = False) -> Bundle:
    """A bundle directory opens as it is; anything else is captured (or taken from the cache)."""
    path = Path(model)
    if path.is_dir() and is_bundle(path):
        return Bundle.open(path)
    from explorer.capture.orchestrator import capture

    if options.unsafe:
        print("warning: --unsafe lets the model file run its own code (Lambda layers)", file=sys.stderr)
    bundle_path = capture(model, options, on_event=None if quiet else progress_printer())
    return Bundle.open(bundle_path)


def cmd_samples(args: argparse.Namespace) -> int:
    from sample_models import SAMPLES

    for name, sample in SAMPLES.items():
        print(f"{name}\t{sample.description}")
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    from explorer.capture.orchestrator import capture

    options = capture_options(args)
    if options.unsafe:
        print("warning: --unsafe lets the model file run its own code (Lambda layers)", file=sys.stderr)
    path = capture(args.model, options, out_dir=args.output, on_event=progress_printer(),
                   use_cache=not args.no_cache)
    print(path)
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from explorer import inspect_view

    bundle = open_or_capture(args.model, capture_options(args, targets=args.target))
    if args.json:
        print(inspect_view.as_json(bundle, args.level, args.target))
    else:
        print(inspect_view.as_text(bundle, args.level, args.target))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from explorer import comparison_view

    bundle = open_or_capture(args.model, capture_options(args))
    render = comparison_view.as_json if args.json else comparison_view.as_text
    print(render(bundle, args.layer))
    return 0


def cmd_passes(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from explorer import pass_view
    from explorer.targets import TARGETS

    if args.target not in TARGETS:
        raise TensorwegError(f"unknown target {args.target!r} (known: {', '.join(TARGETS)})")
    options = replace(capture_options(args, targets=args.target), passes=True)
    bundle = open_or_capture(args.model, options)
    render = pass_view.as_json if args.json else pass_view.as_text
    print(render(bundle, args.target, args.frame, args.follow))
    return 0


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    if not match or int(match.group(1)) < 40 or int(match.group(2)) < 12:
        raise TensorwegError(f"bad --size '{text}': expected COLUMNSxROWS, at least 40x12, e.g. 120x40")
    return int(match.group(1)), int(match.group(2))


def cmd_screenshot(args: argparse.Namespace) -> int:
    size = _size(args.size)
    if args.out.suffix.lower() != ".svg":
        raise TensorwegError(f"{args.out.name}: --out must name an .svg file")
    bundle = open_or_capture(args.model, capture_options(args, targets=args.target))
    from screens.screenshot import render_screenshot

    render_screenshot(bundle.path, args.level, args.target, args.select, size, args.out)
    print(args.out)
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    from screens.app import create_app

    options = capture_options(args)
    lang = args.lang or _default_language()
    path = Path(args.model)
    if path.is_dir() and is_bundle(path):
        app = create_app(bundle_path=path, lang=lang)
    else:
        from explorer.model_source import resolve

        resolve(args.model)  # bad input fails here, before the terminal is taken over
        app = create_app(model_spec=args.model, options=options, lang=lang)
    app.run()
    return int(getattr(app, "return_code", 0) or 0)


def load_tour_argument(text: str):
    """A tour file, else a built-in tour's name; a malformed file raises ParseError (FILE:LINE:COL)."""
    from explorer.course.tours import builtin_tour, parse_tour

    path = Path(text)
    if path.is_file():  # errors name the file as the user typed it
        return parse_tour(path.read_text(encoding="utf-8"), text)
    if path.suffix == ".tour" or path.parent != Path("."):
        raise TensorwegError(f"{text}: no such tour file")
    return builtin_tour(text)


def cmd_tour(args: argparse.Namespace) -> int:
    """Parse the tour first (a bad tour fails before any capture), then open like `open`."""
    tour = load_tour_argument(args.tour)
    from screens.app import create_app

    options = capture_options(args)
    lang = args.lang or _default_language()
    path = Path(args.model)
    if path.is_dir() and is_bundle(path):
        app = create_app(bundle_path=path, lang=lang, tour=tour)
    else:
        from explorer.model_source import resolve

        resolve(args.model)
        app = create_app(model_spec=args.model, options=options, lang=lang, tour=tour)
    app.run()
    return int(getattr(app, "return_code", 0) or 0)


def _default_language() -> str:
    import os

    try:
        from explorer.course.lookup import default_language
    except ImportError:
        return "en"
    return default_language(os.environ)


HANDLERS = {
    "samples": cmd_samples,
    "capture": cmd_capture,
    "inspect": cmd_inspect,
    "screenshot": cmd_screenshot,
    "open": cmd_open,
    "tour": cmd_tour,
    "compare": cmd_compare,
    "passes": cmd_passes,
}


def dispatch(args: argparse.Namespace) -> int:
    handler = HANDLERS.get(args.command) or getattr(args, "handler", None)
    if handler is None:
        raise TensorwegError(f"unknown command '{args.command}'")
    return handler(args)
