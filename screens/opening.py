"""How the app opens what it shows: a bundle folder, or a model the cache holds whole, read and
indexed before the first screen is built when it opens on its layers (`open_at_start`), else on a
thread worker while Textual builds the first screen; what later keys need is warmed after the rows
are on screen.

`OpeningApp` is a base of `screens.app.TensorwegApp` (as `screens.capturing.CapturingApp` is), which
holds what these read and set: `bundle`, `trace`, `target`, `lang`, `options`, `model_spec` (and
`model_source`, its file hashed by the command line),
`progress`, `load_error`, `opening`/`opened`, `current_mode`/`start_level` and `_quitting`.
"""

from __future__ import annotations

import gc
import threading
from functools import partial
from pathlib import Path

from textual import on, work

from explorer.capture.ready_bundle import ready_cached_bundle
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.views.trace import build_trace
from explorer.views.warm import level_rows, prepare_first_screen, prepare_levels

from screens.background import start_daemon
from screens.capturing import CapturingApp
from screens.level_modes import OTHER_SHEETS
from screens.messages import (
    BundleOpened,
    BundleOpenFailed,
    CachedBundleFound,
    CaptureNeeded,
    LevelsWarmed,
    TargetsRead,
)

# How long the open worker waits for the first screen to show the rows and their selection.
FIRST_SELECTION_WAIT_S = 2.0
# The levels whose rows need no module parsed (a few milliseconds of reading even for ResNet50):
# a bundle opened on one of them is read before the first frame (`open_at_start`).
READ_BEFORE_FIRST_FRAME = ("layers",)


class OpeningApp(CapturingApp):
    def open_at_start(self) -> None:
        """Called as the app loads: open `bundle_path`, or `model_spec` from the cache or by capturing it.

        A bundle whose first level is cheap to list (`READ_BEFORE_FIRST_FRAME`) is read here, before
        Textual builds the first screen, which then shows the rows in its first frame. Read on a
        thread while Textual built the screen, the same reading took four to eight times as long: the
        thread waited for the interpreter after each file it read (Python's global lock, which the
        UI thread held), and the rows came a frame later. Any other first level may parse a large
        module: it is read on the worker, while the first screen says so.
        """
        level = self.current_mode or self.start_level
        if self.model_spec and not self.bundle_path:
            self.opened.clear()
            path = (ready_cached_bundle(self.model_spec, self.options, self.model_source)
                    if level in READ_BEFORE_FIRST_FRAME else None)
            if path is None:
                self.open_cached_or_capture()
                return
            self.opening = path
        else:
            path = self.bundle_path
            if path is None:
                return
            if level not in READ_BEFORE_FIRST_FRAME:
                self.open_bundle(path)
                return
        read = self._read(path)
        if isinstance(read, BundleOpened):
            self._take_bundle(read)  # no screen to sync yet: the first one is built with it
        else:
            self.post_message(read)

    @work(thread=True, exclusive=True, group="open")
    def open_bundle(self, path: Path) -> None:
        """Read a bundle and index it off the UI thread; only posts messages. What later screens
        and keys need is warmed after it on a daemon thread (`_warm_after_open`)."""
        self._read_bundle(path)

    @work(thread=True, exclusive=True, group="open")
    def open_cached_or_capture(self) -> None:
        """`model_spec` opened as a bundle when the cache holds all of it, without the orchestrator
        (start-up: it and the growth machinery are a tenth of the time to the rows); captured otherwise."""
        path = ready_cached_bundle(self.model_spec, self.options, self.model_source)
        if path is None:
            self.post_message(CaptureNeeded())
            return
        self.post_message(CachedBundleFound(path))
        self._read_bundle(path)

    @on(CaptureNeeded)
    def _capture_needed(self) -> None:
        self.opened.set()
        self.run_capture()

    @on(CachedBundleFound)
    def _cached_bundle_found(self, event: CachedBundleFound) -> None:
        if self.bundle is None:  # the session says "reading", not "capturing"
            self.opening = event.path
            self._sync_screen()

    def _read_bundle(self, path: Path) -> None:
        """The body of the open workers, on their thread: only posts messages."""
        self.post_message(self._read(path))

    def _read(self, path: Path) -> BundleOpened | BundleOpenFailed:
        """Read a bundle and index it, and the first screen's rows; what later screens and keys need is
        warmed after it on a daemon thread (`_warm_after_open`). Touches no widget."""
        try:
            bundle = Bundle.open(path)
            trace = build_trace(bundle)  # the cross-level index; modules are parsed when a level needs them
            target = self.target if self.target in bundle.targets or not bundle.targets else bundle.targets[0]
            level = self.current_mode or self.start_level
            level_rows(bundle, level, target, self.lang)  # the first screen's list, cached: no rows worker
        except TensorwegError as exc:
            return BundleOpenFailed(path, str(exc))
        # A large module is millions of objects that live as long as the bundle is open: out of
        # the cyclic collector's sight, whose full passes over them paused key presses for 0.8 s.
        gc.freeze()
        shown = threading.Event()
        start_daemon(partial(self._warm_after_open, bundle, level, target, shown), "warm-after-open")
        return BundleOpened(path, bundle, trace, shown)

    def _warm_after_open(self, bundle: Bundle, level: str, target: str, shown: threading.Event) -> None:
        """On a daemon thread (`q` never waits for it): the first selection's panes, then what later
        key presses show for each layer and level. Only posts messages."""
        # The rows go on screen now, then the selection's panes: this thread waits for them, as its
        # turns on the interpreter (its imports too) would slow the UI thread down (bounded: a screen
        # without a list never says). Then the side panes' tables and renderers get ready here, then
        # what later key presses show for each layer.
        shown.wait(FIRST_SELECTION_WAIT_S)
        from explorer.views.panes import warm_layer_facts  # noqa: PLC0415 (kept off the first frame)

        from screens.widgets.code_view import warm_up_renderers  # noqa: PLC0415 (Pygments: not before the first frame)

        unread = list(bundle.targets)

        def read(done: str) -> None:
            if done in unread:
                unread.remove(done)
                self.post_message(TargetsRead(bundle, (done,)))

        def cancelled() -> bool:  # the app ends, or another bundle replaced this one
            return self._quitting.is_set() or self.bundle is not bundle

        try:
            prepare_first_screen(bundle, level, target, self.lang, read)
        except TensorwegError:
            return  # the pane says what is wrong when it asks itself
        finally:
            if unread:  # not prepared (a damaged level, no rows): the pane reads them when asked
                self.post_message(TargetsRead(bundle, tuple(unread)))
        warm_up_renderers()
        warm_layer_facts(bundle, self.lang, cancelled)
        prepare_levels(bundle, target, self.lang, cancelled)
        gc.freeze()
        if not cancelled():
            self.post_message(LevelsWarmed(bundle))

    @on(BundleOpened)
    def _bundle_opened(self, event: BundleOpened) -> None:
        self._take_bundle(event)
        self._sync_screen()
        self._start_tour_once()

    def _take_bundle(self, event: BundleOpened) -> None:
        """The app's state for a bundle read (`_bundle_opened`, or `open_at_start` before any screen)."""
        self.opening = None
        self._reading = (event.bundle, frozenset(event.bundle.targets))  # the worker posts TargetsRead
        if not event.bundle.targets:
            self.opened.set()
        self.load_error = ""
        self.progress.clear()  # a finished capture's marks give way to the bundle's own statuses
        self.bundle = event.bundle
        if self.target not in event.bundle.targets and event.bundle.targets:
            self.target = event.bundle.targets[0]
        self.trace = event.trace
        self._selection_shown = event.shown

    @on(TargetsRead)
    def _targets_read(self, event: TargetsRead) -> None:
        if event.bundle is not self.bundle:
            return  # another bundle replaced it meanwhile
        self._reading = (self.bundle, self.reading - set(event.targets))
        if not self.reading:
            self.opened.set()
        for screen in self.screen_stack:  # also a level screen under a tour's panel
            show_panes = getattr(screen, "show_panes", None)
            if show_panes is not None:
                show_panes()

    def selection_shown(self) -> None:
        """The screen shows the new rows and their selection: the open worker may go on."""
        if self._selection_shown is not None:
            self._selection_shown.set()
            self._selection_shown = None
        self.call_after_refresh(self._read_other_sheets)

    def _read_other_sheets(self) -> None:
        """Add every other screen's sheet to the app's stylesheet, once the first rows are shown.

        A screen whose sheet the app lacks makes Textual 8.2.8 re-parse every sheet from scratch
        and restyle every node when it is first shown (`App._load_screen_css`). Added here, each is
        parsed alone (the stylesheet caches what it parsed) and restyles nothing: their rules
        select screens not built yet. Not in CSS_PATH: the first frame would parse them too.
        """
        stylesheet = self.stylesheet
        new = [path for path in OTHER_SHEETS if not stylesheet.has_source(str(path))]
        for path in new:
            stylesheet.add_source(path.read_text(encoding="utf-8"), read_from=(str(path), ""))
        if new:
            stylesheet.parse()  # now, while idle, not in the next key press

    @on(BundleOpenFailed)
    def _bundle_open_failed(self, event: BundleOpenFailed) -> None:
        self.opening = None
        self.opened.set()
        self.load_error = event.error
        self._sync_screen()

    def _sync_screen(self) -> None:
        sync = getattr(self.screen, "sync", None)
        if sync is not None:
            sync()
