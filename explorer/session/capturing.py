"""A capture the session started, as work for a thread: the orchestrator's calls and what is read of them.

`SessionService` decides whether a capture may start and with what (`CaptureJob`, `MeshJob`); the UI
runs the job's `run` on a thread worker. The job calls the orchestrator (with the policy's gate, so a
`serve` tab waits for its slot), reads each level as it arrives into a staging reader (parsed here,
not on the UI thread) and reports through `emit`: the events of `explorer.session.events`, each with
the job's generation. It never touches the session's state.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.errors import CaptureCancelled, TensorwegError
from explorer.levels import level_named
from explorer.model.bundle import Bundle
from explorer.session import events
from explorer.session.opening import shown_target
from explorer.session.policy import Gate
from explorer.views.trace import build_trace
from explorer.views.warm import level_rows, prepare_first_screen

if TYPE_CHECKING:
    from explorer.capture import events as capture_events
    from explorer.model.records import CaptureOptions


@dataclass(frozen=True)
class ShownAs:
    """What the screen shows while the capture runs: its first rows are built on the capture's thread."""

    level: str
    target: str
    lang: str


@dataclass(frozen=True)
class CaptureJob:
    """One capture of `spec` with `options`, as the session allowed it.

    gate: the queue's (None: no queue); waiting places are reported as `CaptureQueued`.
    on_level: called on the capture's thread as each level starts (the UI loads its renderers there).
    """

    spec: str
    options: CaptureOptions
    generation: int
    cancel: threading.Event
    gate_for: Callable[[Callable], Gate | None] = lambda waiting: None
    on_level: Callable[[], None] = lambda: None
    shown: Callable[[], ShownAs] = field(default=lambda: ShownAs("layers", "cpu", "en"))

    def run(self, emit: events.Emit) -> None:
        """Capture; report every step through `emit` (on this thread). Cancelled: reports nothing more."""
        from explorer.capture import events as capture_events  # noqa: PLC0415 (the capture machinery loads with a capture)
        from explorer.capture import orchestrator  # noqa: PLC0415 (as above)

        generation, cancel = self.generation, self.cancel
        reader: Bundle | None = None

        def on_event(event: capture_events.CaptureEvent) -> None:
            nonlocal reader
            if cancel.is_set():
                return  # a newer capture owns the screen
            match event:
                case capture_events.KeptLevelsStaged():
                    reader = self._read_kept_levels(Path(event.staging_dir), emit)
                    self.on_level()
                case capture_events.LevelStarted():
                    emit(events.LevelStarted(event.level, event.target, generation))
                    self.on_level()
                case capture_events.LevelCaptured():
                    reader = self._read_captured_level(event, reader, emit)
                case capture_events.LevelFailed():
                    emit(events.CaptureFailed(event.level, event.target, event.error, generation))

        def waiting(place) -> None:
            emit(events.CaptureQueued(place, generation))

        try:
            path = orchestrator.capture(self.spec, self.options, on_event=on_event, cancel=cancel,
                                        gate=self.gate_for(waiting))
        except CaptureCancelled:
            return  # cancelled by a newer capture or by quitting: nothing to show
        except TensorwegError as exc:
            emit(events.CaptureFailed("", "", str(exc), generation))
            return
        emit(events.BundleLoaded(path, generation))

    def _read_captured_level(self, event: capture_events.LevelCaptured, reader: Bundle | None,
                             emit: events.Emit) -> Bundle | None:
        """The staging reader with the new level parsed, and the screen's rows for it built."""
        from explorer.capture import orchestrator  # noqa: PLC0415 (the capture machinery loads with a capture)

        shown = self.shown()
        try:
            reader = orchestrator.staging_reader(event, reader)
            trace = build_trace(reader) if reader is not None else None
            if reader is not None and (event.level == shown.level or level_named(event.level).maps_buffers):
                prepare_first_screen(reader, shown.level, shown.target, shown.lang)
            gc.freeze()  # the parsed level lives on screen: out of the collector's full passes
        except TensorwegError as exc:
            emit(events.CaptureFailed(event.level, event.target, str(exc), self.generation))
            return reader
        if reader is not None:  # each level makes a new reader: the screen's list for it, built here
            with suppress(TensorwegError):  # a level not captured yet: its screen says so
                level_rows(reader, shown.level, shown.target, shown.lang)
        staging = Path(event.staging_dir) if event.staging_dir else None
        emit(events.LevelCaptured(event.level, event.target, event.seconds, staging, reader, trace, self.generation))
        return reader

    def _read_kept_levels(self, staging: Path, emit: events.Emit) -> Bundle | None:
        """The levels a growing cached bundle already has, read and indexed as any opened bundle (a cpu
        bundle opened with the default targets showed an empty list for the seconds TensorFlow took to
        start). Returns the reader the levels still to come are added to (None: they come as new)."""
        shown = self.shown()
        try:
            reader = Bundle(staging)
            trace = build_trace(reader)
            target = shown_target(reader, shown.target)
            level_rows(reader, shown.level, target, shown.lang)
            prepare_first_screen(reader, shown.level, target, shown.lang)
            gc.freeze()  # the parsed levels live on screen: out of the collector's full passes
        except TensorwegError:
            return None
        emit(events.KeptLevelsRead(reader, trace, self.generation))
        return reader


@dataclass(frozen=True)
class MeshJob:
    """`M` on the compare screen: each wanted mesh of `spec` captured into the cache, one after the other."""

    spec: str
    wanted: tuple[CaptureOptions, ...]
    target: str
    cancel: threading.Event
    gate_for: Callable[[Callable], Gate | None] = lambda waiting: None

    def run(self, emit: events.Emit) -> None:
        from explorer.capture.orchestrator import capture  # noqa: PLC0415 (the capture machinery loads with a capture)

        refused: dict[str, str] = {}
        for options in self.wanted:
            try:
                capture(self.spec, options, cancel=self.cancel, gate=self.gate_for(lambda place: None))
            except CaptureCancelled:
                return
            except TensorwegError as exc:
                refused[options.mesh] = str(exc)
        emit(events.MeshesCaptured(self.target, refused))
