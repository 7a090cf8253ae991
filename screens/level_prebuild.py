"""Level screens built while the learner reads, so a level's first visit only switches screens.

Building a level's screen (composing some thirty widgets, styling and mounting them) was most of a
first visit: 0.3 to 0.6 s on a two-core machine, while a visit of a screen built before takes a
layout and a paint. Once the open worker has warmed every level's tables (`LevelsWarmed`), the app
builds the screens of the levels not visited yet, one at a time, each only after no key came for
`PREBUILD_IDLE_S` (a key never waits behind more than one step). A screen built ahead is registered
with the app but on no screen stack; at a later idle tick it is laid out and drawn off screen at the
terminal's size (Textual displays only the current screen), so its widgets keep their drawn lines.
On the first visit it becomes its mode's screen stack (`install_prebuilt`; one not laid out yet is
handed over by the mode's factory, `TensorwegApp._new_level_screen`), and Textual shows it as it
shows a screen visited before. Textual 8.2.8 internals: `App._register`, `_modes`, `_screen_stacks`,
`_load_screen_css`, `Screen._refresh_layout`, `Screen._layout_required`, `Screen._compositor`.
"""

from __future__ import annotations

import time
from weakref import WeakSet

from textual import events, on
from textual.app import App
from textual.lazy import Lazy
from textual.screen import Screen
from textual.timer import Timer

from explorer.levels import LIST_LEVELS

from screens.messages import LevelsWarmed

# No key for this long: the next level's screen is built (a learner reading, not typing).
PREBUILD_IDLE_S = 0.6
# Layout passes a screen built ahead gets at most, until one asks for no other (`_lay_out_one`).
LAYOUT_PASSES = 3
# The order levels are built in: down the trace first (where `Enter` and the number keys go next).
PREBUILD_ORDER = (*LIST_LEVELS, "memory")


class PrebuildsLevelScreens(App):
    """Mixin of `screens.app.TensorwegApp`, which provides `_new_level_screen(mode)`."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._prebuilt: dict[str, Screen] = {}  # mode -> its screen, built, not shown yet
        self._laid_out: WeakSet[Screen] = WeakSet()  # built ahead and laid out off screen
        self._prebuild_timer: Timer | None = None
        self._last_key_at = 0.0

    def take_prebuilt(self, mode: str) -> Screen | None:
        """The screen built ahead for `mode`, handed over once (None: build it now)."""
        return self._prebuilt.pop(mode, None)

    def install_prebuilt(self, mode: str) -> bool:
        """Make the screen built and laid out ahead for `mode` that mode's screen stack, as if it had
        been shown before: Textual's switch then shows it at once. Handed over by the mode's factory
        instead, Textual resumed it twice (`App._init_mode`, then `switch_mode`), and restyled every
        node each time. Whether there was one."""
        screen = self._prebuilt.get(mode)
        if screen is None or screen not in self._laid_out:
            return False
        del self._prebuilt[mode]
        self._load_screen_css(screen)  # what `_init_mode` does first (its sheet is read already, normally)
        self._screen_stacks[mode] = [screen]
        return True

    @property
    def prebuilt_modes(self) -> frozenset[str]:
        """Modes whose screen is built and waiting for its first visit."""
        return frozenset(self._prebuilt)

    @property
    def laid_out_modes(self) -> frozenset[str]:
        """Modes whose screen built ahead is also laid out and drawn, off screen."""
        return frozenset(mode for mode, screen in self._prebuilt.items() if screen in self._laid_out)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self._last_key_at = time.monotonic()
        await super().on_event(event)

    @on(LevelsWarmed)
    def _levels_warmed(self, event: LevelsWarmed) -> None:
        if event.bundle is self.bundle and self._prebuild_timer is None:
            self._prebuild_timer = self.set_interval(PREBUILD_IDLE_S / 2, self._prebuild_next)

    def _prebuild_next(self) -> None:
        if time.monotonic() - self._last_key_at < PREBUILD_IDLE_S:
            return
        if self._lay_out_one():
            return
        mode = next((mode for mode in PREBUILD_ORDER if self._unbuilt(mode)), None)
        if mode is None:
            if self.laid_out_modes == self.prebuilt_modes:  # else one still mounts: laid out at a later tick
                self._prebuild_timer.stop()
            return
        screen = self._prebuilt[mode] = self._new_level_screen(mode)
        self._register(self, screen)  # composed and mounted off screen, as Textual does when it shows one

    def _lay_out_one(self) -> bool:
        """Lay out and draw, off screen, one screen built ahead that is mounted and was not yet: its
        first visit then only paints what is drawn (a first layout and drawing were most of what was
        left of a first visit). Whether one was done."""
        for screen in self._prebuilt.values():
            if screen.is_mounted and not screen.query(Lazy) and screen not in self._laid_out:  # lazy parts in
                self._laid_out.add(screen)
                # Off screen: Textual displays only the current screen. A layout can ask for another (a
                # list's scrollbars settle after its columns fit the room the first pass left them):
                # left for the visit, that second pass was a second full frame after the first.
                for _ in range(LAYOUT_PASSES):
                    screen._layout_required = False
                    screen._refresh_layout(self.size)
                    if not screen._layout_required:
                        break
                screen._compositor.render_update(full=True)  # each widget's lines drawn and kept
                return True
        return False

    def _unbuilt(self, mode: str) -> bool:
        return (mode in self._modes and mode != self.current_mode and mode not in self._screen_stacks
                and mode not in self.prebuilt_modes)
