"""What the explorer screen and its level views ask of the app and the screen they run in.

Protocols, so that a module need not import the one that builds it: the app imports the screen, the
screen its level views; each knows the one above it only by these members.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from explorer.session.service import SessionService


class ExplorerApp(Protocol):
    session: SessionService
    first_frame_shown: bool  # Textual's Ready came: frames reach the terminal

    def explorer_mounted(self) -> None: ...

    def rows_shown(self) -> None: ...

    def descend(self, level: str, name: str) -> None: ...

    def go_back(self) -> None: ...

    def notify(self, message: str, *args, **kwargs) -> None: ...


class LevelHost(Protocol):
    """What a level view asks of the screen that shows it (`screens.explorer_screen.ExplorerScreen`)."""

    def rows_replaced(self, view) -> None: ...

    def selection_moved(self, view) -> None: ...

    def show_status(self) -> None: ...

    def sync(self) -> None: ...
