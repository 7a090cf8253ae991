"""The explorer's one screen: the level on show, its side panes, the title, status and progress lines.

Each level is a view (`screens.level_view.LevelView`, one module per level) in a `ContentSwitcher`:
a level's first visit mounts its view there (a few widgets: its notice, list and code view or
drawing), later visits only switch. While the learner reads, the views not visited yet are mounted
ahead, hidden, one at a time (`build_ahead`), so a first visit is a layout and a paint. The side
panes, title, status, progress and key lines are the screen's, shared by every level: a level
switch or a cursor move shows the selection in them.

Paint first: new rows and a moved cursor go on screen alone; the side panes and the view's code
follow after that frame (`selection_moved`, `rows_replaced`): drawn in one frame, a move repainted
the whole screen, and the list answered a key 30-40 ms later. Presses faster than frames update the
panes once, for the last selection. The app's first frame is the rows alone: the side panes' 25
widgets mount after it (`panes_after_rows`).
"""

from __future__ import annotations

import time
from contextlib import suppress
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import LEVELS, LIST_LEVELS
from explorer.safe_text import visible
from explorer.views.warm import if_read, prepare_selection

from screens.background import in_daemon_thread
from screens.widgets.keys_footer import KeysFooter
from screens.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from explorer.session.service import SessionService
    from explorer.views.tables import Selection

    from screens.explorer_app import ExplorerApp
    from screens.level_view import LevelView

# level -> (module, class) of its view; a view's module is imported when it is first shown or built ahead.
VIEWS = {
    "layers": ("screens.layers", "LayersView"), "graph": ("screens.graph", "GraphView"),
    "hlo": ("screens.hlo", "HloView"), "optimized-hlo": ("screens.optimized_hlo", "OptimizedHloView"),
    "kernels": ("screens.kernels", "KernelsView"), "memory": ("screens.memory_map", "MemoryMapView"),
}
# Refreshes a selection of new rows waits for one that paints them (`_show_after_rows`).
ROWS_FIRST_TRIES = 10
# The first screen's side panes come after its rows, or after this long when no rows come (a capture runs).
PANES_AT_THE_LATEST_S = 0.3
# No key for this long: the next level's view is built (a learner reading, not typing).
BUILD_AHEAD_IDLE_S = 0.6
# Side pane -> its title's label key (titles follow the app's language on every sync).
PANE_TITLES = (("#memory-box", "pane.memory_layout"), ("#device-box", "pane.device_mapping"),
               ("#explain-box", "pane.explanation"))


def view_class(level: str) -> type[LevelView]:
    module, name = VIEWS[level]
    return getattr(import_module(module), name)


class ExplorerScreen(Screen):
    def __init__(self, level: str, panes_after_rows: bool = False) -> None:
        super().__init__(id="explorer")
        self.first_level = level
        self._level = level  # the level on show (its view is the switcher's current child)
        self.panes_after_rows = panes_after_rows
        self._rows_painted = True  # False from new rows until they are on screen (the panes wait)
        self._follow_asked = False  # the panes will follow the selection after the next frame
        self._last_key_at = 0.0

    @property
    def tensorweg(self) -> ExplorerApp:
        return self.app  # type: ignore[return-value]

    @property
    def session(self) -> SessionService:
        return self.tensorweg.session

    # --- layout ------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self._set_width_class()
        self.set_class(self.first_level not in LIST_LEVELS, "-map")  # the memory map: no list, no side panes
        yield Static("", id="title")
        with Horizontal(id="body"):
            with ContentSwitcher(id="levels", initial=f"view-{self.first_level}"):
                yield view_class(self.first_level)()
            # The side panes (some 25 widgets) of the app's first screen mount once its rows are on
            # screen (`_mount_side_panes`): their box keeps their place meanwhile.
            with VerticalScroll(id="side"):
                if not self.panes_after_rows:
                    yield from self._side_panes()
        yield StatusLine(self.session.status_line(self.first_level), id="status")
        yield Static("", id="progress")
        yield KeysFooter()

    def _set_width_class(self) -> None:
        """The app's breakpoint class for the terminal's width (`-narrow`, `-wide`), set before the
        first layout. Textual sets it after laying a screen out at a new size, so the first frame
        was laid out and drawn twice, first without it (the side panes beside an 80-column list)."""
        width = self.app.size.width
        for minimum, name in sorted(self.app.HORIZONTAL_BREAKPOINTS or (), reverse=True):
            if width >= minimum:
                self.add_class(name)
                return

    def _side_panes(self) -> list:
        from textual.containers import Vertical  # noqa: PLC0415 (as below)

        from screens.widgets.side_panes import DevicePane, ExplanationPane, MemoryPane  # noqa: PLC0415 (the first screen's load after its rows)

        lang, boxes = self.session.lang, []
        for box_id, key, pane in (("memory-box", "pane.memory_layout", MemoryPane(id="memory")),
                                  ("device-box", "pane.device_mapping", DevicePane(id="devices")),
                                  ("explain-box", "pane.explanation", ExplanationPane(id="explanation"))):
            box = Vertical(pane, classes="pane", id=box_id)
            box.border_title = label(key, lang)
            boxes.append(box)
        return boxes

    async def _mount_side_panes(self) -> None:
        """The side panes of a screen that composed without them (`panes_after_rows`), once."""
        if self.panes_after_rows:
            self.panes_after_rows = False
            await self.query_one("#side", VerticalScroll).mount_all(self._side_panes())

    async def _panes_at_the_latest(self) -> None:
        """The first screen's side panes when no rows brought them (a capture runs, the bundle is unreadable)."""
        await self._mount_side_panes()
        self._show_panes()

    def on_mount(self) -> None:
        if self.panes_after_rows:  # a screen whose rows take a while (a capture) gets them anyway
            self.set_timer(PANES_AT_THE_LATEST_S, self._panes_at_the_latest)
        self.sync()
        self.tensorweg.explorer_mounted()

    def on_screen_resume(self) -> None:
        self.sync()

    # --- the views ----------------------------------------------------------------

    @property
    def switcher(self) -> ContentSwitcher:
        return self.query_one("#levels", ContentSwitcher)

    @property
    def view(self) -> LevelView:
        """The view of the level on show."""
        return self.view_of(self._level)  # type: ignore[return-value]

    @property
    def level(self) -> str:
        return self._level

    def view_of(self, level: str) -> LevelView | None:
        """The view of `level`, if built (none before the screen is composed)."""
        # By id among the switcher's children: a query walked every widget of every view built
        # (7 walks in a first visit's frame, 40 ms of it on a 30,000-instruction level).
        try:
            return self.switcher.get_child_by_id(f"view-{level}")  # type: ignore[return-value]
        except NoMatches:  # not composed yet, or not built
            return None

    @property
    def built_levels(self) -> frozenset[str]:
        return frozenset(child.LEVEL for child in self.switcher.children)  # type: ignore[attr-defined]

    @property
    def items_table(self):
        """The list of the level on show (the memory map has none: None; nor has a view not composed yet)."""
        view = self.view
        if view is None or not view.children:  # added this frame, its compose still to come
            return None
        return getattr(view, "items_table", None)

    async def show_level(self, level: str) -> None:
        """Show `level`'s view (mounted now when it was not built ahead), in step with the session."""
        if self.view_of(level) is None:
            await self.switcher.add_content(view_class(level)())
        if self._level != level or self.switcher.current != f"view-{level}":
            self._level = level
            self.switcher.current = f"view-{level}"
            self.set_class(level not in LIST_LEVELS, "-map")  # the memory map: no list, no side panes
            self._rows_painted = True
            self._follow_asked = True  # the new level's selection in the panes, in the visit's frame
        self.sync()

    def build_ahead(self) -> bool:
        """Mount one level view not built yet, hidden, when no key came for a while (a learner reading).
        Whether there is more to build."""
        if time.monotonic() - self._last_key_at < BUILD_AHEAD_IDLE_S:
            return True
        if not self.query("#levels"):
            return True  # not composed yet, or taken down as the app ends: nothing to build into
        missing = [level for level in LEVELS if self.view_of(level) is None]
        if missing:
            self.switcher.add_content(view_class(missing[0])())
        return len(missing) > 1

    def key_pressed(self) -> None:
        self._last_key_at = time.monotonic()

    # --- refresh from the session ---------------------------------------------------

    def sync(self) -> None:
        """Bring the screen up to date with the session: title, lines, the view's rows and selection."""
        session = self.session
        level = self.level
        if self.view is None:
            return  # not composed yet: its mount syncs it
        for pane_id, key in PANE_TITLES:
            for pane in self.query(pane_id):  # none before the first screen's side panes are mounted
                pane.border_title = label(key, session.lang)
        # Names from the model (title, trail, errors) are text: Content, never markup.
        self.query_one("#title", Static).update(Content(visible(session.title_line(level))))
        self.query_one("#progress", Static).update(session.now.progress_line())
        self.view.sync()
        if self._follow_asked and self._rows_painted:  # a visit repaints the screen anyway: panes in its frame
            self._follow_selection()
        self.view.focus_list()
        self.show_status()

    def show_status(self) -> None:
        """The session's notification, where it was made (never over the content)."""
        for line in self.query(StatusLine):
            line.show(self.session.status_line(self.level))

    def rows_replaced(self, view: LevelView) -> None:
        """`view` shows new rows: they go on screen alone, their selection's panes and code the frame after
        (what those show takes a side pane's tables, Markdown and a lexer)."""
        if view is not self.view:
            return
        self._rows_painted = False
        self.call_after_refresh(self._show_after_rows, ROWS_FIRST_TRIES)

    async def _show_after_rows(self, tries: int) -> None:
        # A refresh can pass without a paint: wait for one that drew the rows for the terminal, a
        # bounded number of refreshes. Until the app's first frame is out (`first_frame_shown`),
        # Textual renders frames but the terminal gets none: the panes would delay the rows'.
        if self._rows_painted:
            return  # shown already: by the first frame's news (`first_frame_out`) or a visit
        table = self.items_table
        drawn = table is None or table.drawn
        if not (drawn and self.tensorweg.first_frame_shown) and tries > 1:
            self.call_after_refresh(self._show_after_rows, tries - 1)
            return
        self._rows_painted = True
        await self._mount_side_panes()
        self._follow_asked = True
        self._follow_selection()
        self.session.selection_shown()
        self.tensorweg.rows_shown()

    def first_frame_out(self) -> None:
        """The app's first frame reached the terminal (Textual's Ready). Rows it drew get their panes
        now: the refresh `rows_replaced` waits for comes with the next frame, a sixtieth of a second
        or more later."""
        table = self.items_table
        if not self._rows_painted and (table is None or table.drawn):
            self.call_next(self._show_after_rows, 1)

    def selection_moved(self, view: LevelView) -> None:
        """`view`'s cursor moved: the list is drawn alone, the panes and its extra follow after that frame."""
        if view is not self.view:
            return
        if self.session.note is not None:  # a note about another item goes
            self.show_status()
        if self._rows_painted and not self._follow_asked:
            self._follow_asked = True
            self.call_after_refresh(self._follow_selection)

    def _follow_selection(self) -> None:
        if not self._follow_asked:
            return  # followed already, in the frame of a visit (`sync`)
        self._follow_asked = False
        if self._rows_painted:  # else new rows came meanwhile: `_show_after_rows` shows their selection
            self._show_selection()

    def _show_selection(self) -> None:
        """The side panes and the view's extra for its selection. Where they read what is not built yet
        (a deep model's index, its memory map, a kernel's listing), a worker builds it first and the
        panes say so meanwhile: on the UI thread that held every key for seconds (issue 36)."""
        if if_read(self._show_selection_now):
            return
        from screens.widgets.pane_text import PaneText  # noqa: PLC0415 (as in `_side_panes`)

        for pane in self.query(".pane PaneText").results(PaneText):
            pane.show(label("state.reading", self.session.lang))
        self._read_selection(self.view.selection())

    def _show_selection_now(self) -> None:
        self._show_panes()
        view = self.view
        if view is not None:  # a capture's level not arrived yet: no view to show it in
            view.show_extra(view.shown_item)

    @work(exclusive=True, group="read-selection")
    async def _read_selection(self, selection: Selection | None) -> None:
        """Build what the panes show for `selection` on a daemon thread (a newer selection's read
        cancels this wait); then show it, if the level on show still has it selected."""
        if selection is not None:
            read = partial(prepare_selection, selection.bundle, selection.level, selection.target, selection.name,
                           selection.lang)
            with suppress(TensorwegError):  # a damaged level: the panes say so as they always did
                await in_daemon_thread(read, "read-selection")
        if self.view.selection() == selection:
            self._show_selection_now()

    def _show_panes(self) -> None:
        """The side panes for the selection of the level on show."""
        if not self.query("#explanation"):
            return  # the first screen's, not mounted yet: shown once they are (`_show_after_rows`)
        from screens.widgets.side_panes import DevicePane, ExplanationPane, MemoryPane  # noqa: PLC0415 (as in `_side_panes`)

        session, selection = self.session, self.view.selection()
        self.query_one("#memory", MemoryPane).show_selection(selection, session.lang)
        self.query_one("#devices", DevicePane).show(selection, session.captured_targets(), session.may_capture,
                                                    session.lang, session.reading)
        self.query_one("#explanation", ExplanationPane).show_selection(selection, session.lang)

    @property
    def settled(self) -> bool:
        """Nothing this screen shows is still on its way: the rows painted, the side panes mounted and
        following the selection, its read done (what `tensorweg screenshot` waits for: under load a
        picture taken before the device pane had its text differed from the same picture unloaded)."""
        if not self._rows_painted or self._follow_asked or not self.query("#explanation"):
            return False
        # The list draws its rows and selection a frame after they are set (a visit sets them at once).
        table = self.items_table
        if table is not None and table.is_mounted and not table.drawn:
            return False
        if any(not worker.is_finished for worker in self.app.workers if worker.node is self):
            return False
        from screens.widgets.side_panes import DevicePane  # noqa: PLC0415 (as in `_side_panes`)

        return all(pane.settled for pane in self.query(DevicePane).results(DevicePane))

    def show_panes(self) -> None:
        """The side panes again for the selection shown (the warm-up has read more of the bundle)."""
        if self._rows_painted and self.view is not None:
            self._show_selection()
            self.call_after_refresh(self.session.panes_drawn)  # the warm-up goes on once every target is in

    def help_text(self) -> str:
        """What the level on show is, for `?`."""
        return self.view.help_text()
