"""The `tensorweg` command line's `main`: it runs one subcommand and turns every problem into one line.

The console script is `screens.cli:main`: it passes the commands that open the UI (`open`, `tour`,
`screenshot`, `serve`, `handout`; `explorer.cli.parser.UI_COMMANDS`) to `main` here, so this core
module never imports the UI. `python -m explorer.cli` runs the headless subcommands only.
Errors print one line `error: ...` and exit 2; `--debug` shows the traceback. Every line printed
passes one sanitiser (`explorer.cli.output`): control characters from a model are shown, never obeyed.
Importing this module loads neither the parser nor a command: `main` builds the parser of the one
subcommand it runs, whose handler loads its own modules (the console script's start-up).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping

from explorer.cli.output import visible_output
from explorer.errors import TensorwegError

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]


def main(argv: list[str] | None = None, ui_handlers: Mapping[str, Handler] | None = None) -> int:
    """Run one subcommand; `ui_handlers` (from screens.cli) run the commands that open the UI.

    Everything it prints passes `explorer.cli.output` (names from a model are shown, never obeyed)."""
    with visible_output():
        return _run(argv, ui_handlers)


def _run(argv: list[str] | None, ui_handlers: Mapping[str, Handler] | None) -> int:
    from explorer.cli import commands  # noqa: PLC0415 (start-up: the capture options' checks load with a command line)
    from explorer.cli.parser import SUBCOMMANDS, UI_COMMANDS, build_parser  # noqa: PLC0415 (start-up: as the commands)

    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    # `tensorweg [MODEL]` means `tensorweg open [MODEL]`.
    wants_help = any(a in ("-h", "--help") for a in argv)
    if not wants_help and (not argv or argv[0] not in SUBCOMMANDS):
        argv = ["open", *argv]
    try:
        # Only the named subcommand's arguments: `tensorweg MODEL` loads no other command's module.
        args = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None).parse_args(argv)
        handlers = {**commands.HANDLERS, **(ui_handlers or {})}
        if args.command in UI_COMMANDS and args.command not in handlers:
            raise TensorwegError(f"'{args.command}' opens the explorer: run it as `tensorweg {args.command} ...`")
        return commands.dispatch(args, handlers)
    except TensorwegError as exc:
        if debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `tensorweg inspect ... | head`: the reader left; not an error
        sys.stderr.close()
        return 0

