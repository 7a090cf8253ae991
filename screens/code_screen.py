"""HLO level screens: the instruction list above the module text.

The selected instruction's line is highlighted in the text; `o` jumps to the
definition of the selection's operands in turn (the data flow, read upwards).
"""

from __future__ import annotations

from textual.app import ComposeResult

from explorer.labels import label
from explorer.views.items import LevelItem
from explorer.views.tables import instruction

from screens.bindings import keyed
from screens.level_screen import LevelScreen
from screens.widgets.code_view import CodeView


class HloCodeScreen(LevelScreen):
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
        app = self.tensorweg
        code = app.bundle.hlo_text(app.target, self.OPTIMIZED) if app.bundle is not None else ""
        self._new_code = (code, label("text.no_hlo_text", app.lang))
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
        app = self.tensorweg
        item = self.items_table.current
        if item is None or app.bundle is None:
            return
        found = instruction(app.bundle, self.LEVEL, app.target, item.name)
        if found is None or not found.operands:
            self.notify(label("notify.no_operands", app.lang).format(name=item.name))
            return
        # Walk up the data flow: the first operand; Backspace comes back here.
        operand = found.operands[0]
        app.trail.append((self.LEVEL, item.name))
        self.items_table.select(operand)
        if len(found.operands) > 1:  # said where it lands: under the operand now selected
            app.note_at(label("notify.operands", app.lang).format(name=item.name, operands=", ".join(found.operands)),
                        self.LEVEL, operand)
