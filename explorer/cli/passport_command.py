"""`tensorweg passport MODEL|BUNDLE|PACK --layer L [--target T] [--json] [-o DIR] [--lang de|en]`:
one layer's output tensor followed down every hop (`explorer.views.passport`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.cli.commands import capture_options, default_language, open_or_capture
from explorer.course.output_folder import check_output_folder, write_output_folder


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    command = subparsers.add_parser("passport",
                                    help="one layer's output tensor from Python down to registers and buffer")
    command.add_argument("model", metavar="MODEL", help="a model, bundle or lesson pack")
    command.add_argument("--layer", required=True, metavar="NAME", help="the layer whose output is followed")
    command.add_argument("--target", default="cpu", help="the target to follow it on (default cpu)")
    command.add_argument("--json", action="store_true", help="JSON (schema: docs/inspect-json.md)")
    command.add_argument("-o", "--output", type=Path, default=None, metavar="DIR",
                         help="write passport.md and passport.html into DIR (new or empty; see --force)")
    command.add_argument("--force", action="store_true", help="replace an earlier passport in DIR")
    command.add_argument("--lang", choices=("de", "en"), default=None, help="the words (default: the locale's)")
    capture_options_for(command)
    command.set_defaults(handler=cmd_passport)


def cmd_passport(args: argparse.Namespace) -> int:
    # The views load only for this command: the parser is built by every `tensorweg` start.
    from explorer.course.passport_handout import PASSPORT_FILES, passport_files  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.views.passport import check_layer, check_target, passport  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.views.passport.text import as_json, as_text  # noqa: PLC0415 (loads only for the command that uses it)

    if args.output is not None:
        check_output_folder(args.output, PASSPORT_FILES, args.force)
    bundle = open_or_capture(args.model, capture_options(args, targets=args.target))
    check_target(bundle, args.target)
    check_layer(bundle, args.layer)
    lang = "en" if args.json else args.lang or default_language()
    found = passport(bundle, args.target, args.layer, lang=lang)
    if args.output is not None:
        write_output_folder(args.output, passport_files(found, lang))
        print(args.output)
        return 0
    print(as_json(found) if args.json else as_text(found, lang))
    return 0
