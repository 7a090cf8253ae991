"""Textual's footer, rebuilt only when the keys it shows change.

Textual's `Footer` recomposes (removes and mounts again some fifteen key
widgets) on every bindings refresh: each focus change, each widget or screen
that mounts, each `localise`. While the first screen starts that happened
about ten times for the same keys, each a layout and a style pass. This one
compares what it would show (key, words, enabled, tooltip) with what it shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


def _shown_keys(screen: Screen) -> tuple:
    """What a footer on `screen` shows: every binding it lists, with its words and state."""
    return tuple((binding.key, binding.action, binding.description, enabled, tooltip)
                 for _, binding, enabled, tooltip in screen.active_bindings.values() if binding.show)


class KeysFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._keys_shown: tuple | None = None  # None until a rebuild was asked for

    def bindings_changed(self, screen: Screen) -> None:
        # Textual rebuilds only for the footer's own screen, once the app has focus: the keys
        # count as shown only then, so a skipped refresh never leaves the footer empty.
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            keys = _shown_keys(screen)
            if keys == self._keys_shown:
                return
            self._keys_shown = keys
        super().bindings_changed(screen)
