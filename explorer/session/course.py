"""What the course offers the screens: lessons, their exercises, explanations by topic, the glossary.

The tour panel, the lesson list and the glossary import these from here (the door), not from
`explorer.course` and `explorer.texts`: one place says what of the course a screen may use. The
learner's answers live in the session (`SessionService.verdicts`).
"""

from __future__ import annotations

from explorer.course.exercises import Verdict, check, choices, summary
from explorer.course.lessons import LessonChoice, lesson_choices
from explorer.course.step_text import step_text
from explorer.course.tours import Tour, TourStep
from explorer.texts.glossary import GlossaryEntry, search_glossary
from explorer.texts.lookup import explain_topic

__all__ = ["GlossaryEntry", "LessonChoice", "Tour", "TourStep", "Verdict", "check", "choices", "explain_topic",
           "lesson_choices", "search_glossary", "step_text", "summary"]
