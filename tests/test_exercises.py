"""Exercises in tours: the `ask:`/`hint:` format, answers checked against the recorded bundle,
and the tour panel answering right and wrong (Pilot)."""

from __future__ import annotations

import pytest

from explorer.course import exercises
from explorer.course.lessons import tour_candidates
from explorer.course.tours import builtin_tours, parse_tour
from explorer.errors import ParseError
from explorer.model.bundle import Bundle
from explorer.views.whatif.diff import layer_figures

from screens.app import create_app
from screens.tour import TourScreen, verdicts

from pilot_support import BUNDLE, needs_bundle, sync, wait_for_jumps

HEADER = "# title: Quiz\n# model: mnist_cnn\n# lang: {lang}\n\n"
QUIZ = """step: level=optimized-hlo target=tpu:v5e select=layer:conv2d,kind:convolution
text: Into which instruction did XLA fuse the convolution's bias? Select it.
ask: select=layer:conv2d,kind:fusion
hint: Look at the fusions that belong to conv2d.

step: level=memory target=cpu
text: Which target needs the most temporary memory?
ask: target=most:temp-bytes
hint: Compare the temp allocations on the memory level of each target.

step: level=kernels target=cpu
text: How many kernels did XLA:CPU emit?
ask: number=kernels
hint: Count the rows of the kernels level.

step: level=optimized-hlo target=tpu:v5e select=x.1
text: How many bytes of padding does the TPU tile add to this input?
ask: number=padding_bytes tolerance=1%
hint: The memory pane shows the bytes with and without padding.
"""


def quiz(lang: str = "en"):
    return parse_tour(HEADER.format(lang=lang) + QUIZ, "quiz.tour")


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(BUNDLE)


# --- the format ------------------------------------------------------------------------------


def test_questions_parse_with_their_hints():
    steps = quiz().steps
    select, target, count, padding = (step.question for step in steps)
    assert select.kind == "select" and select.selection.text == "layer:conv2d,kind:fusion"
    assert (target.kind, target.extreme, target.fact) == ("target", "most", "temp-bytes")
    assert (count.kind, count.fact, count.tolerance) == ("number", "kernels", 0.0)
    assert (padding.fact, padding.tolerance, padding.relative) == ("padding_bytes", 0.01, True)
    assert select.hint == "Look at the fusions that belong to conv2d."


def test_a_hint_continues_on_indented_lines():
    tour = parse_tour(HEADER.format(lang="de") + "step: level=kernels\ntext: Wie viele?\nask: number=kernels\n"
                      "hint: Zähle die Zeilen\n  der Kernel-Ebene.\n", "q.tour")
    assert tour.steps[0].question.hint == "Zähle die Zeilen der Kernel-Ebene."
    assert tour.steps[0].text == "Wie viele?"


BAD = [
    ("ask: number=kernels\n", "7:1: a step with 'ask:' needs a 'hint:'"),
    ("ask: guess=1\nhint: h\n", "7:6: unknown question 'guess'"),
    ("ask: number=kernels target=most:kernels\nhint: h\n", "7:6: 'ask:' needs exactly one of"),
    ("ask: target=kernels\nhint: h\n", "7:13: expected target=most:FACT"),
    ("ask: target=most:speed\nhint: h\n", "7:18: unknown fact 'speed'"),
    ("ask: number=speed\nhint: h\n", "7:13: unknown fact 'speed'"),
    ("ask: number=kernels tolerance=lots\nhint: h\n", "7:31: bad tolerance 'lots'"),
    ("ask: number=kernels tolerance=-1\nhint: h\n", "7:31: bad tolerance '-1'"),
    ("ask: select=layer:dense tolerance=1\nhint: h\n", "7:35: 'tolerance=' belongs to a number="),
    ("ask: select=layer:\nhint: h\n", "7:13: empty selector part"),
    ("ask: number=kernels number=bytes\nhint: h\n", "7:21: 'number=' given twice"),
    ("ask:\nhint: h\n", "7:5: 'ask:' needs exactly one of"),
    ('ask: bound=""\nhint: h\n', "7:12: expected bound=LAYER"),
    ("hint: h\n", "7:1: 'hint:' before the step's 'ask:'"),
    ("ask: number=kernels\nhint: h\nhint: again\n", "9:1: a question has at most one 'hint:'"),
    ("ask: number=kernels\nask: number=bytes\nhint: h\n", "8:1: a step has at most one 'ask:'"),
    ("ask: number=kernels\nhint:\n", "8:6: empty 'hint:'"),
    ("quiz: x\n", "7:1: unknown line kind 'quiz:' (known: step, text, explain, ask, hint)"),
]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("lines, message", BAD, ids=[m.split(": ", 1)[1][:40] for _, m in BAD])
def test_bad_questions_name_line_and_column(lines, message, lang):
    text = HEADER.format(lang=lang) + "step: level=kernels\ntext: Frage?\n" + lines
    with pytest.raises(ParseError) as raised:
        parse_tour(text, "q.tour")
    assert str(raised.value).startswith(f"q.tour:{message}")


def test_every_builtin_lesson_asks_at_least_one_question():
    for name, tour in builtin_tours():
        assert any(step.question is not None for step in tour.steps), name


# --- checking against the capture ------------------------------------------------------------


def test_select_question_is_right_for_a_conv2d_fusion_and_wrong_otherwise(bundle):
    step = quiz().steps[0]
    candidates = tour_candidates(bundle, step.level, step.target)
    fusion = next(c.name for c in candidates if c.layer == "conv2d" and "fusion" in c.kinds)
    other = next(c.name for c in candidates if c.layer == "dense" and "fusion" in c.kinds)
    assert exercises.check(bundle, step, fusion) == exercises.Verdict(True, "Right.", fusion)
    wrong = exercises.check(bundle, step, other)
    assert not wrong.correct and wrong.feedback == "Not quite. Look at the fusions that belong to conv2d."
    assert exercises.check(bundle, step, "no-such-instruction").correct is False
    assert exercises.check(bundle, step, "", "de").feedback == "Noch ist nichts ausgewählt."


def test_target_question_offers_the_bundles_targets_and_knows_the_largest(bundle):
    step = quiz().steps[1]
    temp = {t: sum(a.size for a in bundle.memory(t).allocations if a.kind in ("temp", "preallocated-temp"))
            for t in bundle.targets}
    largest = max(temp, key=temp.get)
    assert exercises.choices(bundle, step) == bundle.targets
    assert exercises.check(bundle, step, largest).correct
    assert not exercises.check(bundle, step, min(temp, key=temp.get)).correct
    assert exercises.check(bundle, step, "gpu:a100").feedback == "Choose one of: cpu, gpu:h100, tpu:v5e."


def test_number_questions_compare_with_the_capture_within_their_tolerance(bundle):
    kernels_step, padding_step = quiz().steps[2], quiz().steps[3]
    count = len(bundle.kernels("cpu"))
    assert exercises.check(bundle, kernels_step, str(count)).correct
    assert not exercises.check(bundle, kernels_step, str(count + 1)).correct
    assert exercises.check(bundle, kernels_step, "eight").feedback == "Please answer with a number."
    instruction = next(i for _, i in bundle.hlo_module("tpu:v5e", optimized=True).all_instructions() if i.name == "x.1")
    from explorer.hlo import layout_math

    padding = layout_math.padded_byte_size(instruction.shape) - layout_math.unpadded_byte_size(instruction.shape)
    assert exercises.check(bundle, padding_step, f"{padding:,}", selected="x.1").correct
    assert exercises.check(bundle, padding_step, str(round(padding * 1.009)), selected="x.1").correct
    assert not exercises.check(bundle, padding_step, str(round(padding * 1.02)), selected="x.1").correct
    assert exercises.check(bundle, padding_step, "1", selected=None).feedback == \
        "This capture cannot check this question."


def test_summary_counts_the_last_answers():
    right, wrong = exercises.Verdict(True, "Right.", "cpu"), exercises.Verdict(False, "Not quite.", "7")
    text = exercises.summary(5, (1, 2, 4), {1: right, 2: wrong}, "en")
    assert text.splitlines() == ["Step 2/5: right (cpu)", "Step 3/5: wrong (7)", "Step 5/5: not answered",
                                 "Your answers: 1 of 3 right."]


# --- the tour panel (Pilot) ----------------------------------------------------------------------


async def settle(pilot) -> None:
    await pilot.app.opened.wait()
    for _ in range(3):
        await pilot.pause()
    await wait_for_jumps(pilot)


@needs_bundle
@sync
async def test_learner_answers_in_the_tour_panel_right_and_wrong_and_sees_the_summary(tmp_path):
    tour = quiz()
    app = create_app(BUNDLE, tour=tour)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen
        assert isinstance(panel, TourScreen) and panel.index == 0
        # The step selected the convolution: answering with it is wrong and shows the hint.
        await pilot.press("a")
        await pilot.pause()
        feedback = str(panel.query_one("#tour-feedback").render())
        assert "Look at the fusions that belong to conv2d." in feedback
        # `]` moves the selection above until it is conv2d's fusion; then `a` is right.
        for _ in range(200):
            name = app.selections.get("optimized-hlo")
            if app.trace.layer_of("optimized-hlo", name, "tpu:v5e") == "conv2d" and "fusion" in name:
                break
            await pilot.press("right_square_bracket")
            await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert "Right." in str(panel.query_one("#tour-feedback").render())
        assert verdicts(app, tour)[0].correct
        # Step 2: a target; a wrong one first.
        await pilot.press("n")
        await settle(pilot)
        panel = app.screen
        assert "cpu, gpu:h100, tpu:v5e" in str(panel.query_one("#tour-question").render())
        await pilot.press("a", *"cpu", "enter")
        await pilot.pause()
        assert "Compare the temp allocations" in str(panel.query_one("#tour-feedback").render())
        assert panel.focused is None  # n/p/q are the tour's keys again
        await pilot.press("a", *"tpu:v5e", "enter")  # `a` selects the old answer: typing replaces it
        await pilot.pause()
        assert "Right." in str(panel.query_one("#tour-feedback").render())
        # Step 3 and 4: numbers; leave step 4 unanswered and look at the summary.
        await pilot.press("n")
        await settle(pilot)
        count = len(app.bundle.kernels("cpu"))
        await pilot.press("a", *str(count), "enter")
        await pilot.pause()
        assert "Right." in str(app.screen.query_one("#tour-feedback").render())
        await pilot.press("n")
        await settle(pilot)
        summary = str(app.screen.query_one("#tour-summary").render())
        assert "Step 1/4: right" in summary and "Step 3/4: right" in summary
        assert "Step 4/4: not answered" in summary
        assert "Step 2/4: right (tpu:v5e)" in summary  # the last answer counts
        assert summary.endswith("Your answers: 3 of 4 right.")


# --- e2e: every built-in question can be answered on a real capture -----------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("name", [name for name, _ in builtin_tours()])
def test_every_builtin_question_is_answerable_on_a_real_capture(name, tmp_path_factory):
    from test_course import sample_bundle  # the shared captures of the other built-in tour tests

    from explorer.course.lessons import resolve_tour_step
    from explorer.course.tours import builtin_tour, capture_options, meets

    tour = builtin_tour(name)
    bundle = sample_bundle(tmp_path_factory, tour.model, capture_options(tour))
    for step in tour.steps:
        question = step.question
        if question is None:
            continue
        if question.kind == "select":
            candidates = tour_candidates(bundle, step.level, step.target)
            assert any(meets(question.selection, c) for c in candidates), f"line {step.line}: no right answer"
        else:
            selected = resolve_tour_step(bundle, step)
            assert exercises.expected(bundle, step, selected) is not None, f"line {step.line}: cannot be checked"


@needs_bundle
def test_snapshot_question_answered_wrong(snap_compare):
    """Step 6 of 'A tensor's way down to the registers' at 100x32, answered with `a` while the
    convolution is still selected: the optimized HLO above with convolution.1 selected; in the
    tour panel the step's text, the question paragraph ('which instruction did XLA fuse the bias
    and the ReLU into?'), 'Not quite.' with the hint about a kLoop fusion of conv2d, and the keys
    line ending in '[ ] move the selection above   a answer with it'."""
    from explorer.course.tours import builtin_tour

    app = create_app(BUNDLE, tour=builtin_tour("tensor_to_registers"))
    assert snap_compare(app, press=["n"] * 5 + ["a"], run_before=settle, terminal_size=(100, 32))


BOUND_QUIZ = """step: level=optimized-hlo target=tpu:v5e select=layer:conv2d,kind:fusion
text: Predict: is conv2d compute-bound or memory-bound on the v5e?
ask: bound=conv2d
hint: Compare its FLOPs with the bytes it moves.

step: level=optimized-hlo target=cpu select=layer:conv2d,kind:fusion
text: And on the CPU?
ask: bound=conv2d
hint: The CPU has no published peak figures.
"""


def test_a_bound_question_is_checked_against_the_layers_bound_as_the_diff_reads_it(bundle):
    tpu_step, cpu_step = parse_tour(HEADER.format(lang="en") + BOUND_QUIZ, "bound.tour").steps
    bound = layer_figures(bundle, "conv2d", "tpu:v5e").bound
    other = next(b for b in exercises.choices(bundle, tpu_step) if b != bound)
    assert exercises.choices(bundle, tpu_step) == ("compute", "memory")
    assert exercises.check(bundle, tpu_step, bound).correct
    assert not exercises.check(bundle, tpu_step, other).correct
    assert exercises.check(bundle, tpu_step, "fast").feedback == "Choose one of: compute, memory."
    assert exercises.check(bundle, cpu_step, "memory").feedback == "This capture cannot check this question."
