"""`tensorweg pack MODEL... [--tours T,... | --no-tours] -o FILE.twpack`: the parser and the command.

Without `--tours`, the built-in lessons whose capture the packed bundles have go into the pack.

What a pack is, and writing and opening one, is `explorer.course.pack`; this module captures
(or opens) the bundles, checks that each tour has a bundle with its capture, and writes the file.
"""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

from explorer.cli.commands import capture_options, check_output_file, load_tour_argument, open_or_capture
from explorer.course import tours
from explorer.course.pack import PACK_SUFFIX, lessons_with_capture, write_pack
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.views.suggested import command_line


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    """Add `pack`; `capture_options_for(parser)` adds the capture options (explorer.cli.parser's)."""
    pack = subparsers.add_parser("pack", help="write a lesson pack: captured bundles and tours in one file")
    pack.add_argument("models", nargs="+", metavar="MODEL", help="MODEL or BUNDLE (captured when needed)")
    lessons = pack.add_mutually_exclusive_group()
    lessons.add_argument("--tours", default=None,
                         help="comma-separated tour files or built-in tour names "
                              "(default: the built-in lessons whose capture the packed bundles have)")
    lessons.add_argument("--no-tours", action="store_true", help="pack the bundles without lessons")
    pack.add_argument("-o", "--output", type=Path, required=True, help=f"the {PACK_SUFFIX} file to write")
    capture_options_for(pack)
    pack.set_defaults(handler=run_pack)


def run_pack(args: argparse.Namespace) -> int:
    check_output_file(args.output, PACK_SUFFIX)
    named = []
    for text in (t.strip() for t in (args.tours or "").split(",") if t.strip()):
        load_tour_argument(text)  # a bad tour fails before any capture
        path = Path(text)
        source = path.read_text(encoding="utf-8") if path.is_file() else _builtin_tour_text(text)
        named.append((path.stem if path.is_file() else text, source))
    if len({name for name, _ in named}) != len(named):
        raise TensorwegError("--tours names one tour twice")
    options = capture_options(args)
    bundles = [open_or_capture(model, options) for model in args.models]
    if args.tours is None and not args.no_tours:
        named = [(name, _builtin_tour_text(name)) for name in lessons_with_capture(bundles)]
    packed = [(name, _check_capture_packed(name, text, bundles)) for name, text in named]
    bundle_names = write_pack(bundles, named, args.output)
    print(args.output)
    for name in bundle_names:
        print(f"  bundle {name}")
    for name, tour in packed:  # what went in, so the instructor sees the lessons a learner can start
        print(f"  tour {name} ({tour.lang}): {tour.title}")
    if not packed:
        print("  no tours" + ("" if args.no_tours or args.tours is not None else
                              ": no built-in lesson is written for these bundles' capture (--tours adds a tour file)"))
    return 0


def _check_capture_packed(name: str, text: str, bundles: list[Bundle]) -> tours.Tour:
    """The lesson, once checked: it selects in the capture its `# capture:` header (and the targets its
    steps visit) names: a pack without such a bundle would open it on one where its steps select nothing."""
    tour = tours.parse_tour(text, f"{name}.tour")
    missing = [tours.missing_capture(tour, b.manifest.model.spec, b.manifest.options) for b in bundles]
    if all(missing):
        needed = tours.capture_options(tour)
        header = [word for option, text in tours.header_options(tour.capture) if option != "targets"
                  for word in text.split()]
        command = command_line(["capture", tour.model, *header, "--targets", ",".join(needed.targets)])
        raise TensorwegError(f"--tours {name}: no packed bundle has the capture it needs ({missing[0]}); "
                             f"pack a bundle made by `{command}`")
    return tour


def _builtin_tour_text(name: str) -> str:
    return resources.files("explorer.course.tours").joinpath(f"{name}.tour").read_text(encoding="utf-8")
