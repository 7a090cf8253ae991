"""What the session does with what its background work reports (`SessionService.apply`).

Workers (opening, warming, capturing) never touch the session: they emit the plain events of
`explorer.session.events`, which the UI hands to `apply` on its own thread; the returned `Change` says
what the screen must do next. A mixin of `SessionService`, which holds the state it updates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.session import events
from explorer.session.capturing import CaptureJob
from explorer.session.opening import shown_target
from explorer.views.session import CAPTURED, STARTED, capture_outcome, failed
from explorer.views.trace import build_trace

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle
    from explorer.views.session import LevelProgress


@dataclass(frozen=True)
class Change:
    """What the UI does after `apply`: redraw (`sync`), read a bundle on a worker (`read`), run a capture
    (`capture`), show the side panes again (`panes`), start the warm-up of an opened bundle (`warm`),
    build the level views ahead (`warmed`), begin a start tour (`tour`)."""

    sync: bool = True
    read: Path | None = None
    capture: CaptureJob | None = None
    panes: bool = False
    warm: events.BundleOpened | None = None
    warmed: bool = False
    tour: bool = False


NOTHING = Change(sync=False)


class AppliesReports:
    """`apply` and its cases; the state is `SessionService`'s."""

    if TYPE_CHECKING:  # what the cases read of SessionService, declared so that each use is checked
        _bundle: Bundle | None
        _target: str
        progress: dict[tuple[str, str], LevelProgress]
        mesh_refused: dict[str, dict[str, str]]
        capture_generation: int
        lang: str

        @property
        def reading(self) -> frozenset[str]: ...
        def capture_at_start(self) -> CaptureJob | None: ...
        def _let_warm_up_on(self) -> None: ...
        def notify(self, message: str, bold: bool = False) -> None: ...

    def apply(self, event: events.SessionEvent) -> Change:
        """Take what a worker reported; say what the screen must do next."""
        match event:
            case events.BundleOpened():
                return self._opened(event)
            case events.BundleOpenFailed():
                self.opening = None
                self.load_error = event.error
                return Change()
            case events.CachedBundleFound():
                if self._bundle is None:  # the session says "reading", not "capturing"
                    self.opening = event.path
                return Change()
            case events.CaptureNeeded():
                return Change(capture=self.capture_at_start(), tour=True)
            case events.TargetsRead():
                if event.bundle is not self._bundle:
                    return NOTHING  # another bundle replaced it meanwhile
                self._reading = (self._bundle, self.reading - set(event.targets))
                return Change(sync=False, panes=True)
            case events.LevelsWarmed():
                return Change(sync=False, warmed=event.bundle is self._bundle)
            case events.MeshesCaptured():
                self.mesh_refused.setdefault(event.target, {}).update(event.refused)  # each column says why
                self.meshes_capturing = False
                self.meshes_captured += 1
                return Change()
        if not self._from_current_capture(event):
            return NOTHING
        return self._capture_reported(event)

    def _capture_reported(self, event) -> Change:
        match event:
            case events.LevelStarted():
                self.progress[(event.level, event.target)] = STARTED
            case events.LevelCaptured():
                self.progress[(event.level, event.target)] = CAPTURED
                if event.bundle is not None:  # read and indexed on the capture's thread
                    self._trace = event.trace
                    self.bundle = event.bundle
                elif event.staging_dir is not None and event.staging_dir.is_dir():
                    from explorer.model.bundle import Bundle  # noqa: PLC0415 (a test's event without a reader)

                    staging = Bundle(event.staging_dir)
                    self._trace = build_trace(staging)
                    self.bundle = staging
            case events.KeptLevelsRead():
                if self._bundle is not None:
                    return NOTHING  # something is shown already: the capture's levels follow it
                self._trace = event.trace
                self.bundle = event.bundle
                self.target = shown_target(event.bundle, self._target)
            case events.CaptureQueued():
                self.queue_place = event.place
            case events.CaptureFailed():
                if event.level:
                    self.progress[(event.level, event.target)] = failed(event.error)
                else:
                    self.load_error = event.error
                    if self._bundle is not None:  # levels shown already (the staging reader): say it
                        self.notify(event.error, bold=True)
            case events.BundleLoaded():
                # The staging reader stays on screen until the finished bundle is read and indexed.
                self.opening = event.path
                return Change(read=event.path)
        return Change()

    def _from_current_capture(self, event) -> bool:
        generation = getattr(event, "generation", None)
        return generation is None or generation == self.capture_generation

    def _opened(self, event: events.BundleOpened) -> Change:
        self.opening = None
        self._reading = (event.bundle, frozenset(event.bundle.targets))  # the warm-up reports TargetsRead
        self.load_error = ""
        outcome = capture_outcome(self.progress, self.lang)  # the last word on the capture that ended here
        self.progress.clear()  # a finished capture's marks give way to the bundle's own statuses
        self._trace = event.trace
        self.bundle = event.bundle
        self.target = shown_target(event.bundle, self._target)
        self._shown = event.shown
        self._let_warm_up_on()  # a bundle read before this one: its warm-up waits no longer
        self._panes_drawn = event.panes_drawn
        if outcome:
            self.notify(outcome)
        return Change(warm=event, tour=True)

