"""What every level's view shares: its notice, its item list, the keys that move between levels.

The explorer has one screen (`screens.explorer_screen.ExplorerScreen`); each level is a view in its
`ContentSwitcher`, built the first time it is shown (or ahead, while the learner reads). Subclasses set
`LEVEL` and add their main-view extra (a code view, a drawing) through `compose_extra` / `show_extra`.
All state lives in the session (`app.session`); a view rebuilds its rows only when the session's
`generation` (bundle or target) or the language moved. The side panes, title, status and progress
lines belong to the screen: a view tells it what is selected (`ExplorerScreen.selection_moved`).
"""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.levels import level_named
from explorer.views.items import LevelItem, column_titles
from explorer.views.tables import Selection
from explorer.views.warm import LevelRows, built_level_rows, level_rows

from screens.background import in_daemon_thread
from screens.bindings import keyed
from screens.messages import LevelRowsBuilt
from screens.widgets.item_table import ItemTable

if TYPE_CHECKING:
    from explorer.session.service import SessionService

    from screens.explorer_app import ExplorerApp, LevelHost


class LevelView(Vertical):
    LEVEL = "layers"
    # Keys every list level has (the screen's own keys are on `ExplorerScreen`).
    BINDINGS = [
        keyed("slash", "filter", "level.filter"),
        keyed("enter", "descend", "level.down", show=True),
        keyed("backspace,escape", "back", "level.back"),
    ]
    DEFAULT_CSS = """
    LevelView { height: 1fr; }
    LevelView > #items { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id=f"view-{self.LEVEL}", classes="level-view")
        self._generation = -1
        self._lang = ""  # the language the rows were built in
        self.shown_item: LevelItem | None = None
        self._building: tuple[int, str] | None = None  # (generation, language) the rows worker builds
        self._built: tuple[int, str] | None = None  # ... and the last it finished (or failed) building
        self._sync_missed = False  # a sync came before the view was composed: `on_mount` makes it

    @property
    def tensorweg(self) -> ExplorerApp:
        return self.app  # type: ignore[return-value]

    @property
    def session(self) -> SessionService:
        return self.tensorweg.session

    @property
    def explorer(self) -> LevelHost:
        return self.screen  # type: ignore[return-value]

    # --- layout ------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", classes="notice")
        yield ItemTable(column_titles(self.LEVEL, self.session.lang), id="items", on_highlighted=self._highlighted)
        yield from self.compose_extra()

    def compose_extra(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        # Mounted hidden (built ahead while the learner reads, or on a visit before the switch): the rows
        # and the extra are filled now, so the visit only switches, and draws the carried selection's
        # panes in its frame instead of the rows alone first (`ExplorerScreen.rows_replaced`).
        if self._sync_missed or (self.explorer.level != self.LEVEL and self.session.bundle is not None):
            self.sync()

    @property
    def items_table(self) -> ItemTable:
        return self.query_one("#items", ItemTable)

    # --- refresh from the session ---------------------------------------------------

    def sync(self) -> None:
        """Bring the view up to date with the session: rows, selection, notice."""
        if not self.query("#items"):  # added but not composed yet (a session event came first): its mount syncs
            self._sync_missed = True
            return
        self._sync_missed = False
        session = self.session
        notice = session.level_notice(self.LEVEL)
        # Read before the rows are refilled: the refill announces its first row as highlighted.
        wanted = session.selections.get(self.LEVEL)
        self.items_table.set_titles(column_titles(self.LEVEL, session.lang),
                                    label("state.created_by_xla", session.lang))
        # The rows word a parameter's role and the group headers in the app's language: L refills them.
        key = (session.generation, session.lang)
        if session.jump_pending(self.LEVEL):  # a worker finds where the number key lands: the list waits for it
            if self._generation != -1:
                self._generation = -1  # refilled, with the answer's selection, once it comes
                self.items_table.set_items(())
            self._level_rows(session.level_ready(self.LEVEL), key)  # meanwhile its rows build too, if not built
            notice = self._building_notice()
        elif (self._generation, self._lang) != key:
            found = self._level_rows(session.level_ready(self.LEVEL), key)
            if found is None:  # a worker builds them: the list waits empty, the keys act meanwhile
                notice = self._building_notice()
            else:
                self._show_rows(found, reworded=self._generation == session.generation)
        if wanted and self._building is None:
            self.items_table.select(wanted)
        elif not wanted and self.items_table.current is not None and self.explorer.level == self.LEVEL:
            self.session.select(self.LEVEL, self.items_table.current.name)  # filled hidden: the session never heard
        shown = self.query_one(".notice", Static)
        shown.update(Content(notice))  # names from the model are text, never markup
        shown.display = bool(notice)

    def _building_notice(self) -> str:
        return label("notice.building_rows", self.session.lang).format(level=self.session.now.level_title(self.LEVEL))

    def _level_rows(self, ready: bool, key: tuple[int, str]) -> LevelRows | None:
        """The rows for `key` if built (or none to build), else None, and a worker builds them."""
        session = self.session
        if not ready:
            return LevelRows((), frozenset(), {})
        if self._built == key:  # the worker is done (a damaged level raises here, as it always did)
            return level_rows(session.bundle, self.LEVEL, session.target, session.lang)
        found = built_level_rows(session.bundle, self.LEVEL, session.target, session.lang)
        if found is None and self._building != key:
            if self._building is None:  # rows of another bundle or target must not take a key press
                self.items_table.set_items(())
            self._building = key
            self._build_rows(session.bundle, session.target, key)
        return found

    @work(exclusive=True, group="level-rows")
    async def _build_rows(self, bundle, target: str, key: tuple[int, str]) -> None:
        """Build the level's rows on a daemon thread (quitting never waits for it); then say so."""
        # A damaged level: the view builds it again on the UI thread and shows the error as it always did.
        with suppress(TensorwegError):
            await in_daemon_thread(partial(level_rows, bundle, self.LEVEL, target, key[1]), f"rows-{self.LEVEL}")
        self.post_message(LevelRowsBuilt(key))

    @on(LevelRowsBuilt)
    def _rows_built(self, event: LevelRowsBuilt) -> None:
        event.stop()
        if event.key != self._building:
            return  # an older build: a newer one runs
        self._building, self._built = None, event.key
        self.explorer.sync()

    def _show_rows(self, found: LevelRows, reworded: bool) -> None:
        session = self.session
        self._generation, self._lang = session.generation, session.lang
        self._building = None
        self.load_extra()
        self.explorer.rows_replaced(self)
        self.items_table.set_items(found.items, found.created, found.groups, keep_folds=reworded)

    def load_extra(self) -> None:
        """Hook: the level-specific view's content for new rows (the module text), set before the
        rows announce their first item, which `show_extra` then marks there."""

    # --- selection ------------------------------------------------------------

    def selection(self, item: LevelItem | None = None) -> Selection | None:
        """What the side panes show for `item` (default: the item shown), None without one."""
        item = item if item is not None else self.shown_item
        session = self.session
        if item is None or session.bundle is None:
            return None
        return Selection(session.bundle, self.LEVEL, session.target, item.name, session.lang)

    def _highlighted(self, item: LevelItem | None) -> None:
        """The list's cursor moved to `item`: the screen draws the moved list first, alone, and the side
        panes and this view's extra follow it after that frame (`ExplorerScreen.selection_moved`)."""
        # A view filled hidden tells the session nothing: a level's selection is the learner's (a number
        # key keeps it when it still belongs to the layer, `explorer.views.trace.jump`).
        if item is not None and self.explorer.level == self.LEVEL:
            self.session.select(self.LEVEL, item.name)
        self.shown_item = item
        self.explorer.selection_moved(self)

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
        screen = self.screen
        if screen.maximized is not None:  # Esc first restores a maximised pane
            screen.minimize()
            return
        if self.items_table.filtering:
            self.items_table.close_filter()
            return
        self.tensorweg.go_back()

    def focus_list(self, tries: int = 10) -> None:
        """Focus the list; a view just mounted may not have mounted its list yet (a sync reached it in
        between, under load): then once it has, a bounded number of refreshes later."""
        for table in self.query("#items").results(ItemTable):
            table.focus_rows()
            return
        if tries > 1:
            self.call_after_refresh(self.focus_list, tries - 1)

    def pane_to_maximize(self) -> Widget | None:
        """What `z` fills the screen with: the focused pane (a view may name another)."""
        return self.screen.focused

    def help_text(self) -> str:
        """What this level shows, for `?`, in the app's language."""
        return label(level_named(self.LEVEL).help_key, self.session.lang)
