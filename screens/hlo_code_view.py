"""HLO level views: the instruction list above the module text.

The selected instruction's line is highlighted in the text; `o` jumps to the
definition of the selection's operands in turn (the data flow, read upwards).
"""

from __future__ import annotations

from textual.app import ComposeResult

from explorer.labels import label
from explorer.views.items import LevelItem
from explorer.views.tables import instruction

from screens.bindings import keyed
from screens.level_view import LevelView
from screens.widgets.code_view import CodeView, prepare_ahead


class HloCodeView(LevelView):
    OPTIMIZED = False
    BINDINGS = [
        keyed("o", "follow_operand", "hlo.operand"),
    ]

    def compose_extra(self) -> ComposeResult:
        yield CodeView(id="code")

    _new_code: tuple[str, str] | None = None  # (module text, placeholder) the view shows with the selection

    def load_extra(self) -> None:
        # The text goes into the view with its selection's mark, a frame after the rows
        # (`show_extra`): set here, the view would draw (and highlight) the module's first lines
        # for one frame and then the selection's.
        session = self.session
        code = session.bundle.hlo_text(session.target, self.OPTIMIZED) if session.bundle is not None else ""
        self._new_code = (code, label("text.no_hlo_text", session.lang))
        if code:
            prepare_ahead(code)  # made safe and split on a thread while the view waits to be shown
        self.query_one("#code", CodeView).set_code("", "hlo")

    def show_extra(self, item: LevelItem | None) -> None:
        view = self.query_one("#code", CodeView)
        if self._new_code is not None:
            code, placeholder = self._new_code
            self._new_code = None
            view.set_code(code, "hlo", placeholder)
        if item is None or not item.line:
            view.mark(set())
            return
        view.mark({item.line}, focus=item.line)

    def action_follow_operand(self) -> None:
        session = self.session
        item = self.items_table.current
        if item is None or session.bundle is None:
            return
        found = instruction(session.bundle, self.LEVEL, session.target, item.name)
        operand = session.follow_operand(self.LEVEL, item.name, tuple(found.operands) if found is not None else ())
        if operand:
            self.items_table.select(operand)
        self.explorer.show_status()
