"""The handout as Markdown (`handout.md`), from the same steps as the HTML page.

Names and texts from models, bundles and tours are escaped so that they render as the
text they are: no link, image, HTML tag, heading or list comes out of a layer's name.
The tours' own inline Markdown, `code` and **bold**, is kept, as on screen. Control characters
and bidirectional overrides are shown as stand-ins (`explorer.safe_text`), never written.
"""

from __future__ import annotations

import re

from explorer.course.handout import HandoutStep, about_line
from explorer.course.tours import Tour
from explorer.labels import label
from explorer.model.bundle import Bundle
from explorer.safe_text import visible

# CommonMark lets a backslash escape any ASCII punctuation; these are the ones that can start markup
# anywhere in a line (emphasis, code, links, images, HTML, entities, tables, strikethrough).
_INLINE_MARKUP = re.compile(r"([\\`*_\[\]<>&|~!])")
# ... and these only at the start of a line: headings, quotes, list items, thematic breaks.
_LINE_START_MARKUP = re.compile(r"^(\s*)([#>+\-=]|\d+(?=[.)]))", re.M)
_KEPT_MARKUP = re.compile(r"(`[^`\n]+`)|\*\*([^*\n]+)\*\*")


def escape_markdown(text: str) -> str:
    """`text` as Markdown that renders exactly `text` (line breaks aside)."""
    text = _INLINE_MARKUP.sub(r"\\\1", text)
    return _LINE_START_MARKUP.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if not m.group(2).isdigit()
                                  else f"{m.group(1)}{m.group(2)}\\", text)


def _inline(text: str) -> str:
    """A tour's text: `code` spans and **bold** kept, everything else escaped."""
    out, end = [], 0
    for match in _KEPT_MARKUP.finditer(text):
        out.append(escape_markdown(text[end:match.start()]))
        out.append(match.group(1) if match.group(1) else f"**{escape_markdown(match.group(2))}**")
        end = match.end()
    out.append(escape_markdown(text[end:]))
    return "".join(out)


def _fenced(lines: list[str]) -> list[str]:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *lines, fence]


def render_markdown(bundle: Bundle, tour: Tour, steps: list[HandoutStep]) -> str:
    """`handout.md`: every word in the tour's language, each step's picture beside it."""
    lang = tour.lang
    out = [f"# {escape_markdown(tour.title)}", ""]
    if tour.outcome:
        out += [_inline(tour.outcome), ""]
    out += [f"*{escape_markdown(about_line(bundle, lang))}*", ""]
    for step in steps:
        out += _step(step, lang)
    return visible("\n".join(out).rstrip("\n") + "\n", multiline=True)  # no control character reaches a reader


def _step(step: HandoutStep, lang: str) -> list[str]:
    out = [f"## {escape_markdown(step.heading)}", "", f"*{escape_markdown(step.where)}*", "",
           f"![{escape_markdown(step.heading)}]({step.picture})", ""]
    if step.graph:
        out += [f"![{escape_markdown(step.graph_alt)}]({step.graph})", ""]
    elif step.graph_note:
        out += [f"*{escape_markdown(step.graph_note)}*", ""]
    for paragraph in step.texts:
        out += [_inline(paragraph), ""]
    for title, paragraphs in step.explanations:
        out += [f"### {escape_markdown(title)}", ""]
        for paragraph in paragraphs:
            out += [_inline(paragraph), ""]
    if step.row is not None:
        titles, cells = step.row
        out += ["| " + " | ".join(escape_markdown(t) for t in titles) + " |",
                "|" + "---|" * len(titles),
                "| " + " | ".join(escape_markdown(c) for c in cells) + " |", ""]
    if step.code is not None:
        out += [*_fenced(list(step.code.lines)), ""]
    if step.hint:
        out += [f"> **{label('handout.hint', lang)}:** {_inline(step.hint)}", ""]
    out += [escape_markdown(label("handout.command", lang)), "", *_fenced(list(step.commands)), ""]
    return out
