"""A tour step's question (`ask:`): its kinds, what it may ask about, and the words of a verdict.

The tour parser reads questions into these; `explorer.course.exercises` checks answers against a bundle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.course.selectors import Selection



QUESTION_KINDS = ("select", "target", "number", "bound")


# Facts of one target, computed from its captured levels.
TARGET_FACTS = ("temp-bytes", "peak-bytes", "kernels")


# Figures of the step's selected item (explorer.views.explain.figures).
ITEM_FIGURES = ("bytes", "padding_bytes", "vector_width_bits")


# Figures a step's `text:` may quote as `{name}` (explorer.course.step_text): the item's figures, and the
# widest vector register of the kernel computing it, read from the learner's capture (`xmm`, `ymm`, `zmm`).
TEXT_FIGURES = (*ITEM_FIGURES, "vector_register")


EXTREMES = ("most", "least")


# `bound=LAYER`: the learner predicts the layer's roofline bound on the step's target, as the
# what-if diff computes it (explorer.views.whatif.diff.layer_figures).
BOUNDS = ("compute", "memory")


_WORDS = {
    "en": {"right": "Right.", "wrong": "Not quite.", "answer": "Answer", "unanswered": "not answered",
           "no_number": "Please answer with a number.", "unknown_target": "Choose one of: {}.",
           "nothing_selected": "Nothing is selected yet.", "cannot_check": "This capture cannot check this question.",
           "summary": "Your answers: {} of {} right.", "step": "Step", "right_word": "right", "wrong_word": "wrong"},
    "de": {"right": "Richtig.", "wrong": "Noch nicht.", "answer": "Antwort", "unanswered": "nicht beantwortet",
           "no_number": "Bitte mit einer Zahl antworten.", "unknown_target": "Wählen Sie eines von: {}.",
           "nothing_selected": "Noch ist nichts ausgewählt.",
           "cannot_check": "Diese Erfassung kann diese Frage nicht prüfen.",
           "summary": "Ihre Antworten: {} von {} richtig.", "step": "Schritt", "right_word": "richtig",
           "wrong_word": "falsch"},
}


@dataclass(frozen=True)
class Question:
    """What a step asks. `kind`: select, target, number or bound.

    selection: for select. fact: for target and number; the layer for bound. extreme: most or least (target).
    tolerance: for number; relative (a fraction) when `relative`, else absolute.
    """

    kind: str
    hint: str = ""
    selection: Selection | None = None
    fact: str = ""
    extreme: str = ""
    tolerance: float = 0.0
    relative: bool = False


@dataclass(frozen=True)
class Verdict:
    """The check of one answer: `feedback` is what the learner reads (the hint when wrong)."""

    correct: bool
    feedback: str
    answer: str = ""


def words(lang: str) -> dict[str, str]:
    return _WORDS.get(lang, _WORDS["en"])


_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")


def parse_number(text: str) -> float | None:
    """`1234`, `1,234`, `1 234`, `1_234`, `12.5`; None for anything else."""
    cleaned = re.sub(r"[,_\s]", "", text)
    return float(cleaned) if _NUMBER.match(cleaned) else None
