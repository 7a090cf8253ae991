"""Exercises: tour steps that ask a question whose answer is checked against the capture.

A step's `ask:` line (docs/tours.md) is one of

- `select=SELECTOR`: the learner selects an item of the step's level; right when it meets the
  selector (the same conditions as `select=`, checked on `explorer.course.lessons.tour_candidates`);
- `target=most:FACT` or `target=least:FACT`: multiple choice among the bundle's targets;
- `number=FACT` (optionally `tolerance=N` or `tolerance=N%`): a number, compared with the
  capture's figure;
- `bound=LAYER`: compute or memory, the layer's roofline bound on the step's target as the what-if
  diff reads it (`explorer.views.whatif.diff.layer_figures`: the bound holding most of its time).

FACTs are per target (`TARGET_FACTS`) or figures of the step's selected item (`ITEM_FIGURES`,
the same figures that fill the explanations' placeholders, `explorer.views.explain.figures`). Every
question carries a `hint:` that a wrong answer shows. Nothing here imports Textual.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.course.selectors import Selection
    from explorer.course.tours.parser import TourStep
    from explorer.model.bundle import Bundle

from explorer.course.lessons import tour_candidates
from explorer.course.questions import BOUNDS, TARGET_FACTS, Question, Verdict, parse_number, words
from explorer.course.tours import meets
from explorer.views.explain import figures
from explorer.views.whatif.diff import layer_figures


def choices(bundle: Bundle, step: TourStep) -> tuple[str, ...]:
    """The answers a `target=` question offers (the bundle's targets that have the fact), or a
    `bound=` question's (compute, memory)."""
    question = step.question
    if question is not None and question.kind == "bound":
        return BOUNDS
    if question is None or question.kind != "target":
        return ()
    return tuple(t for t in bundle.targets if target_fact(bundle, t, question.fact) is not None)


def target_fact(bundle: Bundle, target: str, fact: str) -> int | None:
    """A per-target fact from the capture, or None where that level was not captured."""
    if fact == "kernels":
        return len(bundle.kernels(target)) if bundle.status("kernels", target).status == "ok" else None
    memory = bundle.memory(target)
    if memory is None:
        return None
    if fact == "peak-bytes":
        return memory.peak_bytes
    return sum(a.size for a in memory.allocations if a.kind in ("temp", "preallocated-temp"))


def expected(bundle: Bundle, step: TourStep, selected: str | None = None) -> tuple[str, ...] | float | None:
    """The right answers: targets (target=), a number (number=), the bound (bound=); None when the
    capture cannot say.

    `selected`: the item the step selected (number questions about an item's figure).
    """
    question = step.question
    if question is None or question.kind == "select":
        return None
    if question.kind == "bound":
        if step.target not in bundle.targets:
            return None
        bound = layer_figures(bundle, question.fact, step.target).bound
        return (bound,) if bound else None
    if question.kind == "target":
        # choices() offers only the targets that have the fact: the filter drops nothing, it types the values.
        values = {t: fact for t in choices(bundle, step) if (fact := target_fact(bundle, t, question.fact)) is not None}
        if not values:
            return None
        best = (max if question.extreme == "most" else min)(values.values())
        return tuple(t for t, v in values.items() if v == best)
    if question.fact in TARGET_FACTS:
        return target_fact(bundle, step.target, question.fact)
    if not selected:
        return None

    value = dict(figures(bundle, step.level, step.target, selected)).get(question.fact)
    return value if isinstance(value, int | float) else None


def check(bundle: Bundle, step: TourStep, answer: str, lang: str = "en", selected: str | None = None) -> Verdict:
    """Check the learner's `answer` (an item name, a target, or a number as typed)."""
    question = step.question
    assert question is not None, "check() is for steps with a question"
    said = words(lang)
    answer = answer.strip()
    if question.kind == "select":
        if not answer:
            return Verdict(False, said["nothing_selected"], answer)
        return _verdict(_meets(bundle, step, question.selection, answer), question, said, answer)
    right = expected(bundle, step, selected)
    if right is None:
        return Verdict(False, said["cannot_check"], answer)
    if question.kind in ("target", "bound"):
        offered = choices(bundle, step)
        if answer not in offered:
            return Verdict(False, said["unknown_target"].format(", ".join(offered)), answer)
        assert isinstance(right, tuple)  # expected() answers these kinds with targets
        return _verdict(answer in right, question, said, answer)
    assert not isinstance(right, tuple)  # every other kind has a number for its answer
    number = parse_number(answer)
    if number is None:
        return Verdict(False, said["no_number"], answer)
    allowed = question.tolerance * abs(right) if question.relative else question.tolerance
    return _verdict(abs(number - right) <= allowed, question, said, answer)


def _verdict(correct: bool, question: Question, said: dict[str, str], answer: str) -> Verdict:
    return Verdict(True, said["right"], answer) if correct else Verdict(False, f"{said['wrong']} {question.hint}",
                                                                         answer)


def _meets(bundle: Bundle, step: TourStep, selection: Selection | None, name: str) -> bool:
    candidate = next((c for c in tour_candidates(bundle, step.level, step.target) if c.name == name), None)
    return candidate is not None and selection is not None and meets(selection, candidate)


def summary(step_count: int, questions: tuple[int, ...], verdicts: Mapping[int, Verdict], lang: str) -> str:
    """The end-of-lesson summary: one line per question (by step number), then the score.

    `verdicts`: step index -> the learner's last verdict on it.
    """
    said = words(lang)
    lines = []
    for index in questions:
        verdict = verdicts.get(index)
        state = said["unanswered"] if verdict is None else said["right_word" if verdict.correct else "wrong_word"]
        shown = f" ({verdict.answer})" if verdict is not None and verdict.answer else ""
        lines.append(f"{said['step']} {index + 1}/{step_count}: {state}{shown}")
    right = sum(1 for index in questions if (v := verdicts.get(index)) is not None and v.correct)
    lines.append(said["summary"].format(right, len(questions)))
    return "\n".join(lines)
