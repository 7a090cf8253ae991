"""What every level screen shares: the item list, the three side panes, the
status and progress lines, and the keys that move between levels.

Subclasses set `LEVEL` and add their main-view extra (code view, drawing)
through `compose_extra` / `show_extra`. All state lives on the app; a screen
rebuilds its rows only when the app's `generation` (bundle or target) moved.
"""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.lazy import Lazy
from textual.screen import Screen
from textual.widgets import Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import level_named
from explorer.safe_text import visible
from explorer.views.items import LevelItem, column_titles
from explorer.views.tables import Selection
from explorer.views.warm import LevelRows, built_level_rows, level_rows

from screens.background import in_daemon_thread
from screens.bindings import keyed
from screens.messages import LevelRowsBuilt
from screens.widgets.item_table import ItemTable
from screens.widgets.keys_footer import KeysFooter
from screens.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from screens.app import TensorwegApp


# Refreshes the selection of new rows waits for one that paints them (`LevelScreen._show_after_rows`).
ROWS_FIRST_TRIES = 10
# The app's first screen shows its rows first, alone; its side panes follow them, or come after this
# long when the rows do not (a capture runs, the bundle is unreadable).
PANES_AT_THE_LATEST_S = 0.3


def painting(app: App) -> bool:
    """Whether what Textual renders now reaches the terminal. Not while the app starts (its first
    compose, resize and mount) or in a batch update: Textual 8.2.8 renders then, but `App._display`
    drops the frame (`_running`, `_batch_count`; tests/test_screens_first_frame.py checks this)."""
    return app._running and not app._batch_count


class LevelScreen(Screen):
    LEVEL = "layers"
    # Set on the app's first screen (`TensorwegApp._new_level_screen`): its first frame, the one a
    # learner waits for, is the rows alone; the side panes' widgets, styles and tabs come right after.
    panes_after_rows = False
    # Side pane -> its title's label key (titles follow the app's language on every sync).
    PANE_TITLES = (("#memory-box", "pane.memory_layout"), ("#device-box", "pane.device_mapping"),
                   ("#explain-box", "pane.explanation"))

    BINDINGS = [
        keyed("slash", "filter", "level.filter"),
        keyed("enter", "descend", "level.down", show=True),
        keyed("backspace,escape", "back", "level.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._generation = -1
        self._lang = ""  # the language the rows were built in
        self._shown_selection: Selection | None = None
        self._shown_item: LevelItem | None = None
        self._rows_painted = True  # False from new rows until they are on screen (the selection waits)
        self._follow_asked = False  # the panes will follow the selection after the next frame
        self._building: tuple[int, str] | None = None  # (generation, language) the rows worker builds
        self._built: tuple[int, str] | None = None  # ... and the last it finished (or failed) building

    @property
    def tensorweg(self) -> TensorwegApp:
        return self.app  # type: ignore[return-value]

    # --- layout ------------------------------------------------------------

    def compose(self) -> ComposeResult:
        lang = self.tensorweg.lang
        self._set_width_class()
        yield Static("", id="title")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Static("", id="notice")
                yield ItemTable(column_titles(self.LEVEL, lang), id="items", on_highlighted=self._highlighted)
                yield from self.compose_extra()
            # The side panes (some 25 widgets) of the app's first screen mount once its rows are
            # on screen (`_mount_side_panes`): their box keeps their place meanwhile.
            if self.panes_after_rows:
                yield VerticalScroll(id="side")
            else:
                with VerticalScroll(id="side"):
                    yield from self._side_panes()
        yield StatusLine(self.tensorweg.session.status_line(self.LEVEL), id="status")
        yield Static("", id="progress")
        yield Lazy(KeysFooter())

    def compose_extra(self) -> ComposeResult:
        yield from ()

    def _set_width_class(self) -> None:
        """The app's breakpoint class for the terminal's width (`-narrow`, `-wide`), set before the
        first layout. Textual sets it after laying a screen out at a new size, so the first frame
        was laid out and drawn twice, first without it (the side panes beside an 80-column list)."""
        width = self.app.size.width
        for minimum, name in sorted(self.app.HORIZONTAL_BREAKPOINTS or (), reverse=True):
            if width >= minimum:
                self.add_class(name)
                return

    def _side_panes(self) -> list[Vertical]:
        from screens.widgets.side_panes import DevicePane, ExplanationPane, MemoryPane  # noqa: PLC0415 (the first screen's load after its rows)

        lang, boxes = self.tensorweg.lang, []
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

    # --- refresh from app state -------------------------------------------------

    def on_mount(self) -> None:
        if self.panes_after_rows:  # a screen whose rows take a while (a capture) gets them anyway
            self.set_timer(PANES_AT_THE_LATEST_S, self._panes_at_the_latest)
        self.sync()

    def on_screen_resume(self) -> None:
        self.sync()

    @property
    def items_table(self) -> ItemTable:
        return self.query_one("#items", ItemTable)

    def sync(self) -> None:
        """Bring the screen up to date with the app: rows, selection, status lines."""
        app = self.tensorweg
        session = app.session  # what the title, progress and notice lines say (explorer.views.session)
        for pane_id, key in self.PANE_TITLES:
            for pane in self.query(pane_id):  # none before the first screen's side panes are mounted
                pane.border_title = label(key, app.lang)
        # Names from the model (title, trail, errors) are text: Content, never markup.
        self.query_one("#title", Static).update(Content(visible(session.title_line(self.LEVEL))))
        self.query_one("#progress", Static).update(session.progress_line())
        notice = session.level_notice(self.LEVEL)
        # Read before the rows are refilled: the refill announces its first row as highlighted.
        wanted = app.selections.get(self.LEVEL)
        self.items_table.set_titles(column_titles(self.LEVEL, app.lang), label("state.created_by_xla", app.lang))
        # The rows word a parameter's role and the group headers in the app's language: L refills them.
        key = (app.generation, app.lang)
        if (self._generation, self._lang) != key:
            found = self._level_rows(session.level_ready(self.LEVEL), key)
            if found is None:  # a worker builds them: the list waits empty, the keys act meanwhile
                notice = label("notice.building_rows", app.lang).format(level=session.level_title(self.LEVEL))
            else:
                self._show_rows(found, reworded=self._generation == app.generation)
        if wanted and self._building is None:
            self.items_table.select(wanted)
        if self._follow_asked:  # a visit repaints the whole screen anyway: the panes follow in its frame
            self._follow_selection()
        self.query_one("#notice", Static).update(Content(notice))
        self.query_one("#notice", Static).display = bool(notice)
        self.items_table.table.focus()
        self.show_status()

    def show_status(self) -> None:
        """The app's notification, where it was made (never over the content: `Session.status_line`)."""
        for line in self.query(StatusLine):  # none before the screen is composed
            line.show(self.tensorweg.session.status_line(self.LEVEL))

    def _level_rows(self, ready: bool, key: tuple[int, str]) -> LevelRows | None:
        """The rows for `key` if built (or none to build), else None, and a worker builds them."""
        app = self.tensorweg
        if not ready:
            return LevelRows((), frozenset(), {})
        if self._built == key:  # the worker is done (a damaged level raises here, as it always did)
            return level_rows(app.bundle, self.LEVEL, app.target, app.lang)
        found = built_level_rows(app.bundle, self.LEVEL, app.target, app.lang)
        if found is None and self._building != key:
            if self._building is None:  # rows of another bundle or target must not take a key press
                self.items_table.set_items(())
            self._building = key
            self._build_rows(app.bundle, app.target, key)
        return found

    @work(exclusive=True, group="level-rows")
    async def _build_rows(self, bundle, target: str, key: tuple[int, str]) -> None:
        """Build the level's rows on a daemon thread (quitting never waits for it); then say so."""
        # A damaged level: the screen builds it again on the UI thread and shows the error as it always did.
        with suppress(TensorwegError):
            await in_daemon_thread(partial(level_rows, bundle, self.LEVEL, target, key[1]), f"rows-{self.LEVEL}")
        self.post_message(LevelRowsBuilt(key))

    @on(LevelRowsBuilt)
    def _rows_built(self, event: LevelRowsBuilt) -> None:
        if event.key != self._building:
            return  # an older build: a newer one runs
        self._building, self._built = None, event.key
        self.sync()

    def _show_rows(self, found: LevelRows, reworded: bool) -> None:
        app = self.tensorweg
        self._generation, self._lang = app.generation, app.lang
        self._building = None
        # Paint first: the new rows go on screen alone, their selection's panes and code the
        # frame after (what they show takes a side pane's tables, Markdown and a lexer).
        self._rows_painted = False
        self.call_after_refresh(self._show_after_rows, ROWS_FIRST_TRIES)
        self.load_extra()
        self.items_table.set_items(found.items, found.created, found.groups, keep_folds=reworded)

    async def _show_after_rows(self, tries: int) -> None:
        # A refresh can pass without a paint: wait for one that drew the rows for the terminal, a
        # bounded number of refreshes. While the app starts, Textual renders frames but holds them
        # back (`painting`): the panes and the warm-up that follow would delay the rows' first frame.
        if not (self.items_table.table.drawn and painting(self.app)) and tries > 1:
            self.call_after_refresh(self._show_after_rows, tries - 1)
            return
        self._rows_painted = True
        await self._mount_side_panes()
        self._show_panes()
        self.show_extra(self._shown_item)
        self.tensorweg.selection_shown()

    def load_extra(self) -> None:
        """Hook: the level-specific view's content for new rows (the module text), set before the
        rows announce their first item, which `show_extra` then marks there."""

    # --- selection ------------------------------------------------------------

    def selection(self, item: LevelItem | None) -> Selection | None:
        app = self.tensorweg
        if item is None or app.bundle is None:
            return None
        return Selection(app.bundle, self.LEVEL, app.target, item.name, app.lang)

    def _highlighted(self, item: LevelItem | None) -> None:
        """The list's cursor moved to `item`: the moved list is drawn first, alone, and the side
        panes and the level's extra view follow it after that frame (`_follow_selection`).

        Drawn in one frame, a move repainted the whole screen: Textual redraws the box around
        everything that changed, and the list, the code view and the panes span it. Presses that
        come faster than frames update the panes once, for the last selection."""
        app = self.tensorweg
        if item is not None:
            app.selections[self.LEVEL] = item.name
        if app.note is not None:  # a note about another item goes
            self.show_status()
        self._shown_selection, self._shown_item = self.selection(item), item
        if self._rows_painted and not self._follow_asked:
            self._follow_asked = True
            self.call_after_refresh(self._follow_selection)

    def _follow_selection(self) -> None:
        if not self._follow_asked:
            return  # followed already, in the frame of a visit (`sync`)
        self._follow_asked = False
        if self._rows_painted:  # else new rows came meanwhile: `_show_after_rows` shows their selection
            self._show_panes()
            self.show_extra(self._shown_item)

    def _show_panes(self) -> None:
        """The side panes for the last highlighted item."""
        if not self.query("#explanation"):
            return  # the first screen's, not mounted yet: shown once they are (`_show_after_rows`)
        from screens.widgets.side_panes import DevicePane, ExplanationPane, MemoryPane  # noqa: PLC0415 (as in `_side_panes`)

        app, selection = self.tensorweg, self._shown_selection
        self.query_one("#memory", MemoryPane).show_selection(selection, app.lang)
        self.query_one("#devices", DevicePane).show(selection, app.session.captured_targets(), app.can_capture,
                                                    app.lang, app.reading)
        self.query_one("#explanation", ExplanationPane).show_selection(selection, app.lang)

    def show_panes(self) -> None:
        """The side panes again for the selection shown (the open worker has read more of the bundle)."""
        self._show_panes()

    def show_extra(self, item: LevelItem | None) -> None:
        """Hook: update the level-specific view for the highlighted item."""

    @on(ItemTable.Chosen)
    def _chosen(self, event: ItemTable.Chosen) -> None:
        self.tensorweg.descend(self.LEVEL, event.item.name)

    # --- actions --------------------------------------------------------------

    def action_filter(self) -> None:
        self.items_table.open_filter()

    def action_descend(self) -> None:
        item = self.items_table.current
        if item is not None:
            self.tensorweg.descend(self.LEVEL, item.name)

    def action_back(self) -> None:
        if self.maximized is not None:  # Esc first restores a maximised pane
            self.minimize()
            return
        if self.items_table.filtering:
            self.items_table.close_filter()
            return
        self.tensorweg.go_back()

    def help_text(self) -> str:
        """What this level shows, for `?`, in the app's language."""
        return label(level_named(self.LEVEL).help_key, self.tensorweg.lang)
