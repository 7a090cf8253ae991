"""`tensorweg explain TOPIC` and `tensorweg glossary`: the course texts without the UI."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.texts.glossary import glossary, search_glossary
from explorer.texts.lookup import default_language, explain_topic, listed_topics, topic_family


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `explain` and `glossary` subcommands; each sets `handler` to a function(args) -> int."""
    explain = subparsers.add_parser("explain", help="print the explanation of a topic, e.g. hlo:dot")
    explain.add_argument("topic", metavar="TOPIC", nargs="?", default=None,
                         help="a key such as hlo:dot, hlo:dot@tpu, layer:Conv2D; a family such as memory: "
                              "lists its topics")
    explain.add_argument("--list", action="store_true",
                         help="list the topics (with TOPIC, those of its family: --list memory)")
    explain.add_argument("--lang", choices=("de", "en"), default=None,
                         help="language (default: from LC_ALL/LC_MESSAGES/LANG)")
    explain.set_defaults(handler=run_explain)

    terms = subparsers.add_parser("glossary", help="print the glossary, or search it")
    terms.add_argument("--lang", choices=("de", "en"), default=None,
                       help="language (default: from LC_ALL/LC_MESSAGES/LANG)")
    terms.add_argument("--search", metavar="Q", default="", help="only terms matching Q")
    terms.set_defaults(handler=run_glossary)


def _language(args: argparse.Namespace) -> str:
    return args.lang or default_language(os.environ)


def run_explain(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print title, body and source; `--list` or a family (`memory:`) lists topics with their titles.
    An unknown topic raises TensorwegError naming close ones (exit 2 via the CLI)."""
    out = out or sys.stdout
    assert out is not None  # a command's stdout (None only in a process started without one)
    lang = _language(args)
    if args.topic is None and not args.list:
        raise TensorwegError("explain: name a TOPIC (e.g. hlo:dot), a family (e.g. memory:), or --list")
    family = topic_family(args.topic, lang) if args.topic is not None else None
    if args.list and args.topic is not None and family is None:  # refused by listed_topics, naming the families
        family = args.topic.strip().removesuffix(":")
    if args.list or family is not None:
        listed = listed_topics(lang, family)
        width = max(len(key) for key, _ in listed)
        out.writelines(f"{key.ljust(width)}  {title}\n" for key, title in listed)
        return 0
    assert args.topic is not None  # no topic was refused above, unless --list, which has returned
    text = explain_topic(args.topic, lang)
    out.write(f"{text.title}\n\n{text.body}\n\n{label('word.source', lang)}: {text.source}\n")
    return 0


def run_glossary(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print matching entries; exit code 1 when a search finds nothing."""
    out = out or sys.stdout
    assert out is not None  # a command's stdout (None only in a process started without one)
    lang = _language(args)
    entries = search_glossary(args.search, lang) if args.search else glossary(lang)
    for entry in entries:
        out.write(f"{entry.term}\n  {entry.definition}\n")
        if entry.see_also:
            out.write(f"  {label('word.see_also', lang)}: {', '.join(entry.see_also)}\n")
    return 0 if entries else 1
