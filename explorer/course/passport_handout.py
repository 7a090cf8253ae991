"""The passport as a folder (`tensorweg passport ... -o DIR`): `passport.md` and `passport.html`,
escaped as the handouts are (`handout_markdown.escape_markdown`, `handout._text`) and passed
whole through `explorer.safe_text.visible`: a layer's or a file's name renders as the text it is."""

from __future__ import annotations

import re

from explorer.course.handout import _STYLE, _text
from explorer.course.handout_markdown import _fenced, escape_markdown
from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.passport import Passport
from explorer.views.passport.text import hop_heading, title

PASSPORT_FILES = re.compile(r"passport\.(md|html)")


def _notes(hop, lang: str) -> list[str]:
    notes = [f"{label('passport.evidence', lang)}: {label(f'passport.ev.{hop.evidence}', lang)}"]
    if hop.heuristic:
        notes.append(f"{label('passport.heuristic', lang)}: {hop.heuristic}")
    return notes


def render_markdown(passport: Passport, lang: str) -> str:
    out = [f"# {escape_markdown(title(passport, lang))}", ""]
    if passport.went:
        out += [escape_markdown(passport.went), ""]
    for number, hop in enumerate(passport.hops, 1):
        out += [f"## {escape_markdown(hop_heading(hop, number, lang))}", ""]
        out += [escape_markdown(hop.missing), ""] if hop.missing else [*_fenced(list(hop.lines)), ""]
        out += [f"*{escape_markdown(note)}*" + "  " for note in _notes(hop, lang)] + [""]
    return visible("\n".join(out).rstrip("\n") + "\n", multiline=True)


def render_html(passport: Passport, lang: str) -> str:
    heading = title(passport, lang)
    parts = ["<!DOCTYPE html>", f'<html lang="{lang}"><head><meta charset="utf-8">',
             f"<title>{_text(heading)}</title><style>{_STYLE}</style></head><body>", f"<h1>{_text(heading)}</h1>"]
    if passport.went:
        parts.append(f"<p>{_text(passport.went)}</p>")
    for number, hop in enumerate(passport.hops, 1):
        parts.append(f'<section id="hop-{number}"><h2>{_text(hop_heading(hop, number, lang))}</h2>')
        parts.append(f"<p>{_text(hop.missing)}</p>" if hop.missing
                     else "<pre>" + "\n".join(_text(line) for line in hop.lines) + "</pre>")
        parts += [f'<p class="where">{_text(note)}</p>' for note in _notes(hop, lang)]
        parts.append("</section>")
    parts.append("</body></html>")
    return visible("\n".join(parts) + "\n", multiline=True)


def passport_files(passport: Passport, lang: str) -> dict[str, str]:
    return {"passport.md": render_markdown(passport, lang), "passport.html": render_html(passport, lang)}
