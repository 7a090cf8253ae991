"""Guided tours in the UI: a panel over the level screens, and the list of built-in tours.

Where a step takes the app (level, target, selection) is decided in the course
(`explorer.course.lessons.tour_step_place`); the app goes there the way a learner would
(`TensorwegApp.show_tour_step`), so what a tour shows is exactly what the level screens
show. The tour panel is a modal screen with a see-through background docked at the
bottom: the level screen stays visible above it, and n/p/q reach the tour instead of
the item table.

Each mode (level) has its own screen stack, so a step pops the panel from the
old level, switches, and pushes a fresh panel onto the new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from rich.markdown import Markdown
from textual import on
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from explorer.course import exercises
from explorer.course.lessons import LessonChoice, lesson_choices
from explorer.course.step_text import step_text
from explorer.course.tours import Tour, TourStep
from explorer.labels import label
from explorer.levels import level_named
from explorer.safe_text import visible
from explorer.texts.lookup import explain_topic
from explorer.views.rows import rows
from explorer.views.tables import Selection

from screens.bindings import keyed
from screens.widgets.explanation_pane import explanation_markdown

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle

CSS_PATH = Path(__file__).with_suffix(".tcss")
# Each app's answers: (tour source and title, step index) -> the last verdict (the lesson's summary).
_VERDICTS: WeakKeyDictionary = WeakKeyDictionary()


def verdicts(app: App, tour: Tour) -> dict[int, exercises.Verdict]:
    """The learner's answers to `tour` in this app so far: step index -> last verdict."""
    return _VERDICTS.setdefault(app, {}).setdefault((tour.source, tour.title), {})


def _on_panel_shown(app: App, action: str, args: tuple) -> None:
    """A key's action on the panel on top now (queued behind the step that put it there)."""
    if isinstance(app.screen, TourScreen):
        getattr(app.screen, action)(*args)


# --- the panel -----------------------------------------------------------------------


class TourScreen(ModalScreen):
    CSS_PATH = CSS_PATH
    BINDINGS = [
        keyed("n,right", "step(1)", "tour.next"),
        keyed("p,left", "step(-1)", "tour.previous"),
        keyed("q,escape", "leave", "tour.leave"),
        # A modal screen hides the app's bindings, so the course keys are repeated here.
        keyed("L", "app.toggle_language", "tour.language"),
        keyed("G", "app.glossary", "tour.glossary"),
        keyed("a", "answer", "tour.answer"),
        keyed("right_square_bracket", "move(1)", "tour.next_item"),
        keyed("left_square_bracket", "move(-1)", "tour.previous_item"),
    ]

    def __init__(self, tour: Tour, index: int, selected: str | None) -> None:
        super().__init__()
        self.tour = tour
        self.index = index
        self.selected = selected
        self._next_step_asked = False  # a step key was handled here: the next panel takes the keys

    def _handed_on(self, action: str, *args) -> bool:
        """Whether a key's action belongs to the next step's panel, and went there.

        A step key shows the next step on the app's loop (`TensorwegApp.show_tour_step`); until then this panel is
        on top and gets the keys typed after it (fast, or on a busy machine): `n` again counted
        from this step (the next step shown twice), `a` answering this step instead of the next.
        Queued behind that step, they reach its panel in the order they were typed.
        """
        if not self._next_step_asked:
            return False
        self.app.call_later(_on_panel_shown, self.app, action, args)
        return True

    @property
    def step(self) -> TourStep:
        return self.tour.steps[self.index]

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-box"):
            yield Static("", id="tour-heading")
            with VerticalScroll(id="tour-scroll"):
                yield Static("", id="tour-text")
                # The question's parts come before the explanation, so the feedback shows without scrolling.
                yield Static("", id="tour-question")
                yield Input(id="tour-answer", compact=True)
                yield Static("", id="tour-feedback")
                yield Static("", id="tour-summary")
                yield Static("", id="tour-explanation")
            yield Static("", id="tour-keys")

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Render the step; interface words follow the app's language, texts the tour's."""
        lang = getattr(self.app, "lang", "en")
        step = self.step
        box = self.query_one("#tour-box", Vertical)
        # The tour's title and the selected name come from files: text, never markup, and
        # their control characters shown, never obeyed (explorer.safe_text).
        box.border_title = Content(visible(f"{label('pane.tour', lang)}: {self.tour.title}"))
        box.border_subtitle = (f"{label('word.step', lang)} {self.index + 1} "
                               f"{label('word.of', lang)} {len(self.tour.steps)}")
        where = f"{label(level_named(step.level).title_key, lang)} · {step.target}"
        if self.selected:
            where += f" · {self.selected}"
        elif step.selection is not None:
            where += " " + label("text.tour_matches_nothing", lang).format(selector=step.selection.text)
        self.query_one("#tour-heading", Static).update(Content(visible(where)))
        # The step's figures ({vector_register} ...) come from the open capture, not from the lesson.
        text = step_text(self.app.bundle, step, self.tour.lang)
        self.query_one("#tour-text", Static).update(Markdown(visible(text, multiline=True)) if text else "")
        self.query_one("#tour-explanation", Static).update(Markdown(visible(self.explanation(), multiline=True)))
        keys = label("text.tour_keys", lang)
        question = step.question
        if question is not None:
            answer = "text.tour_answer_select" if question.kind == "select" else "text.tour_answer_other"
            keys += "   " + label(answer, lang)
        self.query_one("#tour-keys", Static).update(keys)
        self.sync_question()

    def sync_question(self) -> None:
        """The question's choices, the learner's last answer and its feedback; the summary on the last step."""
        step, app = self.step, self.app
        answer_box = self.query_one("#tour-answer", Input)
        answer_box.display = step.question is not None and step.question.kind != "select"
        answer_box.can_focus = answer_box.has_focus  # focusable only after `a`: n/p/q stay the tour's keys
        choices = exercises.choices(app.bundle, step) if app.bundle is not None else ()
        verdict = verdicts(app, self.tour).get(self.index)  # type: ignore[arg-type]
        asked = tuple(i for i, s in enumerate(self.tour.steps) if s.question is not None)
        last = self.index == len(self.tour.steps) - 1
        texts = {
            "#tour-question": label("text.tour_choices", self.tour.lang).format(choices=", ".join(choices))
            if choices else "",
            "#tour-feedback": verdict.feedback if verdict else "",
            "#tour-summary": exercises.summary(len(self.tour.steps), asked, verdicts(app, self.tour), self.tour.lang)
            if last and asked else "",
        }
        for selector, text in texts.items():  # a step without a question looks as it did before exercises
            widget = self.query_one(selector, Static)
            widget.update(Content(visible(text, multiline=True)))
            widget.display = bool(text)

    def explanation(self) -> str:
        """The step's `explain:` text in the tour's language ("" when it has none)."""
        step, lang = self.step, self.tour.lang
        if not step.explain:
            return ""
        if step.explain != "selected":
            text = explain_topic(step.explain, lang)
            return f"**{text.title}**\n\n{text.body}"
        app = self.app
        if not self.selected or app.bundle is None:
            return ""
        return explanation_markdown(Selection(app.bundle, step.level, step.target, self.selected, lang))

    def action_step(self, delta: int) -> None:
        if self._handed_on("action_step", delta):
            return
        index = self.index + delta
        if 0 <= index < len(self.tour.steps):
            self._next_step_asked = True
            self.app.begin_tour(self.tour, index)

    def action_leave(self) -> None:
        if self._handed_on("action_leave"):
            return
        self.dismiss()

    # --- answering ---------------------------------------------------------------

    def action_answer(self) -> None:
        """`a`: a select question is answered with the item selected above; others type into the box."""
        if self._handed_on("action_answer"):
            return
        question = self.step.question
        if question is None or self.app.bundle is None:
            return
        if question.kind == "select":
            self.record(self.app.selections.get(self.step.level, ""))
        else:
            box = self.query_one("#tour-answer", Input)
            box.can_focus = True
            box.focus()

    @on(Input.Submitted, "#tour-answer")
    def _submitted(self, event: Input.Submitted) -> None:
        self.record(event.value)
        self.set_focus(None)  # n/p/q reach the tour again

    def record(self, answer: str) -> exercises.Verdict:
        """Check `answer` against the capture, keep the verdict for the summary, show its feedback."""
        verdict = exercises.check(self.app.bundle, self.step, answer, self.tour.lang, self.selected)
        verdicts(self.app, self.tour)[self.index] = verdict  # type: ignore[arg-type]
        self.sync_question()
        return verdict

    def action_move(self, delta: int) -> None:
        """`[`/`]`: select the previous/next item of the level above (the panel keeps the keys)."""
        if self._handed_on("action_move", delta):
            return
        app, step = self.app, self.step
        if step.question is None or step.question.kind != "select" or app.bundle is None:
            return
        names = [item.name for item in rows(app.bundle, step.level, step.target)]
        if not names:
            return
        current = app.selections.get(step.level)
        index = names.index(current) + delta if current in names else 0
        app.goto_level(step.level, names[max(0, min(index, len(names) - 1))])


# --- the list of built-in tours (`T`) --------------------------------------------------


class TourListScreen(ModalScreen[Tour | None]):
    """Pick a built-in tour; dismisses with the Tour (or None on Esc)."""

    CSS_PATH = CSS_PATH
    BINDINGS = [keyed("escape,q", "dismiss(None)", "tours.close")]

    def __init__(self, lang: str, bundle: Bundle | None = None) -> None:
        super().__init__()
        self.lang = lang
        # Those the open bundle has the capture for are chosen; the others say what they need.
        self.choices = lesson_choices(bundle, lang)
        self.tours = [(choice.name, choice.tour) for choice in self.choices]

    def compose(self) -> ComposeResult:
        with Vertical(id="tour-list-box") as box:
            box.border_title = label("pane.tour", self.lang)
            yield OptionList(*[self._option(choice) for choice in self.choices], id="tour-list")
            yield Static("", id="tour-list-description")

    @staticmethod
    def _option(choice: LessonChoice) -> Option:
        tour = choice.tour
        text = Content(visible(f"{tour.title}  [{tour.lang}, {tour.model}]"))
        if choice.needs:
            text = Content.assemble(text, "\n  ", Content(visible(choice.needs)))
        return Option(text, id=choice.name, disabled=bool(choice.needs))

    def on_mount(self) -> None:
        self.query_one("#tour-list", OptionList).highlighted = 0

    @on(OptionList.OptionHighlighted, "#tour-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        tour = self.tours[event.option_index][1]
        self.query_one("#tour-list-description", Static).update(
            Content(visible(tour.description or tour.outcome, multiline=True)))

    @on(OptionList.OptionSelected, "#tour-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.tours[event.option_index][1])
