"""Course texts for the selection: `explorer.views.explain.explanations`, drawn by
`screens.widgets.course_text` (the tour's panel renders the same texts' Markdown source).

The item's own text first (a TPU kOutput fusion: `fusion:kOutput`), then what
its data shows (a tiled layout, VMEM, the allocation holding it), each once.
"""

from __future__ import annotations

from functools import lru_cache

from explorer.labels import label
from explorer.views.tables import Selection

from screens.widgets.course_text import course_text
from screens.widgets.pane_text import PaneText


def selection_texts(selection: Selection) -> tuple:
    from explorer.views.explain import explanations  # noqa: PLC0415 (kept off the first frame: the open worker loads it)

    return explanations(selection.bundle, selection.level, selection.target, selection.name, selection.lang)


def explanation_markdown(selection: Selection) -> str:
    """The selection's texts as Markdown source (the tour's panel renders them with Textual's Markdown)."""
    return _markdown_text(selection_texts(selection), selection.lang)


@lru_cache(maxsize=512)
def _markdown_text(texts, lang: str) -> str:
    # The same texts give the same Markdown source; a cursor move within one kind builds nothing.
    first, *more = texts
    body = f"**{first.title}**\n\n{first.body}"
    if first.source:
        body += f"\n\n_{label('word.source', lang)}: {first.source}_"
    for text in more:
        body += f"\n\n---\n\n**{text.title}**\n\n{text.body}"
    return body


@lru_cache(maxsize=256)
def explanation_text(texts: tuple, lang: str):
    # The same texts give the same drawn text object, which the pane knows it shows already.
    return course_text(texts, label("word.source", lang))


class ExplanationPane(PaneText):
    def show_selection(self, selection: Selection | None, lang: str = "en") -> None:
        if selection is None:
            self.show(label("state.select_item", lang))
        else:
            self.show(explanation_text(selection_texts(selection), lang))
