"""The session's background work on the app's threads, and what the app does with what it reports.

Reading a bundle, capturing a model and warming tables are the session's (`explorer.session`); the
app runs them on thread workers (or daemon threads, which quitting never waits for) whose only output
is `SessionEventPosted`. Its handler hands each event to `SessionService.apply` on the UI thread and
does what the returned `Change` says: redraw, read the finished bundle, run the capture the session
allowed, show the panes again, build the level views ahead.

`SessionWork` is a base of `screens.app.TensorwegApp`, which holds `session`, `explorer`, `opened`,
`sync` and `_start_tour_once`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import App

from explorer.errors import TensorwegError
from explorer.session.events import CaptureNeeded
from explorer.session.opening import read_bundle, start_warm_up

from screens.background import in_daemon_thread
from screens.messages import SessionEventPosted

if TYPE_CHECKING:
    from explorer.session.capturing import CaptureJob, MeshJob
    from explorer.session.reports import Change
    from explorer.views.trace import JumpQuestion


@cache  # once per process: later levels find the renderers loaded
def warm_up_renderers() -> None:
    """The code view's renderer (Pygments), loaded on a worker thread, not on the UI thread."""
    from screens.widgets.code_view import warm_up_renderers as load  # noqa: PLC0415 (why: start-up; Pygments not before the rows)

    load()


class SessionWork(App):
    # No key for this long between two level views built ahead (`ExplorerScreen.build_ahead`).
    BUILD_AHEAD_TICK_S = 0.3
    capturing_from_start = False  # a capture started before the first screen (`open_at_start`)

    def deliver(self, event) -> None:
        """Hand `event` to the session on the UI thread (safe from any thread: it only posts)."""
        self.post_message(SessionEventPosted(event))

    # --- opening ---------------------------------------------------------------------

    def open_at_start(self) -> None:
        """Called as the app loads: a bundle whose first level is cheap to list is read now, before the
        first screen is built, which then shows its rows in its first frame; anything else is read (or
        looked up in the cache, or captured) on a worker while the first screen says so."""
        session = self.session
        path = session.read_before_first_frame()
        if path is not None:
            self._apply(read_bundle(path, session.level, session.target, session.lang), at_start=True)
        elif session.nothing_cached:  # the workers' imports start now: the rows wait for TensorFlow's
            self.capturing_from_start = True
            self._apply(CaptureNeeded(), at_start=True)
        elif session.bundle_path is not None or session.model_spec:
            self._open_in_background(session.bundle_path)
        else:
            self.opened.set()
        self._opened_or_not()

    @work(thread=True, exclusive=True, group="open")
    def _open_in_background(self, path: Path | None) -> None:
        self.session.open_in_background(self.deliver, path)

    def _opened_or_not(self) -> None:
        if self.session.settled:
            self.opened.set()
        else:
            self.opened.clear()

    # --- what the session's work reports ------------------------------------------------

    @on(SessionEventPosted)
    def on_session_event_posted(self, message: SessionEventPosted) -> None:
        self._apply(message.event)

    def _apply(self, event, at_start: bool = False) -> None:
        change = self.session.apply(event)
        self._opened_or_not()
        self._do(change, at_start)

    def _do(self, change: Change, at_start: bool = False) -> None:
        if change.warm is not None:
            session = self.session
            start_warm_up(change.warm, session.level, session.target, session.lang, self.deliver,
                          lambda bundle=change.warm.bundle: session.stale(bundle), warm_up_renderers)
        if change.read is not None:
            self.opened.clear()
            self._open_in_background(change.read)
        if change.capture is not None:
            self.run_capture(change.capture)
        if at_start:
            return  # no screen yet: the first one is built with what was read
        if change.sync:
            self.sync()
        if change.panes:
            for screen in self.screen_stack:  # also the explorer under a tour's panel
                show_panes = getattr(screen, "show_panes", None)
                if show_panes is not None:
                    show_panes()
        if change.warmed:
            self._build_ahead_timer = self.set_interval(self.BUILD_AHEAD_TICK_S, self._build_ahead)
        if change.tour:
            self._start_tour_once()

    def _build_ahead(self) -> None:
        if not self.explorer.build_ahead():
            self._build_ahead_timer.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.explorer.key_pressed()  # the views are built ahead while no key comes
            self.session.key_pressed()  # ... and the warm-up steps aside while this key is served
        await super().on_event(event)

    # --- captures ------------------------------------------------------------------------

    @work(exclusive=True, group="jump")
    async def answer_jump(self, question: JumpQuestion) -> None:
        """Find where a number key lands on a daemon thread (a newer key's jump cancels this wait;
        the thread finishes unwaited); then the level shows its rows with that selection."""
        try:
            found = await in_daemon_thread(question.answer, "jump")
        except TensorwegError:
            found = ""  # a damaged level: its view says so, with its own selection
        if self.session.jump_answered(question, found):
            self.explorer.sync()

    def run_capture(self, job: CaptureJob | None) -> None:
        """Run the capture the session allowed (None: it refused, and its status line says why)."""
        if job is None:
            self.show_status()
            return
        self.sync()
        self._capture_in_thread(job)

    @work(thread=True, exclusive=True, group="capture")
    def _capture_in_thread(self, job: CaptureJob) -> None:
        """The job reports only through `deliver`; the renderers load on this thread as levels come."""
        replace(job, on_level=warm_up_renderers).run(self.deliver)

    def run_meshes(self, job: MeshJob | None) -> None:
        """`M`'s captures, allowed by the session (None: refused, said in the status line)."""
        if job is None:
            self.show_status()
            return
        self._meshes_in_thread(job)

    @work(thread=True, exclusive=True, group="mesh-capture")
    def _meshes_in_thread(self, job: MeshJob) -> None:
        job.run(self.deliver)
