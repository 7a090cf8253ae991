"""The explorer's session: what the app's state is, and the only way anything starts a capture.

The Textual app holds one `SessionService` and nothing else of the core's state. Screens ask it what
to show (through `now`, the frozen `explorer.views.session.Session` it decides from, and the
shortcuts below) and post intents to it: a selection moved, Enter, Backspace, a number key, `t`,
`L`, `c`, a tour step, `M`. Every capture goes through `_capture_job` and its `CapturePolicy`
(`explorer.session.policy`): a `serve` tab that may not capture is refused once, here, for every key
and every screen, and a tab that may waits in the server's queue. Background work (reading a bundle,
capturing) runs on the UI's threads but reports plain events (`explorer.session.events`), which the
UI hands back to `apply` on its own thread; `apply` says what the screen must do next (`Change`).

State is changed only on the UI thread, by these methods; the threads read what they were given.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from explorer.key_turns import key_turn
from explorer.labels import label
from explorer.levels import LAYERS
from explorer.model.built import NotBuilt, only_read
from explorer.model.records import CaptureOptions
from explorer.safe_text import visible
from explorer.session import events
from explorer.session.capturing import CaptureJob, MeshJob, ShownAs
from explorer.session.policy import CapturePolicy, recorded_spec_is_safe
from explorer.session.reports import AppliesReports
from explorer.views.session import FollowedLayer, LevelProgress, Session, StatusNote
from explorer.views.suggested import capture_key_note, passes_key_note
from explorer.views.trace import JumpQuestion, Trace, build_trace
from explorer.views.trace import descend as item_below

if TYPE_CHECKING:
    from explorer.capture.model_source import ModelSource
    from explorer.capture.queue import QueuePlace
    from explorer.course.exercises import Verdict
    from explorer.course.lessons import TourPlace
    from explorer.course.tours import Tour, TourStep
    from explorer.model.bundle import Bundle

# The levels whose rows need no module parsed (a few milliseconds even for ResNet50): a bundle opened
# on one of them is read before the first frame (`read_before_first_frame`).
READ_BEFORE_FIRST_FRAME = (LAYERS.name,)




class SessionService(AppliesReports):
    """bundle_path: a bundle folder to open; model_spec: a model to open from the cache or capture (with
    `options`, `model_source` its resolved file); level/target/select: where the app opens; policy: who
    may capture (`serve`'s tabs)."""

    def __init__(self, bundle_path: Path | None = None, model_spec: str | None = None,
                 options: CaptureOptions | None = None, level: str = LAYERS.name, target: str = "cpu",
                 select: str | None = None, lang: str = "en", policy: CapturePolicy | None = None,
                 model_source: ModelSource | None = None) -> None:
        self.bundle_path = Path(bundle_path) if bundle_path else None
        self.model_spec = model_spec
        self.model_source = model_source
        self.policy = policy or CapturePolicy()
        self._options = options  # None: capture just the target asked for (built when first needed)
        self._requested_target = target
        self.start_level = self.level = level
        self._target = target
        self.lang = lang
        self._bundle: Bundle | None = None
        self._trace: Trace | None = None
        self.generation = 0  # bumped when the bundle or the target changes: the rows are rebuilt
        self.selections: dict[str, str] = {level: select} if select else {}
        self.trail: list[tuple[str, str]] = []
        self.followed_layers: dict[str, FollowedLayer] = {}
        self.progress: dict[tuple[str, str], LevelProgress] = {}
        self.load_error = ""
        self.opening: Path | None = self.bundle_path
        self.note: StatusNote | None = None
        self.came_from: dict[str, str] = {}
        self.queue_place: QueuePlace | None = None
        self.capture_generation = 0
        self._cancel = threading.Event()
        self._reading: tuple[Bundle | None, frozenset[str]] = (None, frozenset())
        self._shown: threading.Event | None = None
        self._panes_drawn: threading.Event | None = None
        self.quitting = threading.Event()
        self.meshes_capturing = False
        self.meshes_captured = 0  # `M` runs finished: the cached sibling bundles may have changed
        self.mesh_refused: dict[str, dict[str, str]] = {}  # target -> mesh -> why `M` could not capture it
        self._mesh_cancel = threading.Event()
        self._answers: dict[tuple[str, str], dict[int, Verdict]] = {}
        self._grow_after_rows = False  # the cached bundle read at start lacks targets asked for
        # The cache has nothing of the model to show (`read_before_first_frame`): its capture starts
        # before the first screen is built, not on an event the screen's building held up.
        self.nothing_cached = False
        self.pending_jump: JumpQuestion | None = None  # a number key's selection a worker still works out

    # --- state ------------------------------------------------------------------------

    @property
    def bundle(self) -> Bundle | None:
        """The bundle on screen (a capture's staging reader while it runs), None before one."""
        return self._bundle

    @bundle.setter
    def bundle(self, bundle: Bundle | None) -> None:
        self._bundle = bundle
        self.generation += 1
        self.pending_jump = None  # asked of the bundle before

    @property
    def target(self) -> str:
        return self._target

    @target.setter
    def target(self, target: str) -> None:
        if target != self._target:
            self._target = target
            self.generation += 1
            self.pending_jump = None  # asked of the target before

    @property
    def trace(self) -> Trace:
        """The vertical trace of the bundle on screen (an empty one before any is read)."""
        if self._trace is None:
            self._trace = build_trace(None)
        return self._trace

    @property
    def options(self) -> CaptureOptions:
        if self._options is None:
            self._options = CaptureOptions(targets=(self._requested_target,))
        return self._options

    @property
    def reading(self) -> frozenset[str]:
        """Targets of the bundle on screen whose modules the warm-up still reads: the device pane says
        so for them instead of reading them on the UI thread. Empty for any other bundle."""
        bundle, targets = self._reading
        return targets if bundle is not None and bundle is self._bundle else frozenset()

    @property
    def settled(self) -> bool:
        """Nothing is being opened or read (tests and screenshots wait for this)."""
        return self.opening is None and not self.reading

    @property
    def now(self) -> Session:
        """What the session holds now, as the plain data `explorer.views.session` decides from."""
        return Session(
            bundle=self._bundle, target=self._target, lang=self.lang,
            requested_targets=self._options.targets if self._options is not None else (self._requested_target,),
            model_spec=self.model_spec, progress=MappingProxyType(self.progress), opening=self.opening,
            load_error=self.load_error, queue_place=self.queue_place, trail=tuple(self.trail),
            selections=MappingProxyType(self.selections), followed_layers=MappingProxyType(self.followed_layers),
            note=self.note)

    # The questions screens ask most, answered by `now`.
    def title_line(self, level: str) -> str:
        return self.now.title_line(level)

    def level_ready(self, level: str) -> bool:
        return self.now.level_ready(level)

    def level_notice(self, level: str) -> str:
        return self.now.level_notice(level)

    def status_line(self, level: str) -> StatusNote | None:
        return self.now.status_line(level)

    def captured_targets(self) -> tuple[str, ...]:
        return self.now.captured_targets()

    @property
    def status(self) -> str:
        """The last notification's text ("" when none), wherever it is shown."""
        return self.note.text if self.note is not None else ""

    @property
    def may_capture(self) -> bool:
        """Whether `c` may capture here (the panes then name the key)."""
        return not self.policy.refusal(self.model_spec or "", self.lang)

    # --- notes ------------------------------------------------------------------------

    def notify(self, message: str, bold: bool = False) -> None:
        """Say `message` in the status line of the level on screen while its selection stays."""
        self.note_at(message, self.level, self.selections.get(self.level, ""), bold)

    def note_at(self, message: str, level: str, item: str, bold: bool = False) -> None:
        """Say `message` under `level` while `item` is selected there (a name's controls shown as stand-ins)."""
        self.note = StatusNote(visible(message), level, item, self.lang, bold)

    # --- navigation -------------------------------------------------------------------

    def select(self, level: str, name: str) -> None:
        """The list's cursor on `level` moved to `name`."""
        self.selections[level] = name

    def goto(self, level: str, select: str | None = None) -> bool:
        """Show `level` (with `select` selected there); whether the level changed. A jump still being
        answered is dropped: the learner went on (`jump`)."""
        if select or level != self.level:
            self.pending_jump = None
        if select:
            self.selections[level] = select
        if level == self.level:
            return False
        self.note = None  # a status line belongs to the level it was made on
        self.came_from[level] = self.level
        self.level = level
        return True

    def key_pressed(self) -> None:
        """A learner's key: what is built ahead on other threads waits while the UI serves it
        (`explorer.key_turns`)."""
        key_turn()

    def jump(self, level: str) -> bool:
        """A number key: `level`, with the item the selection leads to there (as Enter would). Where the
        tables that say which are not built yet, `level` at once and its selection when a worker has
        answered (`pending_jump`, `jump_answered`): a 5,000-layer model's `5` parsed and linked its
        modules on the UI thread for 10 s, and every key waited."""
        question = self.now.jump_question(self.level, level)
        try:
            with only_read():
                found = question.answer()
        except NotBuilt:
            changed = self.goto(level)
            self.pending_jump = question
            return changed
        return self.goto(level, found or None)

    def jump_answered(self, question: JumpQuestion, found: str) -> bool:
        """A worker answered `question`: its selection, if it is still the jump on show (no key took the
        learner elsewhere, the bundle and target are the same). Whether it was."""
        if question is not self.pending_jump:
            return False
        self.pending_jump = None
        if found:
            self.selections[question.other] = found
        return True

    def jump_pending(self, level: str) -> bool:
        """Whether `level`'s selection waits for a jump's answer (its list waits with it)."""
        return self.pending_jump is not None and self.pending_jump.other == level

    def return_from(self, level: str, default: str) -> bool:
        """Esc on a screen entered from another: back to that one (`default` when opened first)."""
        origin = self.came_from.get(level, default)
        return self.goto(origin if origin != level else default)

    def descend(self, level: str, name: str) -> None:
        """Enter: from `name` to the item one level down that implements it (`explorer.views.trace.descend`)."""
        descent = item_below(self._bundle, level, name, self._target)
        if descent is None:
            self.notify(label("notify.lowest_level", self.lang))
            return
        if not descent.select:
            self.notify(label("notify.nothing_below", self.lang).format(name=name), bold=True)
            return
        self.trail.append((level, name))
        self.goto(descent.level, descent.select)
        if len(descent.found) > 1:  # said where it lands: about the item selected there
            self.note_at(label("notify.several_below", self.lang).format(
                count=len(descent.found), name=name, first=", ".join(descent.found[:4])),
                descent.level, descent.select)

    def go_back(self) -> bool:
        """Backspace: back to where the last descent started, selection restored; whether there was one."""
        if not self.trail:
            return False
        level, name = self.trail.pop()
        self.goto(level, name)
        return True

    def follow_operand(self, level: str, name: str, operands: tuple[str, ...]) -> str:
        """`o`: up the data flow to `name`'s first operand (Backspace comes back); "" when it has none."""
        if not operands:
            self.notify(label("notify.no_operands", self.lang).format(name=name))
            return ""
        operand = operands[0]
        self.trail.append((level, name))
        self.selections[level] = operand
        if len(operands) > 1:  # said where it lands: under the operand now selected
            self.note_at(label("notify.operands", self.lang).format(name=name, operands=", ".join(operands)),
                         level, operand)
        return operand

    def next_target(self) -> bool:
        """`t`: the next captured target, the selections moved there (`Session.next_target`)."""
        switch = self.now.next_target()
        if switch is None:
            self.notify(label("notify.one_target", self.lang))
            return False
        self.selections.update(switch.selections)
        self.followed_layers.update(switch.followed_layers)
        self.target = switch.target
        return True

    def show_target(self, target: str) -> None:
        """Show `target` (a passport's hop, a tour step): the screens rebuild their rows for it."""
        self.target = target

    def toggle_language(self) -> str:
        self.lang = "de" if self.lang == "en" else "en"
        self.note = None  # its words are the other language's
        return self.lang

    def verdicts(self, tour: Tour) -> dict[int, Verdict]:
        """The learner's answers to `tour` so far: step index -> the last verdict (the lesson's summary)."""
        return self._answers.setdefault((tour.source, tour.title), {})

    def tour_place(self, step: TourStep) -> TourPlace:
        """Where a tour step goes (`explorer.course.lessons.tour_step_place`), shown: target, level, item."""
        from explorer.course.lessons import tour_step_place  # noqa: PLC0415 (the lessons load with a tour, not the first frame)

        place = tour_step_place(self.now, step)
        self.note = None  # a status line from before the step describes something else
        self.show_target(place.target)
        self.goto(place.level, place.selection)
        return place

    # --- opening ------------------------------------------------------------------------

    def read_before_first_frame(self) -> Path | None:
        """The bundle to read on the UI thread before the first screen is built (its rows then come in
        the first frame), else None: the UI opens in the background (`open_in_background`).

        Read on a thread while Textual built the screen, the same reading took four to eight times as long:
        the thread waited for the interpreter after each file it read, and the rows came a frame later.
        """
        if self.start_level not in READ_BEFORE_FIRST_FRAME:
            return None
        if self.bundle_path is not None:
            return self.bundle_path
        if self.model_spec:
            from explorer.capture.ready_bundle import (  # noqa: PLC0415 (start-up: only for a model)
                partly_cached_bundle,
                ready_cached_bundle,
            )

            path = ready_cached_bundle(self.model_spec, self.options, self.model_source)
            if path is None:  # part of it, maybe: shown now, the rest captured once its rows show
                path = partly_cached_bundle(self.model_spec, self.options, self.model_source)
                self._grow_after_rows = path is not None
                self.nothing_cached = path is None
            if path is not None:
                self.opening = path
            return path
        return None

    def capture_after_rows(self) -> CaptureJob | None:
        """The first rows are on screen: the capture of what the cached bundle read before them lacks
        (`read_before_first_frame`), else None. Started before them, its workers' imports took the
        cores the first frame needed (the rows came at 3.2x a hello-world app's, not 1.3x)."""
        if not self._grow_after_rows:
            return None
        self._grow_after_rows = False
        return self.capture_at_start()

    def open_in_background(self, emit: events.Emit, path: Path | None) -> None:
        """On a worker thread: read `path` (a bundle folder, or the cache's bundle found before), or find
        the model asked for in the cache and read it, or say it must be captured. Only emits."""
        if path is None and self.model_spec:
            from explorer.capture.ready_bundle import ready_cached_bundle  # noqa: PLC0415 (start-up: only for a model)

            path = ready_cached_bundle(self.model_spec, self.options, self.model_source)
            if path is None:
                emit(events.CaptureNeeded())
                return
            emit(events.CachedBundleFound(path))
        if path is not None:
            from explorer.session.opening import read_bundle  # noqa: PLC0415 (as above)

            emit(read_bundle(path, self.level, self._target, self.lang))

    def selection_shown(self) -> None:
        """The screen shows the new rows and their selection: the warm-up may go on."""
        if self._shown is not None:
            self._shown.set()
            self._shown = None

    def panes_drawn(self) -> None:
        """The side panes are drawn with every target read: the warm-up's renderers and tables may go on
        (built meanwhile, they slowed the frame that completes the first screen)."""
        if not self.reading:
            self._let_warm_up_on()

    def stale(self, bundle: Bundle) -> bool:
        """Whether work for `bundle` may stop: the app ends, or another bundle replaced it."""
        return self.quitting.is_set() or self._bundle is not bundle

    def quit(self) -> None:
        """The app ends: background work stops at its next check, captures are cancelled."""
        self.quitting.set()
        self._cancel.set()
        self._mesh_cancel.set()
        self.selection_shown()
        self._let_warm_up_on()

    def _let_warm_up_on(self) -> None:
        if self._panes_drawn is not None:
            self._panes_drawn.set()
            self._panes_drawn = None

    # --- captures: the one way to start one -------------------------------------------------

    def capture_missing(self) -> CaptureJob | None:
        """`c`: the default targets this bundle lacks (the orchestrator grows the cached bundle: only
        the missing targets' workers run). None when refused (the status line says why)."""
        if self.queue_place is not None:  # starting anew would put it at the back of the line
            self.notify(label("notify.capture_waiting", self.lang))
            return None
        if self.policy.allowed and not self.model_spec:  # a bundle or pack: what to run instead
            self.notify(capture_key_note(self.now, can_capture=False) or "")
            return None
        return self._capture_job(replace(self.options, targets=self.now.targets_to_capture()))

    def capture_passes(self) -> CaptureJob | None:
        """`c` on a filmstrip without frames: the model again with every compiler pass kept (`--passes`),
        for the targets on screen."""
        if self.policy.allowed and not self.model_spec:
            self.notify(passes_key_note(self.now, can_capture=False) or "")
            return None
        return self._capture_job(replace(self.options, passes=True, targets=self.now.held_targets()))

    def capture_at_start(self) -> CaptureJob | None:
        """The model asked for is not in the cache whole: capture it."""
        return self._capture_job(self.options)

    def _capture_job(self, options: CaptureOptions) -> CaptureJob | None:
        """Start a capture of the model named with `options`, if the policy allows it; a capture still
        running is cancelled first and whatever it still reports is dropped (by generation)."""
        refusal = self.policy.refusal(self.model_spec or "", self.lang)
        if refusal:
            self.notify(refusal)
            return None
        self._options = options
        self._cancel.set()
        self._cancel = threading.Event()
        self.capture_generation += 1
        self.progress.clear()
        return CaptureJob(self.model_spec or "", options, self.capture_generation, self._cancel,
                          gate_for=self.policy.gate, on_level=lambda: None, shown=self._shown_as)

    def _shown_as(self) -> ShownAs:
        return ShownAs(self.level, self._target, self.lang)

    def cancel_capture(self) -> None:
        """`C`: give up the capture (or its place in the serve queue); what is on screen stays."""
        self._cancel.set()
        self.capture_generation += 1  # whatever it still reports is dropped
        self.queue_place = None
        self.progress.clear()

    def capture_meshes(self, wanted: tuple[CaptureOptions, ...], target: str) -> MeshJob | None:
        """`M`: the meshes the compare table lacks, captured into the cache one after the other, with the
        model named (or the bundle's own, when it names no Python to run). None when refused."""
        if not wanted or self.meshes_capturing:
            return None
        spec = self.model_spec or ""
        if not spec and self._bundle is not None and self._bundle.has_manifest():
            recorded = self._bundle.manifest.model.spec
            if not recorded_spec_is_safe(recorded):
                self.notify(label("notify.capture_runs_code", self.lang).format(spec=recorded))
                return None
            spec = recorded
        refusal = self.policy.refusal(spec, self.lang)
        if refusal:
            self.notify(refusal)
            return None
        self.meshes_capturing = True
        return MeshJob(spec, wanted, target, self._mesh_cancel, gate_for=self.policy.gate)

    def cancel_meshes(self) -> None:
        """The compare screen closed: `M`'s workers are killed; the cache keeps what finished."""
        self._mesh_cancel.set()
        self._mesh_cancel = threading.Event()
        self.meshes_capturing = False
