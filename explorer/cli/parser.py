"""The `tensorweg` command line's parser: every subcommand and its arguments.

`explorer.cli.main` runs what it parses. The subcommands in UI_COMMANDS are parsed here too,
but run on the UI side (`screens.cli`), so the core never imports the UI.
A command line that names its subcommand gets a parser with that subcommand's arguments only
(`build_parser(command)`): `tensorweg MODEL` loads none of the other commands' modules.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.capture.option_table import GIVEN, CaptureOption, Kind
from explorer.cli.commands import MAX_SIZE
from explorer.course.pack import MAX_CACHE_BYTES, MAX_MEMBERS
from explorer.errors import TensorwegError
from explorer.levels import LEVELS
from explorer.targets import DEFAULT_TARGETS

DEFAULT_MODEL = "mnist_cnn"
SUBCOMMANDS = ("samples", "capture", "inspect", "screenshot", "open", "explain", "glossary", "tour", "compare",
               "passes", "pack", "serve", "handout", "graph", "passport", "diff")
TARGET_HELP = ("the target shown (gpu and tpu mean their default chips); default cpu, "
               "or a bundle's first target when it has no cpu")
# The subcommands whose handlers live on the UI side (screens.cli).
UI_COMMANDS = ("open", "tour", "screenshot", "serve", "handout")
# `serve`'s limits (README "Serving a class"): each tab is a process of about 100 MB.
DEFAULT_MAX_TABS = 30
DEFAULT_IDLE_TIMEOUT = 30 * 60  # seconds: a forgotten tab gives its memory back after half an hour


def _common_capture_options(parser: argparse.ArgumentParser, default_targets: str | None) -> None:
    """Every capture option's flag (explorer.capture.option_table), in the table's order; `--targets`
    only where the command captures several targets (inspect and passes name one `--target`)."""
    for row in GIVEN:
        assert row.flag is not None  # GIVEN holds the rows with a flag
        if row.field != "targets":
            parser.add_argument(row.flag, **_argparse_keywords(row))
        elif default_targets is not None:
            parser.add_argument(row.flag, default=default_targets, help=row.help.format(default=default_targets))


def _argparse_keywords(row: CaptureOption) -> dict[str, Any]:
    """How argparse spells a row: its action by kind, its default, type, choices, metavar and help."""
    if row.kind is Kind.SWITCH:
        return {"action": "store_true", "help": row.help}
    if row.kind is Kind.EITHER:
        return {"action": argparse.BooleanOptionalAction, "default": row.default, "help": row.help}
    keywords: dict[str, Any] = {"default": row.default, "help": row.help}
    if row.kind is Kind.LIST:
        keywords.update(action="append", default=list(row.default))  # argparse appends to a copy of a list
    if row.type is not str:
        keywords["type"] = row.type
    if row.choices:
        keywords["choices"] = row.choices
    if row.metavar:
        keywords["metavar"] = row.metavar
    return keywords


class _Parser(argparse.ArgumentParser):
    """argparse with the project's error style: one line, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise TensorwegError(message)


def _serve_limits(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--token", default=None,
                       help="what every request must carry (at least 16 letters, digits, - or _); on a host "
                            "other than this machine's loopback, serve makes one when not given")
    serve.add_argument("--max-tabs", type=int, default=DEFAULT_MAX_TABS, metavar="N",
                       help=f"browser tabs open at once, each its own process (default {DEFAULT_MAX_TABS})")
    serve.add_argument("--idle-timeout", type=int, default=DEFAULT_IDLE_TIMEOUT, metavar="SECONDS",
                       help=f"a tab with no key or click for this long is closed "
                            f"(default {DEFAULT_IDLE_TIMEOUT}: {DEFAULT_IDLE_TIMEOUT // 60} minutes; 0: never)")
    serve.add_argument("--max-pack-members", type=int, default=MAX_MEMBERS, metavar="N",
                       help=f"a pack with more files is refused (default {MAX_MEMBERS:,})")
    serve.add_argument("--max-pack-disk", type=float, default=MAX_CACHE_BYTES / (1 << 30), metavar="GIB",
                       help=f"the packs unpacked in the cache together, in GiB: a pack that would take them past "
                            f"this is refused (default {MAX_CACHE_BYTES / (1 << 30):g})")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with `command` (one of SUBCOMMANDS), of that one alone.

    Both parse that command's arguments alike; the whole one is for `--help` and a command line
    that names no subcommand (argparse lists every subcommand in their messages)."""
    parser = _Parser(prog="tensorweg", description="Der Weg eines Tensors: "
                                     "what TensorFlow and XLA make of a Keras model, level by level.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for names, add in _SUBPARSERS:
        if command is None or command in names:
            add(sub)
    return parser


def _samples(sub: argparse._SubParsersAction) -> None:
    sub.add_parser("samples", help="list the built-in sample models")


def _open(sub: argparse._SubParsersAction) -> None:
    open_parser = sub.add_parser("open", help="open the explorer (the default command)")
    open_parser.add_argument("model", nargs="?", default=DEFAULT_MODEL, help="MODEL or BUNDLE")
    _common_capture_options(open_parser, _DEFAULTS)
    open_parser.add_argument("--lang", choices=("de", "en"), default=None)


def _capture(sub: argparse._SubParsersAction) -> None:
    capture = sub.add_parser("capture", help="capture every level into a bundle")
    capture.add_argument("model")
    capture.add_argument("-o", "--output", type=Path, default=None, help="bundle directory to write")
    capture.add_argument("--no-cache", action="store_true", help="capture again even if cached")
    _common_capture_options(capture, _DEFAULTS)


def _inspect(sub: argparse._SubParsersAction) -> None:
    inspect = sub.add_parser("inspect", help="print one level as text or JSON")
    inspect.add_argument("model", help="MODEL or BUNDLE")
    inspect.add_argument("--level", required=True, choices=LEVELS)
    inspect.add_argument("--target", default=None, help=TARGET_HELP)
    inspect.add_argument("--json", action="store_true", help="JSON (schema: docs/inspect-json.md)")
    inspect.add_argument("--select", default=None, metavar="NAME",
                         help="also one item's trace, explanation keys and device mapping, as the side panes show them")
    _common_capture_options(inspect, None)


def _compare(sub: argparse._SubParsersAction) -> None:
    compare = sub.add_parser("compare", help="one layer (or the whole model) side by side on every target")
    compare.add_argument("model", help="MODEL or BUNDLE")
    compare.add_argument("--layer", default=None, metavar="NAME", help="the layer to compare (default: summary only)")
    compare.add_argument("--json", action="store_true", help="JSON (schema: docs/inspect-json.md)")
    _common_capture_options(compare, _DEFAULTS)


def _passes(sub: argparse._SubParsersAction) -> None:
    passes = sub.add_parser("passes", help="the compiler's passes one by one (the filmstrip), as text or JSON")
    passes.add_argument("model", help="MODEL or BUNDLE (a model is captured with --passes)")
    passes.add_argument("--target", default=None, help=TARGET_HELP)
    passes.add_argument("--frame", type=int, default=None, metavar="N", help="also print frame N's diff")
    passes.add_argument("--follow", default=None, metavar="NAME",
                        help="an instruction or layer: where it was created, rewritten, fused or removed")
    passes.add_argument("--json", action="store_true", help="JSON")
    passes.add_argument("--grappler", action="store_true",
                        help="Grappler's film: the TensorFlow graph after each Grappler optimizer (not --target's XLA)")
    passes.add_argument("--lang", choices=("de", "en"), default=None, help="the text's words (default: the locale's)")
    _common_capture_options(passes, None)


def _screenshot(sub: argparse._SubParsersAction) -> None:
    shot = sub.add_parser("screenshot", help="render a screen headlessly to SVG")
    shot.add_argument("model", help="MODEL or BUNDLE")
    shot.add_argument("--level", default="layers", choices=LEVELS)
    shot.add_argument("--target", default=None, help=TARGET_HELP)
    shot.add_argument("--select", default=None, help="name of the item to select")
    shot.add_argument("--size", default="120x40", help="COLUMNSxROWS (default 120x40, at most 500x200)")
    shot.add_argument("--lang", choices=("de", "en"), default=None, help="default en (with --tour: the tour's)")
    shot.add_argument("--out", type=Path, required=True, help="SVG file to write")
    shot.add_argument("--tour", default=None, metavar="TOUR",
                      help="picture a tour's step as the learner sees it (instead of --level/--target/--select)")
    shot.add_argument("--step", type=int, default=None, metavar="N", help="with --tour: the step (default 1)")
    _common_capture_options(shot, None)


def _tour(sub: argparse._SubParsersAction) -> None:
    tour = sub.add_parser("tour", help="open the explorer in a guided tour")
    tour.add_argument("tour", metavar="FILE", help="a tour file, or the name of a built-in tour")
    tour.add_argument("model", metavar="MODEL",
                      help="MODEL or BUNDLE (the tour's '# model:' names what it was written for)")
    _common_capture_options(tour, _DEFAULTS)
    tour.add_argument("--lang", choices=("de", "en"), default=None)
    tour.add_argument("--step", type=int, default=1, metavar="N", help="start at step N (default 1)")


def _serve(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser("serve", help="serve the explorer to web browsers (textual-serve)",
                           description="Each browser tab runs the explorer in its own process, with a terminal "
                                       f"of at most {MAX_SIZE[0]}x{MAX_SIZE[1]} (as `screenshot --size`).")
    serve.add_argument("model", nargs="?", default=DEFAULT_MODEL, help="PACK, BUNDLE or MODEL")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--allow-capture", action="store_true",
                       help="MODEL is captured before serving and the tabs may capture its other targets "
                            "(queued); otherwise only packs and bundles are served")
    serve.add_argument("--max-captures", type=int, default=None, metavar="N",
                       help="with --allow-capture: tabs capture more targets, at most N at once, "
                            "the others queued (default 1)")
    serve.add_argument("--lang", choices=("de", "en"), default=None)
    _serve_limits(serve)
    _common_capture_options(serve, _DEFAULTS)


def _module_command(module: str, default_targets: str | None) -> Callable[[argparse._SubParsersAction], None]:
    """A subcommand that `explorer.cli.<module>.register` adds (with the capture options), its module
    imported only when that subcommand is parsed."""

    def add(sub: argparse._SubParsersAction) -> None:
        importlib.import_module(f"explorer.cli.{module}").register(
            sub, lambda parser: _common_capture_options(parser, default_targets))

    return add


def _texts_commands(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("explorer.cli.texts_commands").register(sub)


_DEFAULTS = ",".join(DEFAULT_TARGETS)
# Each subcommand (or pair) and what adds it, in `tensorweg --help`'s order.
_SUBPARSERS: tuple[tuple[tuple[str, ...], Callable[[argparse._SubParsersAction], None]], ...] = (
    (("samples",), _samples), (("open",), _open), (("capture",), _capture), (("inspect",), _inspect),
    (("compare",), _compare), (("passes",), _passes), (("screenshot",), _screenshot), (("tour",), _tour),
    (("serve",), _serve), (("explain", "glossary"), _texts_commands),
    (("pack",), _module_command("pack_command", _DEFAULTS)),
    (("handout",), _module_command("handout_command", _DEFAULTS)),
    (("graph",), _module_command("graph_command", None)),
    (("passport",), _module_command("passport_command", None)),
    (("diff",), _module_command("diff_command", None)),
)
