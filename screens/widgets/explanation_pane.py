"""Course text for the selection's level and kind (from explorer.course)."""

from __future__ import annotations

from rich.markdown import Markdown
from textual.widgets import Static

from screens.selection import Selection

NOT_AVAILABLE = "Explanations are not available yet (explorer.course.lookup is missing)."
# Key families of the course texts per level (`hlo:dot`, `layer:Conv2D`, ...).
KEY_PREFIX = {"layers": "layer", "graph": "op", "hlo": "hlo", "optimized-hlo": "hlo", "kernels": "kernel"}


def kind_keys(level: str, kind: str) -> list[str]:
    prefix = KEY_PREFIX.get(level, level)
    return list(dict.fromkeys([f"{prefix}:{kind}", f"{prefix}:{kind.lower()}"]))


def explanation_markdown(selection: Selection) -> str:
    try:
        from explorer.course.lookup import explain  # noqa: PLC0415 (optional, in progress)
    except ImportError:
        return NOT_AVAILABLE
    try:
        explanation = explain(selection.level, kind_keys(selection.level, selection.item.kind),
                              selection.target, selection.lang, {})
    except Exception as exc:  # noqa: BLE001 (course data must never crash the UI)
        return f"No course text yet for this level ({exc})."
    body = f"**{explanation.title}**\n\n{explanation.body}"
    if explanation.source:
        body += f"\n\n_Source: {explanation.source}_"
    return body


class ExplanationPane(Static):
    DEFAULT_CSS = "ExplanationPane { height: auto; }"

    def show(self, selection: Selection | None) -> None:
        if selection is None:
            self.update("select an item")
            return
        text = explanation_markdown(selection)
        self.update(Markdown(text))
