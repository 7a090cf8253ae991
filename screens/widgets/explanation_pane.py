"""Course text for the selection's level and kind (from explorer.course)."""

from __future__ import annotations

from functools import lru_cache

from screens.selection import Selection
from screens.widgets.pane_text import PaneText

NOT_AVAILABLE = "Explanations are not available yet (explorer.course.lookup is missing)."
# Key families of the course texts per level (`hlo:dot`, `layer:Conv2D`, ...).
KEY_PREFIX = {"layers": "layer", "graph": "op", "hlo": "hlo", "optimized-hlo": "hlo", "kernels": "kernel"}


def kind_keys(level: str, kind: str) -> list[str]:
    prefix = KEY_PREFIX.get(level, level)
    return list(dict.fromkeys([f"{prefix}:{kind}", f"{prefix}:{kind.lower()}"]))


def explanation_markdown(selection: Selection) -> str:
    return _explanation(selection.level, selection.item.kind, selection.target, selection.lang)


@lru_cache(maxsize=512)
def _explanation(level: str, kind: str, target: str, lang: str) -> str:
    # The text depends only on these four; a cursor move within one opcode must not look it up again.
    try:
        from explorer.course.lookup import explain  # noqa: PLC0415 (optional, in progress)
    except ImportError:
        return NOT_AVAILABLE
    try:
        explanation = explain(level, kind_keys(level, kind), target, lang, {})
    except Exception as exc:  # noqa: BLE001 (course data must never crash the UI)
        return f"No course text yet for this level ({exc})."
    body = f"**{explanation.title}**\n\n{explanation.body}"
    if explanation.source:
        body += f"\n\n_Source: {explanation.source}_"
    return body


@lru_cache(maxsize=256)
def _markdown(text: str):
    # Rich's Markdown (and markdown-it) load lazily: the first frame has no explanation yet.
    from rich.markdown import Markdown  # noqa: PLC0415

    return Markdown(text)


class ExplanationPane(PaneText):
    def show_selection(self, selection: Selection | None) -> None:
        text = explanation_markdown(selection) if selection is not None else None
        # The same text gives the same (cached) Markdown, which the pane knows it shows already.
        self.show("select an item" if text is None else _markdown(text))
