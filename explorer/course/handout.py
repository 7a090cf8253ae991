"""`tensorweg handout TOUR MODEL -o DIR`: a lesson as a folder for learners to keep.

The folder holds `handout.md`, `handout.html` and one `step-NN.svg` per step. Each step
says where it is (level, target, the selected item), gives the step's texts, the explanation
it shows (filled with the capture's figures), the selected item's row and, on HLO levels,
the lines of code around it, the question's hint (never the answer), the picture of its
screen and the commands that show that screen again. A step selecting an item of a level drawn
as a graph (layers, graph, hlo, optimized-hlo) also gets `step-NN-graph.svg`, the item's
neighbourhood one edge deep as `tensorweg graph` draws it, rendered by Graphviz; where Graphviz is
not installed (or the picture is too large for it) the step says so instead. What a step selects and explains comes
from `explorer.views`, as on screen.

This module composes the words (no Textual here): the pictures are rendered by the UI side
(`screens.screenshot.render_tour_screenshots`), which runs the command (`screens.cli`; its
parser, and which lesson TOUR names, are the command line's `handout_command`).
Everything that comes from a model, a bundle or a tour is escaped: shown as text, never markup;
its control characters and bidirectional overrides as stand-ins (`explorer.safe_text`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from explorer.course import lessons
from explorer.course.pack import is_pack
from explorer.course.step_text import step_text
from explorer.course.tours import Tour, TourStep
from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import GRAPH_LEVELS, LIST_LEVELS, level_named
from explorer.model.bundle import Bundle
from explorer.safe_text import visible
from explorer.texts.lookup import explain_topic
from explorer.views import explain, items, rows
from explorer.views.graphs.dot import dot_text
from explorer.views.graphs.files import GraphTooLarge, graphviz, render
from explorer.views.graphs.level import graph_of
from explorer.views.suggested import command_line

_CODE_CONTEXT = 3  # lines of HLO shown before and after the selected instruction
_STYLE = """body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}
section{border-top:1px solid #999;margin-top:1.5em}pre{background:#f4f4f4;padding:.6em;overflow-x:auto}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
img{max-width:100%;border:1px solid #999}
.where{color:#555}.question{border-left:4px solid #36c;padding-left:.6em}mark{background:#ffe08a}"""
MARKDOWN_FILE = "handout.md"
HTML_FILE = "handout.html"
# What a handout's folder holds (`picture_name`): `handout --force` replaces such a folder, no other.
HANDOUT_FILES = re.compile(r"handout\.(md|html)|step-\d+(-graph)?\.svg")
_GRAPH_DEPTH = 1  # a step's graph: the selection and what it reads and feeds


@dataclass(frozen=True)
class CodeExcerpt:
    lines: tuple[str, ...]
    marked: int  # index in `lines` of the selected instruction's line


@dataclass(frozen=True)
class HandoutStep:
    """One step as both documents show it. Texts are the tour's inline Markdown (`code`, **bold**)."""

    number: int
    heading: str  # "Step 2 of 5"
    where: str
    texts: tuple[str, ...]
    explanations: tuple[tuple[str, tuple[str, ...]], ...]  # (title, paragraphs)
    row: tuple[tuple[str, ...], tuple[str, ...]] | None  # (column titles, the selected item's cells)
    code: CodeExcerpt | None
    hint: str
    commands: tuple[str, ...]  # live in the terminal, then the picture
    picture: str  # the SVG's file name in the handout's folder
    graph: str = ""  # the graph picture's file name ("" for none)
    graph_svg: str = ""  # its SVG text, as Graphviz rendered it
    graph_alt: str = ""  # what the graph picture shows, in words
    graph_note: str = ""  # why a step that could have a graph has none (no Graphviz, too large)


def picture_name(index: int) -> str:
    return f"step-{index + 1:02d}.svg"


def graph_picture_name(index: int) -> str:
    return f"step-{index + 1:02d}-graph.svg"


def shown_model(model_argument: str) -> str:
    """MODEL as a handout's commands name it: a lesson pack by its file name (learners get the pack and
    the handout side by side, not the instructor's folders: `../out/course.twpack` is `course.twpack`);
    a model or bundle as the instructor named it."""
    return Path(model_argument).name if is_pack(Path(model_argument)) else model_argument


def step_commands(tour_argument: str, model_argument: str, index: int, lang: str) -> tuple[str, str]:
    """The command that opens the lesson at step `index` (0-based), and the one that draws its picture."""
    model_argument = shown_model(model_argument)
    number = str(index + 1)
    live = ["tour", tour_argument, model_argument, "--step", number, "--lang", lang]
    picture = ["screenshot", model_argument, "--tour", tour_argument, "--step", number,
               "--lang", lang, "--out", picture_name(index)]
    return command_line(live), command_line(picture)


def handout_steps(bundle: Bundle, tour: Tour, tour_argument: str, model_argument: str) -> list[HandoutStep]:
    """Every step of `tour` on `bundle`, in the tour's language; the arguments go into the commands."""
    return [_handout_step(bundle, tour, index, tour_argument, model_argument) for index in range(len(tour.steps))]


def _handout_step(bundle: Bundle, tour: Tour, index: int, tour_argument: str, model_argument: str) -> HandoutStep:
    lang, step = tour.lang, tour.steps[index]
    selected = lessons.resolve_tour_step(bundle, step)
    where = f"{label(f'level.{step.level}', lang)} · {step.target}"
    if selected:
        where += f" · {selected}"
    elif step.selection is not None:
        where += f" {label('handout.selects_nothing', lang)}"
    explanations = tuple((e.title, _paragraphs(e.body)) for e in _explanations(bundle, step, selected, lang))
    row, code = None, None
    if selected and step.level in LIST_LEVELS:
        item = next((i for i in rows.rows(bundle, step.level, step.target, lang) if i.name == selected), None)
        if item is not None:
            row = (tuple(items.column_titles(step.level, lang)), tuple(item.cells))
            if item.line:
                code = _code_excerpt(bundle.hlo_text(step.target, level_named(step.level).optimized), item.line)
    return HandoutStep(
        number=index + 1,
        heading=f"{label('word.step', lang)} {index + 1} {label('word.of', lang)} {len(tour.steps)}",
        where=where, texts=_paragraphs(step_text(bundle, step, lang)), explanations=explanations, row=row, code=code,
        hint=step.question.hint if step.question is not None else "",
        commands=step_commands(tour_argument, model_argument, index, lang), picture=picture_name(index),
        **_step_graph(bundle, step, selected, index, lang))


def _step_graph(bundle: Bundle, step: TourStep, selected: str | None, index: int, lang: str) -> dict[str, str]:
    """The `HandoutStep` fields of the selection's graph picture: rendered, or the reason it is not."""
    if not selected or step.level not in GRAPH_LEVELS:
        return {}
    try:
        graph = graph_of(bundle, step.level, step.target, selected, _GRAPH_DEPTH)
    except TensorwegError:  # a level this target's compiler does not draw as a graph (TVM's Relax)
        return {}
    if graphviz() is None:
        return {"graph_note": label("handout.no_graphviz", lang)}
    try:
        svg = render(dot_text(graph, bundle.model_name, lang), "svg", graph.node_count())
    except GraphTooLarge as exc:
        return {"graph_note": label("handout.graph_too_large", lang).format(reason=exc)}
    return {"graph": graph_picture_name(index), "graph_svg": svg.decode("utf-8"),
            "graph_alt": label("handout.graph_alt", lang).format(name=selected)}


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(p for p in text.split("\n\n") if p.strip())


def _explanations(bundle: Bundle, step: TourStep, selected: str | None, lang: str):
    if not step.explain:
        return ()
    if step.explain != "selected":
        return (explain_topic(step.explain, lang),)
    return explain.explanations(bundle, step.level, step.target, selected, lang) if selected else ()


def _code_excerpt(code: str, line: int) -> CodeExcerpt:
    lines = code.splitlines()
    start, end = max(0, line - 1 - _CODE_CONTEXT), min(len(lines), line + _CODE_CONTEXT)
    return CodeExcerpt(tuple(lines[start:end]), line - 1 - start)


def about_line(bundle: Bundle, lang: str) -> str:
    """The model and its targets (names from the bundle: callers escape them)."""
    return (f"{label('handout.model', lang)}: {bundle.model_name} · "
            f"{label('handout.targets', lang)}: {', '.join(bundle.targets)}")


# --- HTML ----------------------------------------------------------------------------------------


def render_html(bundle: Bundle, tour: Tour, steps: list[HandoutStep]) -> str:
    """The whole HTML page, every word in the tour's language (`explorer.labels`)."""
    lang = tour.lang
    parts = [
        "<!DOCTYPE html>", f'<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{_text(tour.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_text(tour.title)}</h1>",
        f"<p>{_markdown_inline(tour.outcome)}</p>" if tour.outcome else "",
        f'<p class="where">{_text(about_line(bundle, lang))}</p>',
    ]
    parts += [_html_section(step, lang) for step in steps]
    parts.append("</body></html>")
    return visible("\n".join(p for p in parts if p) + "\n", multiline=True)  # no control character reaches a reader


def _html_section(step: HandoutStep, lang: str) -> str:
    out = [f'<section id="step-{step.number}">', f"<h2>{_text(step.heading)}</h2>",
           f'<p class="where">{_text(step.where)}</p>',
           f'<p><img src="{_text(step.picture)}" alt="{_text(step.heading)}"></p>']
    if step.graph:
        out.append(f'<p><img src="{_text(step.graph)}" alt="{_text(step.graph_alt)}"></p>')
    elif step.graph_note:
        out.append(f'<p class="where">{_text(step.graph_note)}</p>')
    out += [f"<p>{_markdown_inline(paragraph)}</p>" for paragraph in step.texts]
    for title, paragraphs in step.explanations:
        out.append(f"<h3>{_text(title)}</h3>")
        out += [f"<p>{_markdown_inline(p)}</p>" for p in paragraphs]
    if step.row is not None:
        titles, cells = step.row
        header = "".join(f"<th>{_text(c)}</th>" for c in titles)
        out.append(f"<table><tr>{header}</tr><tr>{''.join(f'<td>{_text(c)}</td>' for c in cells)}</tr></table>")
    if step.code is not None:
        shown = [f"<mark>{_text(text)}</mark>" if number == step.code.marked else _text(text)
                 for number, text in enumerate(step.code.lines)]
        out.append("<pre>" + "\n".join(shown) + "</pre>")
    if step.hint:
        out.append(f'<p class="question"><strong>{label("handout.hint", lang)}:</strong> '
                   f"{_markdown_inline(step.hint)}</p>")
    out.append(f"<p>{label('handout.command', lang)}</p><pre>{_text(chr(10).join(step.commands))}</pre>")
    out.append("</section>")
    return "\n".join(out)


def _text(value: str) -> str:
    return html.escape(value, quote=True)


def _markdown_inline(text: str) -> str:
    """Escaped text with the tours' inline Markdown kept: `code` and **bold** (nothing else is markup)."""
    escaped = _text(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)
