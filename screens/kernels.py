"""Level 5: the kernels a target emitted, with their code.

`v` cycles the code view through what was recorded for the kernel: on the CPU
assembly (nasm lexer), then LLVM IR before and after LLVM's passes; on the GPU
PTX, then SASS (the machine code ptxas made of it), then the LLVM IR.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult

from explorer.labels import label
from explorer.model.records import KernelRecord
from explorer.views.items import LevelItem

from screens.bindings import keyed
from screens.level_screen import LevelScreen
from screens.widgets.code_view import CodeView

# (KernelRecord field, title, CodeView language): the machine's own code first, down to the registers.
VIEWS = (("asm", "assembly", "asm"), ("ptx", "PTX", "ptx"), ("sass", "SASS", "sass"),
         ("llvm_ir", "LLVM IR", "llvm"), ("llvm_ir_optimized", "LLVM IR optimized", "llvm"))


def recorded_views(kernel: KernelRecord) -> list[tuple[str, str, str]]:
    return [view for view in VIEWS if getattr(kernel, view[0])]


class KernelsScreen(LevelScreen):
    LEVEL = "kernels"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("v", "next_view", "kernels.view"),
    ]

    view_index = 0

    def compose_extra(self) -> ComposeResult:
        yield CodeView(id="code")

    def _kernel(self, item: LevelItem | None) -> KernelRecord | None:
        app = self.tensorweg
        if item is None or app.bundle is None:
            return None
        return next((k for k in app.bundle.kernels(app.target) if k.name == item.name), None)

    def show_extra(self, item: LevelItem | None) -> None:
        view = self.query_one("#code", CodeView)
        kernel = self._kernel(item)
        views = recorded_views(kernel) if kernel is not None else []
        if not views:
            library = kernel is not None and (kernel.kind == "library" or kernel.library_calls)
            calls = f" ({', '.join(kernel.library_calls)})" if kernel is not None and kernel.library_calls else ""
            lang = self.tensorweg.lang
            view.set_code("", "text", label("text.library_call", lang).format(calls=calls) if library
                          else label("text.no_code", lang))
            view.border_title = ""
            return
        field, title, language = views[self.view_index % len(views)]
        view.set_code(getattr(kernel, field), language)
        view.border_title = label("text.code_view_title", self.tensorweg.lang).format(
            title=title, index=self.view_index % len(views) + 1, count=len(views))

    def action_next_view(self) -> None:
        self.view_index += 1
        self.show_extra(self.items_table.current)
