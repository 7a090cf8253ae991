"""Updating a side pane's text without a layout pass when its height stays the same.

A `Static.update` re-lays out the whole screen (the pane might have grown),
and on a ResNet-sized module that layout and the repaint it causes were most
of a key press. The side panes change on every cursor move, but usually to
text of the same height (another instruction of the same shape, the same
layer's device mapping): those updates only repaint the pane.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def wrapped_height(static: Static, text: Text) -> int:
    """Lines `text` takes in `static` at its current width (0 before the first layout)."""
    width = static.content_region.width
    if width <= 0:
        return 0
    return len(text.wrap(static.app.console, width))


def show_text(static: Static, text: Text | str) -> None:
    """`static.update(text)`, skipped when nothing changed, without layout when the height stays.

    Plain strings become `Text`, so brackets in compiler output (`[fusion]`,
    shapes such as `f32[8]`) are never read as markup.
    """
    if isinstance(text, str):
        text = Text(text)
    previous = getattr(static, "_pane_text", None)
    if previous is not None and previous.plain == text.plain and previous.spans == text.spans:
        return
    same_height = previous is not None and 0 < wrapped_height(static, previous) == wrapped_height(static, text)
    static._pane_text = text  # type: ignore[attr-defined]
    static.update(text, layout=not same_height)
