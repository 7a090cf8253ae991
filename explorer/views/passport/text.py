"""The passport as text (`tensorweg passport`, the `P` screen's lines) and as JSON (`--json`,
docs/inspect-json.md "tensorweg passport --json"). The JSON keeps exact names and English words."""

from __future__ import annotations

import json
from typing import Any

from explorer.labels import label
from explorer.views.passport import Passport
from explorer.views.passport.hops import Hop


def title(passport: Passport, lang: str) -> str:
    level, item = passport.item
    if item:
        return label("passport.title_item", lang).format(item=item, level=label(f"level.{level}", lang),
                                                          target=passport.target)
    return label("passport.title", lang).format(layer=passport.layer, target=passport.target)


def hop_heading(hop: Hop, number: int, lang: str) -> str:
    name = f": {hop.name}" if hop.name else ""
    return f"{number}. {label(f'passport.hop.{hop.level}', lang)}{name}"


def hop_lines(hop: Hop, lang: str) -> tuple[str, ...]:
    """A hop's body: what it shows (or why nothing), then its evidence and where it guesses."""
    body = hop.lines if not hop.missing else (hop.missing,)
    notes = (f"{label('passport.evidence', lang)}: {label(f'passport.ev.{hop.evidence}', lang)}",)
    if hop.heuristic:
        notes += (f"{label('passport.heuristic', lang)}: {hop.heuristic}",)
    return body + notes


def as_text(passport: Passport, lang: str = "en") -> str:
    lines = [title(passport, lang)]
    if passport.went:
        lines.append(passport.went)
    for number, hop in enumerate(passport.hops, 1):
        lines += ["", hop_heading(hop, number, lang)]
        lines += [f"   {line}" for line in hop_lines(hop, lang)]
    return "\n".join(lines)


def hop_data(hop: Hop) -> dict[str, Any]:
    return {"level": hop.level, "name": hop.name, "evidence": label(f"passport.ev.{hop.evidence}", "en"),
            "heuristic": hop.heuristic, "recovered": not hop.missing, "missing": hop.missing,
            "lines": list(hop.lines), **dict(hop.details)}


def passport_data(passport: Passport) -> dict[str, Any]:
    """The JSON document (build the passport with lang="en": its notes are in English)."""
    level, item = passport.item
    return {"schema_version": 1, "model": passport.model, "target": passport.target, "layer": passport.layer,
            "item": {"level": level, "name": item} if item else None, "tensor": passport.tensor,
            "went": passport.went, "hops": [hop_data(hop) for hop in passport.hops]}


def as_json(passport: Passport) -> str:
    return json.dumps(passport_data(passport), indent=1)
