"""`tensorweg diff MODEL --vary KEY=A,B` and `tensorweg diff BUNDLE_A BUNDLE_B`: the parser and the command.

Both variants are checked before anything is captured (explorer.capture.vary), then each is
opened from the cache or captured with its progress shown; what is printed comes from
`explorer.views.whatif.diff` (the figures) and `explorer.views.whatif.diff_text` (the words).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from explorer.capture.vary import VARY_KEYS, variants
from explorer.cli.commands import capture_keywords, default_language, open_or_capture
from explorer.course.pack import bundle_argument
from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.model.bundle import Bundle
from explorer.targets import TARGETS


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    """Add `diff`; `capture_options_for(parser)` adds the capture options (explorer.cli.parser's)."""
    diff = subparsers.add_parser(
        "diff", help="two variants of a model side by side: what the compiler did differently, and why")
    diff.add_argument("models", nargs="+", metavar="MODEL", help="MODEL with --vary, or BUNDLE_A BUNDLE_B")
    diff.add_argument("--vary", default=None, metavar="KEY=A,B",
                      help=f"the option that differs ({', '.join(VARY_KEYS)}), e.g. batch=1,64")
    diff.add_argument("--target", default="cpu", help="the target both variants are compared on (default cpu)")
    diff.add_argument("--json", action="store_true", help="JSON (schema: docs/inspect-json.md)")
    diff.add_argument("--lang", choices=("de", "en"), default=None, help="the explanations' language")
    own = set(vars(diff.parse_known_args(["MODEL"])[0]))
    capture_options_for(diff)
    # The capture options' defaults, so that bundle-vs-bundle mode can tell which ones were given.
    capture_defaults = {dest: value for dest, value in vars(diff.parse_known_args(["MODEL"])[0]).items()
                        if dest not in own}
    diff.set_defaults(handler=run_diff, capture_defaults=capture_defaults)


def run_diff(args: argparse.Namespace) -> int:
    from explorer.views.whatif import diff_text as variant_diff_text  # noqa: PLC0415 (loads only for the command that uses it)
    from explorer.views.whatif.diff import variant_diff  # noqa: PLC0415 (loads only for the command that uses it)

    if args.target not in TARGETS:
        raise TensorwegError(f"unknown target {args.target!r} (known: {', '.join(TARGETS)})")
    lang = args.lang or default_language()
    before, after = _variant_bundles(args, lang)
    diff = variant_diff(before, after, args.target)
    print(variant_diff_text.as_json(diff) if args.json else variant_diff_text.as_text(diff, lang))
    return 0


def _given_capture_options(args: argparse.Namespace) -> list[str]:
    """The capture options on the command line (those not at their defaults), as the user typed them."""
    return [f"--{dest.replace('_', '-')}" for dest, default in args.capture_defaults.items()
            if getattr(args, dest) != default]


def _variant_bundles(args: argparse.Namespace, lang: str) -> tuple[tuple[str, Bundle], tuple[str, Bundle]]:
    """(label, bundle) of each variant: two bundles as they are, or a model's two variants, captured
    (or taken from the cache) one after the other once both were checked."""
    if len(args.models) == 2:
        if args.vary:
            raise TensorwegError("diff BUNDLE_A BUNDLE_B compares two captures as they are; --vary is for one MODEL")
        if given := _given_capture_options(args):
            raise TensorwegError(f"diff BUNDLE_A BUNDLE_B compares two captures as they are; capture options "
                                 f"mean nothing there: {', '.join(given)}")
        paths = [bundle_argument(model) for model in args.models]
        for model, path in zip(args.models, paths, strict=True):
            if path is None:
                raise TensorwegError(f"{model}: not a bundle; diff MODEL --vary KEY=A,B captures a model's variants")
        names = [Path(model).name or model for model in args.models]  # the folders' names, unless the same
        labels = names if names[0] != names[1] else list(args.models)
        bundles = [Bundle.open(path) for path in paths if path is not None]  # each is a bundle: checked above
        return (labels[0], bundles[0]), (labels[1], bundles[1])
    if len(args.models) != 1:
        raise TensorwegError("diff takes one MODEL with --vary KEY=A,B, or two bundles")
    if not args.vary:
        raise TensorwegError("diff MODEL needs --vary KEY=A,B, e.g. --vary batch=1,64")
    if bundle_argument(args.models[0]) is not None:
        raise TensorwegError(f"{args.models[0]} is a captured bundle: its options are fixed; "
                             "diff BUNDLE_A BUNDLE_B compares two of them")
    first, second = variants(args.vary, capture_keywords(args, targets=args.target))
    opened = []
    for variant in (first, second):
        print(label("whatif.variant", lang).format(label=variant.label), file=sys.stderr, flush=True)
        opened.append((variant.label, open_or_capture(args.models[0], variant.options)))
    return opened[0], opened[1]
