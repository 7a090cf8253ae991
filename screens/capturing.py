"""The app's capture: a thread worker runs the orchestrator and only posts messages
(`screens.messages`); the handlers here take them on the UI thread and own the state.

`CapturingApp` is the base of `screens.app.TensorwegApp`, which holds what these read and set:
`bundle`, `trace`, `target`, `lang`, `options`, `model_spec`, `progress` (what each level reported,
`explorer.views.session.LevelProgress`), `load_error`, `opening`/`opened`/`open_bundle` (the
finished bundle is read like any other), `queue_place`/`capture_queue` (`tensorweg serve`'s line)
and `_sync_screen`. Each capture has a `generation`: what an older one still posts is dropped.
"""

from __future__ import annotations

import gc
import threading
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App

from explorer.errors import CaptureCancelled, TensorwegError
from explorer.levels import level_named
from explorer.model.bundle import Bundle
from explorer.views.session import CAPTURED, STARTED, failed
from explorer.views.trace import build_trace
from explorer.views.warm import level_rows, prepare_first_screen

from screens.messages import (
    BundleLoaded,
    CaptureFailed,
    CaptureQueued,
    KeptLevelsRead,
    LevelCaptured,
    LevelStarted,
)

if TYPE_CHECKING:
    from explorer.capture import events as capture_events


@cache  # once per process: later levels find the renderers loaded
def _warm_up_renderers() -> None:
    """A captured level is shown while the compiler still runs: its side panes' renderers (Markdown,
    Pygments) are imported on the capture's thread while a worker compiles, not on the UI thread. A
    cache hit never calls this: its rows come first, and the open worker warms them after
    (`TensorwegApp._warm_after_open`)."""
    from screens.widgets.code_view import warm_up_renderers  # noqa: PLC0415 (why: start-up; Pygments not before the rows)

    warm_up_renderers()


class CapturingApp(App):
    capture_generation = 0  # the capture whose messages count; older ones are dropped

    def run_capture(self) -> None:
        """Start capturing `model_spec`; a capture still running is cancelled first (its
        workers are killed) and whatever it still posts is dropped (by generation)."""
        self._cancel.set()
        self._cancel = threading.Event()
        self.capture_generation += 1
        self.progress.clear()
        self._capture_in_thread(self.capture_generation, self._cancel)

    @work(thread=True, exclusive=True, group="capture")
    def _capture_in_thread(self, generation: int, cancel: threading.Event) -> None:
        """Run the orchestrator; only posts messages (the app's handlers own state)."""
        from explorer.capture import events as capture_events  # noqa: PLC0415 (only when capturing)
        from explorer.capture import orchestrator  # noqa: PLC0415 (heavy: only when capturing)

        reader = None

        def on_event(event: capture_events.CaptureEvent) -> None:
            nonlocal reader
            if cancel.is_set():
                return  # a newer capture owns the screen
            match event:
                case capture_events.KeptLevelsStaged():
                    reader = self._read_kept_levels(Path(event.staging_dir), generation)
                    _warm_up_renderers()
                case capture_events.LevelStarted():
                    self.post_message(LevelStarted(event.level, event.target, generation))
                    _warm_up_renderers()
                case capture_events.LevelCaptured():
                    reader = self._read_captured_level(event, reader, generation)
                case capture_events.LevelFailed():
                    self.post_message(CaptureFailed(event.level, event.target, event.error, generation))

        queued = {}
        if self.capture_queue is not None:  # the wait runs here, off the UI thread; its place is posted
            def waiting(place) -> None:
                self.post_message(CaptureQueued(place, generation))

            queued["gate"] = lambda cancel: self.capture_queue.slot(cancel, waiting)
        try:
            path = orchestrator.capture(self.model_spec, self.options, on_event=on_event, cancel=cancel, **queued)
        except CaptureCancelled:
            return  # cancelled by a newer capture or by quitting: nothing to show
        except TensorwegError as exc:
            self.post_message(CaptureFailed("", "", str(exc), generation))
            return
        self.post_message(BundleLoaded(path, generation))

    def _read_captured_level(self, event: capture_events.LevelCaptured, reader: Bundle | None,
                             generation: int) -> Bundle | None:
        """On the capture's thread: the staging reader with the new level parsed, then posted."""
        from explorer.capture import orchestrator  # noqa: PLC0415 (heavy: only when capturing)

        try:  # parse the new level here, not on the UI thread
            reader = orchestrator.staging_reader(event, reader)
            trace = build_trace(reader) if reader is not None else None
            if reader is not None and (event.level == self.current_mode or level_named(event.level).maps_buffers):
                prepare_first_screen(reader, self.current_mode, self.target, self.lang)
            gc.freeze()  # the parsed level lives on screen: out of the collector's full passes
        except TensorwegError as exc:
            self.post_message(CaptureFailed(event.level, event.target, str(exc), generation))
            return reader
        if reader is not None:  # each level makes a new reader: the screen's list for it, built here
            with suppress(TensorwegError):  # a level not captured yet: its screen says so
                level_rows(reader, self.current_mode, self.target, self.lang)
        staging = Path(event.staging_dir) if event.staging_dir else None
        self.post_message(LevelCaptured(event.level, event.target, event.seconds, staging, reader, trace, generation))
        return reader

    def _read_kept_levels(self, staging: Path, generation: int) -> Bundle | None:
        """On the capture's thread: the levels a growing cached bundle already has, read and indexed
        as any opened bundle, then shown (a cpu bundle opened with the default targets showed an
        empty list for the seconds TensorFlow took to start). Returns the reader the levels still
        to come are added to (None when it cannot be read: they come as if captured anew)."""
        try:
            reader = Bundle(staging)
            trace = build_trace(reader)
            target = self.target if self.target in reader.targets or not reader.targets else reader.targets[0]
            level_rows(reader, self.current_mode, target, self.lang)
            prepare_first_screen(reader, self.current_mode, target, self.lang)
            gc.freeze()  # the parsed levels live on screen: out of the collector's full passes
        except TensorwegError:
            return None
        self.post_message(KeptLevelsRead(reader, trace, generation))
        return reader

    def _from_current_capture(self, event) -> bool:
        generation = getattr(event, "generation", None)
        return generation is None or generation == self.capture_generation

    @on(CaptureQueued)
    def _capture_queued(self, event: CaptureQueued) -> None:
        if self._from_current_capture(event):
            self.queue_place = event.place
            self._sync_screen()

    def action_cancel_capture(self) -> None:
        """`C`: give up the capture (or its place in the serve queue); what is on screen stays."""
        self._cancel.set()
        self.capture_generation += 1  # whatever it still posts is dropped
        self.queue_place = None
        self.progress.clear()
        self._sync_screen()

    @on(LevelStarted)
    def _level_started(self, event: LevelStarted) -> None:
        if not self._from_current_capture(event):
            return
        self.progress[(event.level, event.target)] = STARTED
        self._sync_screen()

    @on(LevelCaptured)
    def _level_captured(self, event: LevelCaptured) -> None:
        if not self._from_current_capture(event):
            return
        self.progress[(event.level, event.target)] = CAPTURED
        if event.bundle is not None:  # read and indexed on the capture's thread
            self.bundle = event.bundle
            self.trace = event.trace
        elif event.staging_dir is not None and event.staging_dir.is_dir():
            # A message without a reader (tests inject levels so): read the directory here.

            staging = Bundle(event.staging_dir)
            self.bundle = staging
            self.trace = build_trace(staging)
        self._sync_screen()

    @on(KeptLevelsRead)
    def _kept_levels_read(self, event: KeptLevelsRead) -> None:
        if not self._from_current_capture(event) or self.bundle is not None:
            return  # a newer capture, or something is shown already: the capture's levels follow it
        self.bundle = event.bundle
        self.trace = event.trace
        if self.target not in event.bundle.targets and event.bundle.targets:
            self.target = event.bundle.targets[0]
        self._sync_screen()

    @on(CaptureFailed)
    def _capture_failed(self, event: CaptureFailed) -> None:
        if not self._from_current_capture(event):
            return
        if event.level:
            self.progress[(event.level, event.target)] = failed(event.error)
        else:
            self.load_error = event.error
            if self.bundle is not None:  # levels already shown (the staging reader): the notice says nothing
                self.notify(event.error, severity="error")
        self._sync_screen()

    @on(BundleLoaded)
    def _bundle_loaded(self, event: BundleLoaded) -> None:
        if not self._from_current_capture(event):
            return
        # The staging reader stays on screen until the finished bundle is read and indexed.
        self.opening = event.path
        self.opened.clear()
        self.open_bundle(event.path)
