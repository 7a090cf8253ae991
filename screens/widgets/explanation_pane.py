"""Course texts for the selection: `explorer.views.explain.explanations`, rendered as Markdown.

The item's own text first (a TPU kOutput fusion: `fusion:kOutput`), then what
its data shows (a tiled layout, VMEM, the allocation holding it), each once.
"""

from __future__ import annotations

from functools import lru_cache

from explorer.labels import label
from explorer.views.tables import Selection

from screens.widgets.pane_text import PaneText


def explanation_markdown(selection: Selection) -> str:
    from explorer.views.explain import explanations  # noqa: PLC0415 (kept off the first frame: the open worker loads it)

    texts = explanations(selection.bundle, selection.level, selection.target, selection.name, selection.lang)
    return _markdown_text(texts, selection.lang)


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
def _markdown(text: str):
    # Rich's Markdown (and markdown-it) load lazily: the first frame has no explanation yet.
    from rich.markdown import Markdown  # noqa: PLC0415 (kept off the first frame)

    return Markdown(text)


class ExplanationPane(PaneText):
    def show_selection(self, selection: Selection | None, lang: str = "en") -> None:
        text = explanation_markdown(selection) if selection is not None else None
        # The same text gives the same (cached) Markdown, which the pane knows it shows already.
        self.show(label("state.select_item", lang) if text is None else _markdown(text))
