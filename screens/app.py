"""The Textual app: one factory for the CLI and the tests, state, and the trail.

The app owns all state (bundle, target, selections per level, the trail of
descents); screens read it and call `descend` / `go_back` / `goto_level`. What that
state means (level statuses, notices, the title and progress lines, where `t` and `c`
and a tour step go) is decided by `explorer.views.session` on `app.session`.
Captures run in a thread worker that only posts `screens.messages` events (`screens.capturing`),
so the first frame never waits for a compiler; opening a bundle (reading its
JSON, building the cross-level index) runs in a thread worker too, started as
the app loads, while Textual builds the first screen (`screens.opening`); the rows go on
screen first, their selection's panes the frame after. Which screen draws each level:
`screens.level_modes`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from rich.console import Console
from textual.app import App
from textual.filter import LineFilter, NoColor
from textual.reactive import reactive
from textual.worker import WorkerFailed

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import ALL, level_named
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.safe_text import visible
from explorer.views.session import FollowedLayer, LevelProgress, Session, StatusNote
from explorer.views.suggested import capture_key_note, passes_key_note
from explorer.views.trace import build_trace
from explorer.views.trace import descend as item_below

from screens.bindings import keyed, localise
from screens.commands import ItemCommands
from screens.level_modes import CSS_DIR, SCREENS, level_sheets, screen_class
from screens.level_prebuild import PrebuildsLevelScreens
from screens.opening import OpeningApp
from screens.refresh_work import KeepsRefreshWorkOfPoppedScreens
from screens.widgets.visible_text import VisibleTextFilter

if TYPE_CHECKING:
    from explorer.capture.model_source import ModelSource
    from explorer.capture.queue import CaptureQueue, QueuePlace
    from explorer.course.lessons import TourPlace
    from explorer.course.tours import Tour
    from explorer.views.trace import Trace

# One instance: Textual caches each line's filtered copy per filter.
VISIBLE_TEXT = VisibleTextFilter()


def plain_terminal(environ=os.environ) -> bool:
    """No colour wanted (NO_COLOR) or none possible (Rich finds no colour system: TERM=dumb).

    Textual would otherwise turn the theme into greys (NO_COLOR) or send truecolour codes
    to a terminal Rich judged colourless; the app then uses the terminal's own ANSI
    colours and removes them (Textual's NoColor filter).
    """
    return "NO_COLOR" in environ or Console(force_terminal=True, _environ=dict(environ)).color_system is None


def _screen_factories() -> dict:
    """mode -> screen class, every one imported (for tests that look at all screens)."""
    return {mode: screen_class(mode) for mode in SCREENS}


class TensorwegApp(KeepsRefreshWorkOfPoppedScreens, PrebuildsLevelScreens, OpeningApp):
    # The app's sheet and the first level's (`__init__`); the other screens' sheets join the
    # stylesheet once the rows are shown (`_read_other_sheets`).
    CSS_PATH = CSS_DIR / "app.tcss"
    TITLE = "tensorweg"
    COMMANDS = App.COMMANDS | {ItemCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [  # words: explorer.labels (`binding.<id>`, `tooltip.<id>`), in the app's language
        *(keyed(level.key, f"goto_level({level.name!r})", level.binding) for level in ALL),  # 1-5, m
        keyed("t", "next_target", "app.target"),
        keyed("c", "capture_missing", "app.capture", show=False),
        keyed("C", "cancel_capture", "app.cancel_capture", show=False),
        keyed("question_mark", "help", "app.help"),
        keyed("G", "glossary", "app.glossary"),
        keyed("L", "toggle_language", "app.language"),
        keyed("T", "tours", "app.tours"),
        keyed("q", "quit", "app.quit"),
        # Over SSH learners expect Ctrl+C to quit (Textual's default asks for Ctrl+Q); a capture
        # in progress is cancelled on the way out (on_unmount).
        keyed("ctrl+c", "quit", "app.interrupt", show=False, priority=True),
        keyed("z", "toggle_maximize", "app.maximize", show=False),
        keyed("x", "compare_targets", "app.compare"),
        keyed("D", "mesh_view", "app.mesh"),
        keyed("f", "filmstrip", "app.passes"),
        keyed("P", "passport", "app.passport", show=False),  # the help lists it; the footer is full
        keyed("V", "what_if", "app.whatif", show=False),  # the help screen lists it
        # Level 0 above the layers: Backspace already goes back from a descent, so the source view has its own key.
        keyed("0", "source_view", "app.source", show=False),  # the help lists it; the footer is full
    ]

    lang = reactive("en", init=False)
    """"en" or "de": every word on screen (labels, bindings, explanations) follows it (`watch_lang`)."""
    bundle: reactive[Bundle | None] = reactive(None, init=False, always_update=True, repaint=False)
    """The bundle on screen (a staging reader while capturing): a new one rebuilds the rows (`watch_bundle`)."""
    target = reactive("cpu", init=False, repaint=False)
    """The target on screen: another one rebuilds the rows (`watch_target`)."""

    def action_filmstrip(self) -> None:
        from explorer.model.passes_grappler import GRAPPLER  # noqa: PLC0415 (kept off the first frame)

        from screens.passes import PassesScreen  # noqa: PLC0415 (kept off the first frame)

        if not isinstance(self.screen, PassesScreen):
            # From the TensorFlow graph level: Grappler's film; from the others: the target's XLA passes.
            film = GRAPPLER if level_named(self.current_mode).lists_ops else self.target
            self.push_screen(PassesScreen(film, self.selections.get(self.current_mode, "")))

    def action_passport(self) -> None:
        """`P`: the passport of the selection on the current target (`explorer.views.passport.place`)."""
        from explorer.views.passport.place import passport_for_selection  # noqa: PLC0415 (kept off the first frame)

        from screens.passport import PassportScreen  # noqa: PLC0415 (kept off the first frame)

        if isinstance(self.screen, PassportScreen) or self.bundle is None:
            return
        try:
            found = passport_for_selection(self.bundle, self.current_mode, self.selections, self.target, self.lang)
        except TensorwegError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.push_screen(PassportScreen(found))

    def action_source_view(self) -> None:
        """`0`: the Python lines above the selection (`explorer.views.source_view`)."""
        from explorer.views.source_view import source_for_selection  # noqa: PLC0415 (kept off the first frame)

        from screens.source import SourceScreen  # noqa: PLC0415 (kept off the first frame)

        if isinstance(self.screen, SourceScreen) or self.bundle is None:
            return
        try:
            view = source_for_selection(self.bundle, self.current_mode, self.selections, self.target)
        except TensorwegError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.push_screen(SourceScreen(view))

    def open_passport_hop(self, target: str, level: str, item: str) -> None:
        """Enter on a passport's hop: its level on the passport's target, its item selected."""
        if target != self.target:
            self.target = target
        self.goto_level(level, item)

    def action_mesh_view(self) -> None:
        from screens.compare import layer_for_selection  # noqa: PLC0415 (kept off the first frame)
        from screens.mesh import MeshScreen  # noqa: PLC0415 (kept off the first frame)

        if isinstance(self.screen, MeshScreen):
            return
        layer = layer_for_selection(self)
        if not self.is_screen_installed("mesh"):
            self.install_screen(MeshScreen(layer), "mesh")
        else:
            self.get_screen("mesh").show_layer(layer)
        self.push_screen("mesh")

    def action_what_if(self) -> None:
        from screens.compare import layer_for_selection  # noqa: PLC0415 (kept off the first frame)
        from screens.variant_diff import WhatIfScreen  # noqa: PLC0415 (kept off the first frame)

        if not isinstance(self.screen, WhatIfScreen):
            self.push_screen(WhatIfScreen(layer_for_selection(self)))

    def action_compare_targets(self) -> None:
        from screens.compare import CompareScreen, layer_for_selection  # noqa: PLC0415 (kept off the first frame)

        if not isinstance(self.screen, CompareScreen):
            self.push_screen(CompareScreen(layer_for_selection(self)))

    def __init__(self, bundle_path: Path | None = None, model_spec: str | None = None,
                 options: CaptureOptions | None = None, level: str = "layers", target: str = "cpu",
                 select: str | None = None, lang: str = "en", plain: bool = False) -> None:
        # The first level's screen is the app's default mode: Textual builds it with the app.
        # (Switching to it from on_mount held every frame back 50 ms and parsed the CSS again.)
        self.DEFAULT_MODE = level
        self.CSS_PATH = [CSS_DIR / "app.tcss", *level_sheets((level,))]
        super().__init__(ansi_color=True if plain else None)
        for mode in SCREENS:  # lazily: only the first screen's module is imported before the first frame
            self.add_mode(mode, partial(self._new_level_screen, mode))
        self.animation_level = "none"
        self.theme = "ansi-dark" if plain else "textual-dark"
        if plain and not any(isinstance(f, NoColor) for f in self._filters):
            self._filters.append(NoColor())  # TERM=dumb without NO_COLOR: Textual adds none itself
        self.bundle_path = Path(bundle_path) if bundle_path else None
        self.model_spec = model_spec
        self.model_source: ModelSource | None = None  # model_spec resolved by the command line (`create_app`)
        self._options = options  # None: capture just `target` (built when first asked for)
        self._requested_target = target
        self.start_level = level
        self.set_reactive(TensorwegApp.target, target)  # no watchers before there is a screen
        self.set_reactive(TensorwegApp.lang, lang)
        self._trace: Trace | None = None
        self.generation = 0
        self.selections: dict[str, str] = {}
        self.trail: list[tuple[str, str]] = []
        self.followed_layers: dict[str, FollowedLayer] = {}  # level -> what `t` follows there
        self.progress: dict[tuple[str, str], LevelProgress] = {}  # (level, target) -> what the capture reported
        self.load_error = ""
        self.opening: Path | None = self.bundle_path  # a bundle being read in the background
        self.opened = asyncio.Event()  # set whenever no bundle is being read (tests wait on it)
        self._reading: tuple[Bundle | None, frozenset[str]] = (None, frozenset())  # see `reading`
        self._selection_shown: threading.Event | None = None  # the open worker waits on it (`selection_shown`)
        if self.bundle_path is None:
            self.opened.set()
        self._cancel = threading.Event()
        self._quitting = threading.Event()  # set as the app ends: `_warm_after_open` stops (Textual owns `_closing`)
        self.failure: TensorwegError | None = None  # what ended the app, for the CLI's one line
        self.note: StatusNote | None = None  # the last notification and where it was made (`Session.status_line`)
        self._switch_unmasked = False  # a switch of modes to a screen built before (`delay_update`)
        self._first_screen_built = False  # the first gets its side panes after its rows (`LevelScreen`)
        self.came_from: dict[str, str] = {}  # mode -> the mode it was entered from (Esc returns there)
        # `tensorweg serve --allow-capture`: captures wait here for a slot shared with the other tabs.
        self.capture_queue: CaptureQueue | None = None
        self.queue_place: QueuePlace | None = None  # while this tab's capture waits in line
        if select:
            self.selections[level] = select

    def _new_level_screen(self, mode: str):
        """The screen of `mode`, built on its first visit.

        Its widgets are styled as they mount, against a stylesheet that holds its sheet already
        (`_read_other_sheets`; earlier, Textual reads it and restyles the app itself): marked as
        styled, it spares the switch two full CSS refreshes, each re-parsing every sheet and
        restyling every node (Textual 8.2.8's `_init_mode` and `switch_mode` refresh for a screen
        marked behind the app, and a new one always is). The first screen, built while the app
        starts and its theme settles, keeps Textual's refresh.
        """
        prebuilt = self.take_prebuilt(mode)
        if prebuilt is not None:  # built while the learner read the screen before (screens.level_prebuild)
            return prebuilt
        screen = screen_class(mode)()
        if mode != self.DEFAULT_MODE:
            screen._css_update_count = self._css_update_count
        elif not self._first_screen_built:
            screen.panes_after_rows = True
        self._first_screen_built = True
        return screen

    # --- start and data -------------------------------------------------------

    def on_load(self) -> None:
        self.open_at_start()

    def on_mount(self) -> None:
        self.call_after_refresh(collect_from_now_on)  # after the first frame (`screens.cli._run_explorer`)
        # A screen shown for the first time (or again after `L`) gets its bindings in the app's language.
        self.screen_change_signal.subscribe(self, lambda screen: localise(screen, self.lang))
        localise(self.screen, self.lang)  # the first one, built with the app
        if self.bundle_path is None or self.bundle is not None:  # else it starts when the bundle is read
            self._start_tour_once()

    def on_unmount(self) -> None:
        self._quitting.set()  # the warm-up threads stop at their next check
        self._cancel.set()
        self.selection_shown()  # an open worker waiting for the rows goes on (and ends)

    def _handle_exception(self, error: Exception) -> None:
        """A TensorwegError inside the app ends it with one line from the CLI, not a traceback."""
        cause = error.error if isinstance(error, WorkerFailed) else error  # raised in a thread worker
        if isinstance(cause, TensorwegError) and "debug" not in self.features:
            self.failure = cause
            self.exit(return_code=2)
            return
        super()._handle_exception(error)

    def _start_tour_once(self) -> None:
        tour = getattr(self, "start_tour", None)
        if tour is not None:
            self.start_tour = None
            self.begin_tour(tour, getattr(self, "start_tour_step", 0))

    # --- what screens ask ------------------------------------------------------

    @property
    def options(self) -> CaptureOptions:
        if self._options is None:
            self._options = CaptureOptions(targets=(self._requested_target,))
        return self._options

    @options.setter
    def options(self, options: CaptureOptions) -> None:
        self._options = options

    @property
    def trace(self) -> Trace:
        """The vertical trace of the bundle on screen (an empty one before any is read)."""
        if self._trace is None:
            self._trace = build_trace(None)
        return self._trace

    @trace.setter
    def trace(self, trace: Trace) -> None:
        self._trace = trace

    @property
    def reading(self) -> frozenset[str]:
        """Targets of the bundle on screen whose optimized modules the open worker is still reading:
        the device pane says so for them instead of reading them on the UI thread (seconds on
        NASNetMobile). Empty for any other bundle (a capture's staging reader)."""
        bundle, targets = self._reading
        return targets if bundle is not None and bundle is self.bundle else frozenset()

    @property
    def can_capture(self) -> bool:
        return bool(self.model_spec)

    @property
    def session(self) -> Session:
        """What the app holds now, as the plain data `explorer.views.session` decides from."""
        return Session(
            bundle=self.bundle, target=self.target, lang=self.lang,
            requested_targets=self._options.targets if self._options is not None else (self._requested_target,),
            model_spec=self.model_spec, progress=MappingProxyType(self.progress), opening=self.opening,
            load_error=self.load_error, queue_place=self.queue_place, trail=tuple(self.trail),
            selections=MappingProxyType(self.selections), followed_layers=MappingProxyType(self.followed_layers),
            note=self.note)

    @property
    def status(self) -> str:
        """The last notification's text ("" when none), wherever it is shown."""
        return self.note.text if self.note is not None else ""

    # Asked by the command palette, tours, benches and tests; the session answers.
    def has_manifest(self) -> bool:
        return self.session.has_manifest()

    def level_ready(self, level: str) -> bool:
        return self.session.level_ready(level)

    def title_line(self, level: str) -> str:
        return self.session.title_line(level)

    # --- navigation -------------------------------------------------------------

    def goto_level(self, level: str, select: str | None = None) -> None:
        if select:
            self.selections[level] = select
        if self.current_mode == level:
            self._sync_screen()
        else:
            self.note = None  # a status line belongs to the level it was made on
            self.came_from[level] = self.current_mode
            # A screen shown before or built and laid out ahead needs no mask (`delay_update`).
            self._switch_unmasked = self.install_prebuilt(level) or level in self._screen_stacks
            try:
                self.switch_mode(level)
            finally:
                self._switch_unmasked = False

    def delay_update(self, delay: float = 0.05) -> None:
        """Textual masks a switch of modes: it holds every frame back for `delay` (50 ms), so a
        screen built during the switch is not seen half done. A screen built before is not: holding
        the frames back only delayed its answer to the key (Textual 8.2.8's `switch_mode`)."""
        if not self._switch_unmasked:
            super().delay_update(delay)

    def return_from(self, level: str, default: str) -> None:
        """Esc on a screen entered from another: back to that one (`default` when opened first)."""
        origin = self.came_from.get(level, default)
        self.goto_level(origin if origin != level else default)

    def action_toggle_maximize(self) -> None:
        """`z`: the focused pane fills the screen (80x24 shows four code lines otherwise); again restores."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif screen.focused is None or not screen.maximize(screen.focused):
            self.notify(label("notify.nothing_to_maximize", self.lang))

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, and first the guard that shows a name's control characters instead of
        sending them to the terminal (`screens.widgets.visible_text`), on every line of every widget."""
        return [VISIBLE_TEXT, *super().get_line_filters()]

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Notifications go to the status line of the screen, never over its content, and only
        while the learner stays where it was made (`Session.status_line`).

        `message` is shown as text: it often carries a layer or op name from the model.
        """
        del timeout, markup  # a status line keeps its message until the place changes; it is always text
        if title:
            message = f"{title}: {message}"
        level = self.current_mode or self.start_level
        self.note_at(str(message), level, self.selections.get(level, ""), bold=severity != "information")

    def note_at(self, message: str, level: str, item: str, bold: bool = False) -> None:
        """Say `message` in the status line of `level` while `item` is selected there."""
        # A name's control characters take their stand-ins' cells.
        self.note = StatusNote(visible(message), level, item, self.lang, bold)
        self.show_status()

    def show_status(self) -> None:
        """Every screen's status line shows what the session says belongs there."""
        for screen in self.screen_stack:
            show = getattr(screen, "show_status", None)
            if show is not None:
                show()

    def action_goto_level(self, level: str) -> None:
        """A number key: the level, with the item the selection leads to there (as Enter would)."""
        self.goto_level(level, self.session.jump_selection(self.current_mode, level) or None)

    def descend(self, level: str, name: str) -> None:
        """Enter: from `name` to the item one level down that implements it (`explorer.views.trace.descend`)."""
        descent = item_below(self.bundle, level, name, self.target)
        if descent is None:
            self.notify(label("notify.lowest_level", self.lang), severity="information")
            return
        if not descent.select:
            self.notify(label("notify.nothing_below", self.lang).format(name=name), severity="warning")
            return
        self.trail.append((level, name))
        self.goto_level(descent.level, descent.select)
        if len(descent.found) > 1:  # said where it lands: about the item selected there
            self.note_at(label("notify.several_below", self.lang).format(
                count=len(descent.found), name=name, first=", ".join(descent.found[:4])),
                descent.level, descent.select)

    def go_back(self) -> None:
        """Backspace/Escape: back to where the last descent started, selection restored."""
        if not self.trail:
            return
        level, name = self.trail.pop()
        self.goto_level(level, name)

    def action_next_target(self) -> None:
        """`t`: the next captured target, the selections moved there (`Session.next_target`)."""
        switch = self.session.next_target()
        if switch is None:
            self.notify(label("notify.one_target", self.lang))
            return
        self.selections.update(switch.selections)
        self.followed_layers.update(switch.followed_layers)
        self.target = switch.target
        self._sync_screen()

    def action_capture_missing(self) -> None:
        """`c`: capture the default targets this bundle lacks (the panes name this key).

        The orchestrator grows the cached bundle: only the workers of the missing
        targets (and of levels that never finished) run; what it has is kept.
        """
        if (note := capture_key_note(self.session, self.can_capture)) is not None:
            self.notify(note)  # a bundle or pack: what to run instead, or that it holds every target
            return
        if self.queue_place is not None:  # starting anew would put it at the back of the line
            self.notify(label("notify.capture_waiting", self.lang))
            return
        self.options = replace(self.options, targets=self.session.targets_to_capture())
        self.run_capture()

    def capture_passes(self) -> None:
        """`c` on a filmstrip without frames: the model again, with every compiler pass kept
        (`--passes`), for the targets on screen; the level screens show the capture's progress."""
        if (note := passes_key_note(self.session, self.can_capture)) is not None:
            self.notify(note)
            return
        self.options = replace(self.options, passes=True, targets=self.session.held_targets())
        self.run_capture()

    # --- course: glossary, language, tours --------------------------------------

    def action_toggle_language(self) -> None:
        self.lang = "de" if self.lang == "en" else "en"

    def watch_bundle(self) -> None:
        self.generation += 1  # screens rebuild their rows when they next sync

    def watch_target(self) -> None:
        self.generation += 1

    def watch_lang(self, lang: str) -> None:
        """Every screen labels itself from explorer.labels when it syncs; bindings are swapped."""
        self.note = None  # its words are the other language's
        for screen in self.screen_stack:  # the level screen under a tour or glossary too
            localise(screen, lang)
            if (sync := getattr(screen, "sync", None)) is not None:
                sync()  # titles, notices, and re-selecting re-renders the panes in the new language

    def action_glossary(self) -> None:
        from screens.glossary import GlossaryScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(GlossaryScreen(self.lang))

    def action_tours(self) -> None:
        from screens.tour import TourListScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(TourListScreen(self.lang, self.bundle), lambda tour: tour and self.begin_tour(tour))

    def begin_tour(self, tour: Tour, index: int = 0) -> None:
        """Show step `index` of `tour`: on the message loop, never from the tour panel's own handler
        (`show_tour_step` pops that panel)."""
        self.call_later(self.show_tour_step, tour, index)

    async def show_tour_step(self, tour: Tour, index: int) -> None:
        """Go where step `index` of `tour` leads (`explorer.course.lessons.tour_step_place`) and put
        the tour panel on top of that level (each level has its own screen stack)."""
        from explorer.course.lessons import tour_step_place  # noqa: PLC0415 (the lessons' level programs load with a tour, not the first frame)

        from screens.tour import TourScreen  # noqa: PLC0415 (its Markdown and exercises load with a tour, not the first frame)

        while isinstance(self.screen, TourScreen):
            await self.pop_screen()
        place = tour_step_place(self.session, tour.steps[index])
        self.note = None  # a status line from before the step describes something else
        self.show_place(place)
        await self.push_screen(TourScreen(tour, index, place.selection))

    def show_place(self, place: TourPlace) -> None:
        """Show `place`: its target (the screens rebuild their rows for a new one), its level, its item."""
        if place.target != self.target:
            self.target = place.target
            self.generation += 1
        self.goto_level(place.level, place.selection)

    def action_help(self) -> None:
        from screens.help import HelpScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(HelpScreen(self.screen))


def collect_from_now_on() -> None:
    """The cyclic garbage collector on again, its passes sparing what start-up made (it lives as long
    as the app), where `tensorweg open` turned it off until the first frame was drawn."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def create_app(bundle_path: Path | str | None = None, model_spec: str | None = None,
               options: CaptureOptions | None = None, level: str = "layers", target: str = "cpu",
               select: str | None = None, lang: str = "en", tour: Tour | None = None,
               plain: bool = False, capture_queue: CaptureQueue | None = None, tour_step: int = 0,
               model_source: ModelSource | None = None) -> TensorwegApp:
    """The app as the CLI, the screenshots and the tests build it.

    `plain`: the terminal's own colours, then none (`plain_terminal()`, which the CLI passes for a
    real terminal); screenshots and tests keep the fixed theme whatever the environment says.
    `model_source`: `model_spec` as the command line resolved it (its file hashed once, not again).
    """
    app = TensorwegApp(Path(bundle_path) if bundle_path else None, model_spec, options, level, target, select,
                       lang, plain)
    app.start_tour = tour  # an explorer.course.tours.Tour to start in, or None
    app.start_tour_step = tour_step  # the index of its first step shown (`tensorweg tour --step N`)
    app.capture_queue = capture_queue
    app.model_source = model_source
    return app
