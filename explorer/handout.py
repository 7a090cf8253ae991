"""`tensorweg handout`: a lesson as one static HTML page, for learners to keep.

Each step of the tour becomes a section: where it is (level, target, the selected item), the
step's texts, the explanation it shows (filled with the capture's figures), the selected item's
row and, on HLO levels, the lines of code around it, then the question it asks (never the
answer) and the command that shows the same screen. Everything that comes from a model,
a bundle or a tour is HTML-escaped: names and texts are shown as text, never as markup.
What a step selects and explains comes from `explorer.view`, as on screen.
"""

from __future__ import annotations

import argparse
import html
import re
import shlex

from explorer.bundle import Bundle
from explorer.course.labels import label
from explorer.course.tours import TWINS, Tour, TourStep
from explorer.errors import TensorwegError
from explorer.levels import LIST_LEVELS

_CODE_CONTEXT = 3  # lines of HLO shown before and after the selected instruction
_STYLE = """body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}
section{border-top:1px solid #999;margin-top:1.5em}pre{background:#f4f4f4;padding:.6em;overflow-x:auto}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
.where{color:#555}.question{border-left:4px solid #36c;padding-left:.6em}mark{background:#ffe08a}"""


def render_handout(bundle: Bundle, tour: Tour, model_argument: str) -> str:
    """The whole HTML page for `tour` on `bundle`, every word in the tour's language
    (`explorer.course.labels`); `model_argument` goes into the commands shown."""
    lang = tour.lang
    parts = [
        "<!DOCTYPE html>", f'<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{_text(tour.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_text(tour.title)}</h1>",
        f"<p>{_text(tour.outcome)}</p>" if tour.outcome else "",
        f"<p class=\"where\">{label('handout.model', lang)}: {_text(bundle.model_name)} · "
        f"{label('handout.targets', lang)}: {_text(', '.join(bundle.targets))}</p>",
    ]
    for index, step in enumerate(tour.steps):
        parts.append(_step_section(bundle, tour, index, step, model_argument))
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p) + "\n"


def _step_section(bundle: Bundle, tour: Tour, index: int, step: TourStep, model_argument: str) -> str:
    from explorer import view  # noqa: PLC0415

    lang = tour.lang
    selected = view.resolve_tour_step(bundle, step)
    where = f"{label(f'level.{step.level}', lang)} · {step.target}"
    if selected:
        where += f" · {selected}"
    elif step.selection is not None:
        where += f" {label('handout.selects_nothing', lang)}"
    out = [f'<section id="step-{index + 1}">',
           f"<h2>{label('word.step', lang)} {index + 1} {label('word.of', lang)} {len(tour.steps)}</h2>",
           f'<p class="where">{_text(where)}</p>']
    out += [f"<p>{_markdown_inline(paragraph)}</p>" for paragraph in step.text.split("\n\n") if paragraph]
    for explanation in _explanations(bundle, step, selected, lang):
        out.append(f"<h3>{_text(explanation.title)}</h3>")
        out += [f"<p>{_markdown_inline(p)}</p>" for p in explanation.body.split("\n\n") if p.strip()]
    if selected and step.level in LIST_LEVELS:
        item = next((i for i in view.rows(bundle, step.level, step.target, lang) if i.name == selected), None)
        if item is not None:
            header = "".join(f"<th>{_text(c)}</th>" for c in view.column_titles(step.level, lang))
            cells = "".join(f"<td>{_text(c)}</td>" for c in item.cells)
            out.append(f"<table><tr>{header}</tr><tr>{cells}</tr></table>")
            if item.line:
                out.append(_code_excerpt(bundle.hlo_text(step.target, step.level == "optimized-hlo"), item.line))
    if step.question is not None:
        hint = label("handout.hint", lang)
        out.append(f'<p class="question"><strong>{hint}:</strong> {_markdown_inline(step.question.hint)}</p>')
    command = ["tensorweg", "screenshot", model_argument, "--level", step.level, "--target", step.target,
               "--lang", lang, "--out", f"step-{index + 1}.svg"]
    if selected:
        command[7:7] = ["--select", selected]
    out.append(f"<p>{label('handout.command', lang)}</p><pre>{_text(shlex.join(command))}</pre>")
    out.append("</section>")
    return "\n".join(out)


def _explanations(bundle: Bundle, step: TourStep, selected: str | None, lang: str):
    from explorer import view  # noqa: PLC0415
    from explorer.course.lookup import explain_topic  # noqa: PLC0415

    if not step.explain:
        return ()
    if step.explain != "selected":
        return (explain_topic(step.explain, lang),)
    return view.explanations(bundle, step.level, step.target, selected, lang) if selected else ()


def _code_excerpt(code: str, line: int) -> str:
    lines = code.splitlines()
    start, end = max(0, line - 1 - _CODE_CONTEXT), min(len(lines), line + _CODE_CONTEXT)
    shown = [f"<mark>{_text(text)}</mark>" if number == line - 1 else _text(text)
             for number, text in enumerate(lines[start:end], start=start)]
    return "<pre>" + "\n".join(shown) + "</pre>"


def _text(value: str) -> str:
    return html.escape(value, quote=True)


def _markdown_inline(text: str) -> str:
    """Escaped text with the tours' inline Markdown kept: `code` and **bold** (nothing else is markup)."""
    escaped = _text(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)


# --- `tensorweg handout` ---------------------------------------------------------------------------


def _twin_in(tour_name: str, lang: str) -> str:
    """The built-in lesson `tour_name` in `lang`: itself, or its twin (`basics` -> `grundlagen`)."""
    for english, german in TWINS.items():
        if tour_name in (english, german):
            return german if lang == "de" else english
    return tour_name


def register(subparsers: argparse._SubParsersAction, capture_options_for) -> None:
    handout = subparsers.add_parser("handout", help="write a lesson as one static HTML page")
    handout.add_argument("model", metavar="PACK|MODEL", help="a lesson pack, bundle or model")
    handout.add_argument("--tour", required=True, help="a tour file, a built-in tour, or a tour in the pack")
    handout.add_argument("-o", "--output", required=True, help="the .html file to write")
    handout.add_argument("--lang", choices=("de", "en"), default=None,
                         help="the handout's language (default the tour's): a built-in tour's twin in it")
    capture_options_for(handout)
    handout.set_defaults(handler=run_handout)


def run_handout(args: argparse.Namespace) -> int:
    from pathlib import Path  # noqa: PLC0415

    from explorer.commands import (  # noqa: PLC0415
        capture_options,
        check_output_file,
        load_tour_argument,
        open_or_capture,
        write_output_file,
    )
    from explorer.pack import is_pack, open_pack  # noqa: PLC0415

    out = Path(args.output)
    check_output_file(out, ".html")
    name = _twin_in(args.tour, args.lang) if args.lang else args.tour
    tour = open_pack(Path(args.model)).tour(name) if is_pack(Path(args.model)) else None
    if tour is None:
        tour = load_tour_argument(name)
    if args.lang and tour.lang != args.lang:  # the words would be in one language, the lesson in another
        raise TensorwegError(f"--lang {args.lang}: the tour {args.tour} is written in {tour.lang} and has no "
                             f"twin in {args.lang}; leave out --lang")
    bundle = open_or_capture(args.model, capture_options(args))
    write_output_file(out, render_handout(bundle, tour, args.model))
    print(out)
    return 0
