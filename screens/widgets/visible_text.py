"""The screens' last guard: every line any widget draws shows control characters, never emits them.

Names from a model, bundle, pack or tour reach many widgets (rows, titles, panes, the tour panel,
tables, borders). The places that turn them into text pass them through
`explorer.safe_text.visible` first, so columns are measured on the stand-ins and stay aligned;
`VisibleTextFilter` is a Textual line filter (the mechanism of its NO_COLOR filter) that the app
applies to every line of every widget, so a place that forgets cannot let `ESC ] 0 ; ... BEL`
reach the terminal. A line it changes keeps its width: the stand-ins of characters that took
no cell are cut at its end.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from explorer.safe_text import visible


class VisibleTextFilter(LineFilter):
    """Control characters and bidirectional overrides in a line's text become their stand-ins."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        del background  # the text changes, never a colour
        text = "".join([segment.text for segment in segments if not segment.control])
        if visible(text) is text:  # one search over the whole line: a key press redraws hundreds
            return segments  # the usual line: nothing to show differently, nothing copied
        width = Segment.get_line_length(segments)
        shown = [segment if segment.control else Segment(visible(segment.text), segment.style)
                 for segment in segments]
        return Segment.adjust_line_length(shown, width)
