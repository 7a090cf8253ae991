"""`tensorweg graph MODEL|BUNDLE|PACK --level L [--target T] [--select NAME] [--depth N] -o FILE`.

The level's graph (or one item's neighbourhood) as DOT, built with pydot (`explorer.views.graphs.dot`),
written as `.dot` or rendered by Graphviz as `.svg`, `.png` or `.pdf` (`explorer.views.graphs.files`).
Bad input is one `error:` line and exit 2 with nothing written, checked before any capture where it
can be: an unknown level (argparse), target, item or layer; `--depth` outside 0 to
`graph_parts.MAX_DEPTH`; an output folder that does not exist; an unknown extension; an existing
file without `--force`; a rendered format without Graphviz installed. One refusal writes something
on purpose: a graph too large to render (`graph_files.MAX_RENDER_NODES` boxes, or Graphviz's time
limit) writes its DOT as `FILE.dot` beside the asked-for file and says so in the error line (exit 2),
since the DOT is what the user can still render elsewhere or narrow.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.cli.commands import capture_options, default_language, open_or_capture
from explorer.errors import TensorwegError
from explorer.levels import GRAPH_LEVELS, TARGET_LEVELS
from explorer.targets import TARGETS
from explorer.views.graphs.files import GRAPH_SUFFIXES, check_graph_output, write_graph
from explorer.views.graphs.parts import MAX_DEPTH


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    graph = subparsers.add_parser("graph", help="write a level's graph (or an item's neighbourhood) as DOT or SVG")
    graph.add_argument("model", help="MODEL, BUNDLE or PACK")
    graph.add_argument("--level", required=True, choices=GRAPH_LEVELS)
    graph.add_argument("--target", default="cpu", help="the target of the HLO levels (default cpu)")
    graph.add_argument("--select", default=None, metavar="NAME",
                       help="draw only this item's neighbourhood (an item of the level, or a layer's items)")
    graph.add_argument("--depth", type=int, default=None, metavar="N",
                       help=f"with --select: edges around the selection (0 to {MAX_DEPTH}, default 1)")
    graph.add_argument("--lang", choices=("de", "en"), default=None, help="the legend's words (default: the locale's)")
    graph.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                       help=f"the file to write: {', '.join(GRAPH_SUFFIXES)} (all but .dot need Graphviz)")
    graph.add_argument("--force", action="store_true", help="replace FILE if it exists")
    capture_options_for(graph)
    graph.set_defaults(handler=cmd_graph)


def _depth(args: argparse.Namespace) -> int:
    if args.depth is None:
        return 1
    if args.select is None:
        raise TensorwegError("--depth: counts edges around a selection; name one with --select")
    if not 0 <= args.depth <= MAX_DEPTH:
        raise TensorwegError(f"--depth {args.depth}: expected 0 to {MAX_DEPTH} edges around the selection")
    return args.depth


def cmd_graph(args: argparse.Namespace) -> int:
    depth = _depth(args)
    if args.target not in TARGETS:
        raise TensorwegError(f"unknown target {args.target!r} (known: {', '.join(TARGETS)})")
    check_graph_output(args.output, args.force)
    # pydot and the programs load only for this command (the parser is built for every command).
    from explorer.views.graphs.dot import dot_text  # noqa: PLC0415 (see above)
    from explorer.views.graphs.level import graph_of  # noqa: PLC0415 (see above)

    bundle = open_or_capture(args.model, capture_options(args, targets=args.target))
    if args.level in TARGET_LEVELS and args.target not in bundle.targets:
        raise TensorwegError(f"--target {args.target}: not in this bundle (captured: {', '.join(bundle.targets)})")
    graph = graph_of(bundle, args.level, args.target, args.select, depth)
    text = dot_text(graph, bundle.model_name, args.lang or default_language())
    check_graph_output(args.output, args.force)  # a capture took a while: check again
    write_graph(args.output, text, graph.node_count(), args.force)
    print(args.output)
    return 0
