"""The Textual app: one factory for the CLI and the tests, the keys, and the session's background work.

All state is the session's (`explorer.session.SessionService`, on `app.session`): the bundle, target,
level, selections, trail, language, a capture's progress and who may capture. The app turns keys into
the session's intents and redraws the one screen (`screens.explorer_screen.ExplorerScreen`); the
properties below (`bundle`, `target`, `lang`, ...) only read the session, for the screens pushed over
it. Background work (`screens.session_work`) runs the session's reading and captures on threads that
only post `SessionEventPosted`; `on_session_event_posted` hands each event to `session.apply` and does
what it says.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.filter import LineFilter, NoColor

from explorer.labels import label
from explorer.levels import ALL, level_named
from explorer.session.service import SessionService

from screens.bindings import keyed
from screens.commands import ItemCommands
from screens.explorer_screen import ExplorerScreen
from screens.session_work import SessionWork
from screens.textual_compat import EndsOnCoreErrors
from screens.widgets.visible_text import VisibleTextFilter

if TYPE_CHECKING:
    from screens.widgets.item_table import ItemTable

CSS_DIR = Path(__file__).parent
# One instance: Textual caches each line's filtered copy per filter.
VISIBLE_TEXT = VisibleTextFilter()
# Every screen pushed over the explorer has its sheet beside its module; they join the app's stylesheet
# once the first rows are shown (`_read_other_sheets`), so the first push parses nothing.
PUSHED_SHEETS = tuple(CSS_DIR / f"{name}.tcss" for name in ("compare", "passes", "mesh", "help", "glossary",
                                                           "tour", "passport", "source", "variant_diff",
                                                           "fusion_pair", "option_notes"))


def plain_terminal(environ=os.environ) -> bool:
    """No colour wanted (NO_COLOR) or none possible (a terminal that says it is dumb).

    Textual would otherwise turn the theme into greys (NO_COLOR) or send colour codes to a terminal
    that shows them as text; the app then uses the terminal's own ANSI colours and removes them
    (Textual's NoColor filter). Rich judges TERM=dumb and TERM=unknown colourless, as this does.
    """
    return "NO_COLOR" in environ or environ.get("TERM", "").lower() in ("dumb", "unknown")


class TensorwegApp(EndsOnCoreErrors, SessionWork, App):
    CSS_PATH = CSS_DIR / "app.tcss"
    TITLE = "tensorweg"
    COMMANDS = App.COMMANDS | {ItemCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [  # words: explorer.labels (`binding.<id>`, `tooltip.<id>`), drawn in the app's language
        *(keyed(level.key, f"goto_level({level.name!r})", level.binding) for level in ALL),  # 1-5, m
        keyed("t", "next_target", "app.target"),
        keyed("c", "capture_missing", "app.capture", show=False),
        keyed("C", "cancel_capture", "app.cancel_capture", show=False),
        keyed("question_mark", "help", "app.help"),
        keyed("G", "glossary", "app.glossary"),
        keyed("L", "toggle_language", "app.language"),
        keyed("T", "tours", "app.tours"),
        keyed("q", "quit", "app.quit"),
        # Over SSH learners expect Ctrl+C to quit (Textual's default asks for Ctrl+Q), and Textual copies
        # selected text with it: with text selected it copies, else it quits (a capture in progress is
        # cancelled on the way out, on_unmount).
        keyed("ctrl+c", "copy_or_quit", "app.interrupt", show=False, priority=True),
        keyed("z", "toggle_maximize", "app.maximize", show=False),
        keyed("x", "compare_targets", "app.compare"),
        keyed("D", "mesh_view", "app.mesh"),
        keyed("f", "filmstrip", "app.passes"),
        keyed("P", "passport", "app.passport", show=False),  # the help lists it; the footer is full
        keyed("V", "what_if", "app.whatif", show=False),  # the help screen lists it
        # Level 0 above the layers: Backspace already goes back from a descent, so the source view has its own key.
        keyed("0", "source_view", "app.source", show=False),  # the help lists it; the footer is full
    ]

    def __init__(self, session: SessionService, plain: bool = False, keymap: dict[str, str] | None = None) -> None:
        super().__init__(ansi_color=True if plain else None)
        self.session = session
        self.plain = plain
        self.user_keymap = keymap or {}  # binding id -> keys (`screens.keymap`, read by the command line)
        self.animation_level = "none"
        self.theme = "ansi-dark" if plain else "textual-dark"
        self.opened = asyncio.Event()  # set whenever nothing is being read (tests and screenshots wait on it)
        self.first_frame_shown = False  # Textual's Ready: frames reach the terminal from now on
        self.failure = None  # a TensorwegError that ended the app, for the CLI's one line
        self.start_tour = None  # an explorer.course.tours.Tour to start in (`create_app`)
        self.start_tour_step = 0
        self._first_rows_shown = False

    # --- what the screens pushed over the explorer read (the session's, read-only) ---------------

    @property
    def lang(self) -> str:
        return self.session.lang

    @property
    def bundle(self):
        return self.session.bundle

    @property
    def target(self) -> str:
        return self.session.target

    @property
    def level(self) -> str:
        """The level on show (a screen pushed over it stands on it)."""
        return self.session.level

    @property
    def selections(self) -> dict[str, str]:
        return self.session.selections

    @property
    def status(self) -> str:
        return self.session.status

    @property
    def trace(self):
        return self.session.trace

    @property
    def progress(self):
        return self.session.progress

    @property
    def load_error(self) -> str:
        return self.session.load_error

    @property
    def queue_place(self):
        return self.session.queue_place

    @property
    def generation(self) -> int:
        return self.session.generation

    def has_manifest(self) -> bool:
        return self.session.now.has_manifest()

    @property
    def explorer(self) -> ExplorerScreen:
        """The one screen the levels are shown on (under any screen pushed over it)."""
        return self._explorer

    @property
    def items_table(self) -> ItemTable | None:
        """The list of the level on show (None on the memory map)."""
        return self.explorer.items_table

    # --- start ------------------------------------------------------------------

    def get_default_screen(self) -> ExplorerScreen:
        # The app's first frame is the rows alone; the side panes follow (`ExplorerScreen.panes_after_rows`).
        self._explorer = ExplorerScreen(self.session.start_level, panes_after_rows=True)
        return self._explorer

    def on_load(self) -> None:
        if self.user_keymap:
            self.set_keymap(self.user_keymap)  # a learner's own keys for tensorweg's bindings
        self.open_at_start()

    def on_mount(self) -> None:
        self.call_after_refresh(collect_from_now_on)  # after the first frame (`screens.cli._run_explorer`)

    def explorer_mounted(self) -> None:
        """The explorer's screen is composed: a start tour may go where its first step leads."""
        session = self.session
        if session.bundle is not None or self.capturing_from_start or (
                session.bundle_path is None and not session.model_spec):
            self._start_tour_once()  # else it starts with the bundle read, or with the capture

    def on_ready(self) -> None:
        self.first_frame_shown = True
        if isinstance(self.screen, ExplorerScreen):
            self.screen.first_frame_out()

    def on_unmount(self) -> None:
        self.session.quit()  # warm-ups stop at their next check, captures are cancelled

    def rows_shown(self) -> None:
        """The explorer shows rows and their selection: what follows the first frame may start."""
        if not self._first_rows_shown:
            self._first_rows_shown = True
            self.call_after_refresh(self._read_other_sheets)
            job = self.session.capture_after_rows()
            if job is not None:  # what the cache lacked, captured behind the rows now on screen
                self.call_after_refresh(self.run_capture, job)

    def _read_other_sheets(self) -> None:
        """Add every pushed screen's sheet to the app's stylesheet, once the first rows are shown: parsed
        now, while idle, instead of with the key that first pushes the screen."""
        stylesheet = self.stylesheet
        new = [path for path in PUSHED_SHEETS if path.exists() and not stylesheet.has_source(str(path))]
        for path in new:
            stylesheet.add_source(path.read_text(encoding="utf-8"), read_from=(str(path), ""))
        if new:
            stylesheet.parse()

    def _start_tour_once(self) -> None:
        tour = self.start_tour
        if tour is not None and self.explorer.view is not None:  # composed: else `explorer_mounted` starts it
            self.start_tour = None
            self.begin_tour(tour, self.start_tour_step)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """First the guard that shows a name's control characters instead of sending them to the terminal
        (`screens.widgets.visible_text`), on every line of every widget; then Textual's own, and with a
        plain terminal the filter that removes every colour (Textual adds it only for NO_COLOR)."""
        filters = [VISIBLE_TEXT, *super().get_line_filters()]
        if self.plain and not any(isinstance(each, NoColor) for each in filters):
            filters.append(NoColor())
        return filters

    # --- keys: the session's intents, then the screen redrawn -------------------------

    def sync(self) -> None:
        """Redraw the explorer (and the screens over it) from the session."""
        for screen in self.screen_stack:
            sync = getattr(screen, "sync", None)
            if sync is not None:
                sync()

    def show_status(self) -> None:
        """Every screen's status line shows what the session says belongs there."""
        for screen in self.screen_stack:
            show = getattr(screen, "show_status", None)
            if show is not None:
                show()

    def goto_level(self, level: str, select: str | None = None) -> None:
        """Show `level` (with `select` selected there)."""
        self.session.goto(level, select)
        self.run_worker(self.explorer.show_level(self.session.level), group="show-level", exclusive=False)

    def action_goto_level(self, level: str) -> None:
        """A number key: the level, with the item the selection leads to there (as Enter would); where
        that takes tables not built yet, the level at once and the item when a worker has found it."""
        self.session.jump(level)
        self.run_worker(self.explorer.show_level(self.session.level), group="show-level", exclusive=False)
        if self.session.pending_jump is not None:
            self.answer_jump(self.session.pending_jump)

    def return_from(self, level: str, default: str) -> None:
        """Esc on a level entered from another: back to that one (`default` when opened first)."""
        self.session.return_from(level, default)
        self.goto_level(self.session.level)

    def descend(self, level: str, name: str) -> None:
        """Enter: from `name` to the item one level down that implements it."""
        self.session.descend(level, name)
        self.goto_level(self.session.level)

    def go_back(self) -> None:
        """Backspace/Escape: back to where the last descent started, selection restored."""
        if self.session.go_back():
            self.goto_level(self.session.level)

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Notifications go to the status line of the screen, never over its content, and only while the
        learner stays where it was made (`Session.status_line`). `message` is shown as text: it often
        carries a layer or op name from the model."""
        del timeout, markup  # a status line keeps its message until the place changes; it is always text
        self.session.notify(f"{title}: {message}" if title else str(message), bold=severity != "information")
        self.show_status()

    def note_at(self, message: str, level: str, item: str, bold: bool = False) -> None:
        self.session.note_at(message, level, item, bold)
        self.show_status()

    def action_next_target(self) -> None:
        """`t`: the next captured target, the selections moved there (`Session.next_target`)."""
        self.session.next_target()
        self.sync()

    def open_passport_hop(self, target: str, level: str, item: str) -> None:
        """Enter on a passport's hop: its level on the passport's target, its item selected."""
        self.session.show_target(target)
        self.goto_level(level, item)

    def action_copy_or_quit(self) -> None:
        """Ctrl+C: the text selected with the mouse to the clipboard (Textual's copy), else quit."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            self.notify(label("notify.copied", self.lang).format(count=len(selected)))
            return
        self.exit()

    def action_toggle_maximize(self) -> None:
        """`z`: the focused pane fills the screen (80x24 shows four code lines otherwise); again restores."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        pane = self.explorer.view.pane_to_maximize() if screen is self.explorer else screen.focused
        if pane is None or not screen.maximize(pane):
            self.notify(label("notify.nothing_to_maximize", self.lang))

    def action_toggle_language(self) -> None:
        """`L`: every word on screen follows (labels, bindings, explanations)."""
        self.session.toggle_language()
        self.sync()
        self.refresh_bindings()

    # --- captures: asked of the session, which may refuse ---------------------------------

    def action_capture_missing(self) -> None:
        """`c`: capture the default targets this bundle lacks (the panes name this key)."""
        self.run_capture(self.session.capture_missing())

    def capture_passes(self) -> bool:
        """`c` on a filmstrip without frames: the model again with every pass kept, for the targets on
        screen. Whether it started (refused, the status line says why)."""
        job = self.session.capture_passes()
        self.run_capture(job)
        return job is not None

    def action_cancel_capture(self) -> None:
        """`C`: give up the capture (or its place in the serve queue); what is on screen stays."""
        self.session.cancel_capture()
        self.sync()

    # --- screens over the explorer ---------------------------------------------------

    def action_filmstrip(self) -> None:
        from explorer.views.passes import GRAPPLER  # noqa: PLC0415 (kept off the first frame)

        from screens.passes import PassesScreen  # noqa: PLC0415 (kept off the first frame)

        if not isinstance(self.screen, PassesScreen):
            # From the TensorFlow graph level: Grappler's film; from the others: the target's XLA passes.
            film = GRAPPLER if level_named(self.level).lists_ops else self.target
            self.push_screen(PassesScreen(film, self.selections.get(self.level, "")))

    def action_passport(self) -> None:
        """`P`: the passport of the selection on the current target (`explorer.views.passport.place`)."""
        from explorer.errors import TensorwegError  # noqa: PLC0415 (as below)
        from explorer.views.passport.place import passport_for_selection  # noqa: PLC0415 (kept off the first frame)

        from screens.passport import PassportScreen  # noqa: PLC0415 (kept off the first frame)

        if isinstance(self.screen, PassportScreen) or self.bundle is None:
            return
        try:
            found = passport_for_selection(self.bundle, self.level, self.selections, self.target, self.lang)
        except TensorwegError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.push_screen(PassportScreen(found))

    def action_source_view(self) -> None:
        """`0`: the Python lines above the selection (`explorer.views.source_view`)."""
        from explorer.errors import TensorwegError  # noqa: PLC0415 (as below)
        from explorer.views.source_view import source_for_selection  # noqa: PLC0415 (kept off the first frame)

        from screens.source import SourceScreen  # noqa: PLC0415 (kept off the first frame)

        if isinstance(self.screen, SourceScreen) or self.bundle is None:
            return
        try:
            view = source_for_selection(self.bundle, self.level, self.selections, self.target)
        except TensorwegError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.push_screen(SourceScreen(view))

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

    def action_glossary(self) -> None:
        from screens.glossary import GlossaryScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(GlossaryScreen(self.lang))

    def action_help(self) -> None:
        from screens.help import HelpScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(HelpScreen(self.screen))

    # --- tours ------------------------------------------------------------------------

    def action_tours(self) -> None:
        from screens.tour import TourListScreen  # noqa: PLC0415 (kept off the first frame)

        self.push_screen(TourListScreen(self.lang, self.bundle), lambda tour: tour and self.begin_tour(tour))

    def begin_tour(self, tour, index: int = 0) -> None:
        """Show step `index` of `tour`: on the message loop, never from the tour panel's own handler."""
        self.call_later(self.show_tour_step, tour, index)

    async def show_tour_step(self, tour, index: int) -> None:
        """Go where step `index` of `tour` leads (`SessionService.tour_place`) and show the tour panel over
        the explorer: the one panel, moved to the step, or a new one."""
        from screens.tour import TourScreen  # noqa: PLC0415 (its Markdown and exercises load with a tour, not the first frame)

        while not isinstance(self.screen, (ExplorerScreen, TourScreen)):
            await self.pop_screen()
        place = self.session.tour_place(tour.steps[index])
        await self.explorer.show_level(place.level)
        self.sync()
        if isinstance(self.screen, TourScreen):
            self.screen.show_step(tour, index, place.selection)
        else:
            await self.push_screen(TourScreen(tour, index, place.selection))


def collect_from_now_on() -> None:
    """The cyclic garbage collector on again, its passes sparing what start-up made (it lives as long
    as the app), where `tensorweg open` turned it off until the first frame was drawn."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def create_app(bundle_path: Path | str | None = None, model_spec: str | None = None, options=None,
               level: str = "layers", target: str = "cpu", select: str | None = None, lang: str = "en",
               tour=None, plain: bool = False, policy=None, tour_step: int = 0, model_source=None,
               keymap: dict[str, str] | None = None) -> TensorwegApp:
    """The app as the CLI, the screenshots and the tests build it.

    `plain`: the terminal's own colours, then none (`plain_terminal()`, which the CLI passes for a real
    terminal); screenshots and tests keep the fixed theme whatever the environment says. `policy`: who
    may capture (`explorer.session.policy.CapturePolicy`; a `serve` tab's). `model_source`: `model_spec`
    as the command line resolved it (its file hashed once, not again). `keymap`: the learner's own keys
    (`screens.keymap.read_keymap`); tests and screenshots leave it out and get the keys as built.
    """
    session = SessionService(Path(bundle_path) if bundle_path else None, model_spec, options, level, target, select,
                             lang, policy, model_source)
    app = TensorwegApp(session, plain, keymap)
    app.start_tour = tour
    app.start_tour_step = tour_step  # the index of its first step shown (`tensorweg tour --step N`)
    return app
