"""Level 5: the kernels a target emitted, with their code.

`v` cycles the code view through what was recorded for the kernel (`explorer.views.kernel_code`):
on the CPU assembly (nasm lexer), then LLVM IR before and after LLVM's passes; on the GPU PTX,
then SASS (the machine code ptxas made of it), then the LLVM IR.
"""

from __future__ import annotations

from textual.app import ComposeResult

from explorer.labels import label
from explorer.views.items import LevelItem
from explorer.views.kernel_code import kernel_codes

from screens.bindings import keyed
from screens.level_view import LevelView
from screens.widgets.code_view import CodeView


class KernelsView(LevelView):
    LEVEL = "kernels"
    BINDINGS = [
        keyed("v", "next_view", "kernels.view"),
    ]
    DEFAULT_CSS = """
    KernelsView CodeView { height: 2fr; }
    """

    view_index = 0

    def compose_extra(self) -> ComposeResult:
        yield CodeView(id="code")

    def show_extra(self, item: LevelItem | None) -> None:
        view = self.query_one("#code", CodeView)
        session = self.session
        found = kernel_codes(session.bundle, session.target, item.name, session.lang) if item is not None else None
        if found is None or not found.codes:
            view.set_code("", "text", found.note if found is not None else label("text.no_code", session.lang))
            view.border_title = ""
            return
        index = self.view_index % len(found.codes)
        code = found.codes[index]
        view.set_code(code.text, code.language)
        view.border_title = label("text.code_view_title", session.lang).format(
            title=code.title, index=index + 1, count=len(found.codes))

    def action_next_view(self) -> None:
        self.view_index += 1
        self.show_extra(self.items_table.current)
