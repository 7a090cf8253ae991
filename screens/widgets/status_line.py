"""The status line under a level: the app's last notification, where it was made.

Whether a note belongs on this screen is the session's answer (`Session.status_line`); the line
only draws it, and stays hidden (no layout change on the first frame) while there is none.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from explorer.views.session import StatusNote


class StatusLine(Static):
    def __init__(self, note: StatusNote | None, **options) -> None:
        super().__init__("", **options)
        self._note: StatusNote | None = None
        self.display = False
        self.show(note)

    def show(self, note: StatusNote | None) -> None:
        if note == self._note:
            return  # every key press asks: the line is redrawn only when its note changes
        self._note = note
        self.update(Content.styled(note.text, "bold" if note.bold else "") if note is not None else "")
        self.display = note is not None
