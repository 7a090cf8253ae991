"""The explanation pane draws the course's texts without a Markdown parser (`screens.widgets.course_text`):
every content file keeps to what it draws, and what it draws is what Markdown would show."""

from __future__ import annotations

import pytest
from rich.console import Console

from explorer.texts.content_files import LANGUAGES, load_language
from explorer.texts.lookup import Explanation

from screens.widgets.course_text import course_text, paragraph_text, unsupported_lines


def drawn(texts, width: int = 60) -> str:
    console = Console(width=width, color_system=None, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(course_text(texts, "Source"))
    return console.export_text()


def spans(text) -> list[tuple[str, str]]:
    return [(text.plain[span.start:span.end], str(span.style)) for span in text.spans]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_content_file_keeps_to_what_the_pane_draws(lang):
    """A heading, list, quote, table, fence, HTML or link in a text would show as its raw marks."""
    found = {content.path: unsupported_lines(content.body) for content in load_language(lang).values()}
    assert len(found) > 100
    assert {path: lines for path, lines in found.items() if lines} == {}


@pytest.mark.parametrize(("line", "problem"), [
    ("# A heading", True), ("- a list item", True), ("1. a numbered item", True), ("> a quote", True),
    ("| a | table |", True), ("```python", True), ("<details>", True), ("see [XLA](https://openxla.org)", True),
    ("A tensor of shape `f32[8]`, *not* a list.", False), ("-1 is a plain number", False),
])
def test_what_counts_as_markdown_the_pane_does_not_draw(line, problem):
    assert bool(unsupported_lines(f"First line.\n{line}")) is problem


def test_inline_code_strong_and_emphasis_are_styled_and_their_marks_dropped():
    text = paragraph_text("A `dot` op, **fused** into *one* kernel, _once_.")
    assert text.plain == "A dot op, fused into one kernel, once."
    assert spans(text) == [("dot", "markdown.code"), ("fused", "markdown.strong"),
                           ("one", "markdown.em"), ("once", "markdown.em")]


def test_marks_inside_words_and_names_stay_as_written():
    """`mxu_count`, `_FusedConv2D` and `a * b` are not emphasis in CommonMark: nor here."""
    text = paragraph_text("mxu_count and _FusedConv2D, a * b * c, 2*3*4")
    assert text.plain == "mxu_count and _FusedConv2D, a * b * c, 2*3*4"
    assert text.spans == []


def test_a_soft_line_break_joins_a_paragraph_and_a_blank_line_splits_it():
    body = "One kernel\ninstead of two.\n\nFewer trips to memory."
    first = Explanation("k", "Fusion", body, "XLA docs", (), "specific")
    lines = [line.strip() for line in drawn([first]).splitlines()]
    assert lines == ["Fusion", "", "One kernel instead of two.", "", "Fewer trips to memory.", "", "Source: XLA docs"]


def test_further_texts_follow_a_rule_and_only_the_first_names_its_source():
    first = Explanation("a", "Fusion", "One kernel.", "XLA docs", (), "specific")
    second = Explanation("b", "Layout", "Minor to major.", "Layout docs", (), "general")
    out = drawn([first, second])
    assert "─" * 20 in out and out.index("Source: XLA docs") < out.index("─") < out.index("Layout")
    assert "Layout docs" not in out


def test_control_characters_and_markup_in_a_text_are_shown_as_text():
    """Texts are the project's own, but they carry names from the model through placeholders."""
    hostile = Explanation("k", "[bold]x[/bold]\x1b[31m", "name `a\x07b` [link=file:///x]y[/link]", "", (), "level")
    out = drawn([hostile])
    assert "[bold]x[/bold]" in out and "[link=file:///x]y[/link]" in out
    assert "\x1b" not in out and "\x07" not in out
