"""The messages the UI's own threads and widgets post (the session's events ride in one of them).

Each is past tense. The session's background work reports `explorer.session.events` through
`SessionEventPosted` (`screens.session_work`); a level view's rows worker says it is done with
`LevelRowsBuilt`.
"""

from __future__ import annotations

from textual.message import Message


class SessionEventPosted(Message):
    """One of `explorer.session.events`, reported by the session's work on another thread."""

    def __init__(self, event) -> None:
        super().__init__()
        self.event = event


class LevelRowsBuilt(Message):
    """A level view's worker has built its rows for `key` (generation, language): the view shows them
    now (`screens.level_view.LevelView`)."""

    def __init__(self, key: tuple[int, str]) -> None:
        super().__init__()
        self.key = key
