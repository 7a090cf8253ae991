"""`tensorweg handout TOUR MODEL -o DIR`: the parser, and which lesson TOUR names.

The command runs on the UI side (`screens.cli.cmd_handout`), which draws the pictures; the
words are `explorer.course.handout`'s.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.cli.commands import load_tour_argument
from explorer.course.pack import is_pack, open_pack
from explorer.course.tours import Tour, twin_in
from explorer.errors import TensorwegError


def find_tour(tour_argument: str, model_argument: str, lang: str | None = None) -> tuple[Tour, str]:
    """The lesson TOUR names (one of a pack's tours, a tour file or a built-in lesson), in `lang`
    when given (a built-in lesson's twin), and the name that finds it again (for the commands)."""
    name = twin_in(tour_argument, lang) if lang else tour_argument
    tour = open_pack(Path(model_argument)).tour(name) if is_pack(Path(model_argument)) else None
    if tour is None:
        tour = load_tour_argument(name)
    if lang and tour.lang != lang:  # the words would be in one language, the lesson in another
        raise TensorwegError(f"--lang {lang}: the tour {tour_argument} is written in {tour.lang} and has no "
                             f"twin in {lang}; leave out --lang")
    return tour, name


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    """The parser; the command runs on the UI side (`screens.cli`), which draws the pictures."""
    handout = subparsers.add_parser("handout", help="write a lesson as a folder: Markdown, HTML and SVG pictures")
    handout.add_argument("tour", metavar="TOUR", help="a built-in lesson, a tour file, or a tour in the pack")
    handout.add_argument("model", metavar="MODEL", help="a model, bundle or lesson pack")
    handout.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                         help="the folder to write (new or empty; see --force)")
    handout.add_argument("--lang", choices=("de", "en"), default=None,
                         help="the handout's language (default the tour's): a built-in lesson's twin in it")
    handout.add_argument("--force", action="store_true",
                         help="replace an earlier handout in the folder (a folder with other files is refused)")
    capture_options_for(handout)
