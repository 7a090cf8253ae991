"""The German course speaks to its readers with one voice, *Sie* (issue 25): no *du*, *dich*,
*dir*, *dein...* and none of the *du* imperatives the texts used before, in any text, glossary
entry, tour, label or answer feedback the German side shows."""

from __future__ import annotations

import re

import pytest

from explorer.course.questions import words
from explorer.course.tours import builtin_tours
from explorer.labels import LABELS
from explorer.texts.content_files import load_language
from explorer.texts.glossary import glossary

DU_PRONOUNS = re.compile(r"\b([Dd]u|[Dd]ich|[Dd]ir|[Dd]ein|[Dd]eine|[Dd]einem|[Dd]einen|[Dd]einer|[Dd]eines)\b")
# The du imperatives the course used (issue 25), as whole words. "Suche" and "Vergleiche" are
# nouns too, and "achte" an ordinal, so those count only with the words that made them orders.
DU_IMPERATIVES = re.compile(
    r"\b(Drücke|[Tt]ippe|[Aa]ntworte|[Bb]ewege|[Vv]erschiebe|[Ww]ähle|[Zz]ähle|[Gg]ib)\b"
    r"|\b([Ss]uche|[Vv]ergleiche) (die|das|den|ein|eine|einen)\b|\b[Aa]chte auf\b")


def _german_strings() -> list[tuple[str, str]]:
    found = [(f"text {key}", text.title + " " + text.body) for key, text in load_language("de").items()]
    found += [(f"glossary {entry.term}", entry.term + " " + entry.definition) for entry in glossary("de")]
    for name, tour in builtin_tours("de"):
        found.append((f"tour {name}", " ".join((tour.title, tour.outcome, tour.description))))
        for step in tour.steps:
            hint = step.question.hint if step.question else ""
            found.append((f"tour {name}:{step.line}", step.text + " " + hint))
    found += [(f"label {key}", de) for key, (_, de) in LABELS.items()]
    found += [(f"answer word {key}", word) for key, word in words("de").items()]
    return found


def _du_forms(text: str) -> list[str]:
    return [match.group(0) for pattern in (DU_PRONOUNS, DU_IMPERATIVES) for match in pattern.finditer(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Drücke `a` und tippe die Zahl.", ["Drücke", "tippe"]),
    ("Suche das while der Schicht lstm.", ["Suche das"]),
    ("Achte auf neue Zeilen; dein Ergebnis zählt.", ["dein", "Achte auf"]),
    ("Drücken Sie `a` und tippen Sie die Zahl. Die Suche im Produkt; der achte Schritt; -o DIR.", []),
    ("Ergebnisse der Vergleiche, Zählerstände, Bewegung", []),
])
def test_the_du_check_finds_du_forms_and_nothing_else(text, expected):
    assert _du_forms(text) == expected


def test_no_german_text_tour_label_or_answer_word_says_du():
    strings = _german_strings()
    assert len(strings) > 500
    hits = [(where, _du_forms(text)) for where, text in strings if _du_forms(text)]
    assert not hits, hits
