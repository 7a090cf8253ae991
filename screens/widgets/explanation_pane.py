"""Course text for the selection's level and kind (from explorer.course)."""

from __future__ import annotations

from functools import lru_cache

from textual.widgets import Static

from screens.selection import Selection

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


class ExplanationPane(Static):
    DEFAULT_CSS = "ExplanationPane { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: str | None = ""  # "" never equals a shown text: the first show() always renders

    def show(self, selection: Selection | None) -> None:
        text = explanation_markdown(selection) if selection is not None else None
        if text == self._shown:
            return  # same kind, same text: a re-render would only cost a layout pass
        self._shown = text
        self.update("select an item" if text is None else _markdown(text))
