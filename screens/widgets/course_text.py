"""The course's texts drawn as Rich text, without a Markdown parser.

An explanation is a bold title, paragraphs with `code` and *emphasis*, its source in italics, and a
rule before each further text: all the Markdown its content files use (`tests/test_course_text.py`
holds every file to that). Rich's Markdown drew the same, but its import (markdown-it, and Pygments
through rich.syntax) and its rendering were a fifth of the first screen's time after its rows.
The styles are Rich's Markdown styles (`markdown.code`, `markdown.em`, `markdown.hr`), so the pane
looks as it did.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Group
from rich.rule import Rule
from rich.text import Text

from explorer.safe_text import visible

# Inline code, strong and emphasis, as CommonMark reads them in these texts: a `*` or `_` opens
# emphasis only before a non-space and outside a word (`mxu_count`, `_FusedConv2D` stay as written).
INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>\S(?:.*?\S)?)\*\*"
    r"|(?<![\w*])\*(?P<star>[^\s*](?:[^*]*?[^\s*])?)\*(?![\w*])"
    r"|(?<!\w)_(?P<under>[^\s_](?:[^_]*?[^\s_])?)_(?!\w)"
)
STYLES = {"code": "markdown.code", "strong": "markdown.strong", "star": "markdown.em", "under": "markdown.em"}
# Characters a content file may write that Markdown would read as a block of its own (a heading, a
# list, a quote, a table, fenced code, HTML) or as a link: the renderer does not draw those.
BLOCK_START = re.compile(r"\s*(?:[-*+>|#]\s|\d+[.)]\s|```|<[A-Za-z/!])")
LINK = re.compile(r"\]\(")


def paragraph_text(paragraph: str) -> Text:
    """One paragraph: its lines joined (a Markdown soft break is a space), inline marks styled."""
    source = " ".join(line.strip() for line in paragraph.splitlines())
    text, at = Text(), 0
    for match in INLINE.finditer(source):
        text.append(source[at:match.start()])
        kind = match.lastgroup or "code"
        text.append(match.group(kind), STYLES[kind])
        at = match.end()
    text.append(source[at:])
    return text


def paragraphs(body: str) -> list[str]:
    return [part for part in re.split(r"\n\s*\n", visible(body, multiline=True)) if part.strip()]


def unsupported_lines(body: str) -> list[str]:
    """The lines of `body` this renderer would not draw as Markdown does (a block or a link)."""
    return [line for line in body.splitlines() if BLOCK_START.match(line) or LINK.search(line)]


def course_text(texts: Sequence, source_word: str) -> Group:
    """Explanations (`explorer.texts.lookup.Explanation`: title, body, source), the first with its
    source, each further one after a rule."""
    parts: list = []
    for index, text in enumerate(texts):
        if index:
            parts += [Text(), Rule(style="markdown.hr"), Text()]
        parts.append(Text(visible(text.title), style="markdown.strong"))
        for paragraph in paragraphs(text.body):
            parts += [Text(), paragraph_text(paragraph)]
        if index == 0 and text.source:
            parts += [Text(), Text(f"{source_word}: {visible(text.source)}", style="markdown.em")]
    return Group(*parts)
