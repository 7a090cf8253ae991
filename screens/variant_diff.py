"""`V`: the what-if lab's diff screen, this capture beside another variant of the model from the cache.

For the selected layer and the whole model: fusions, kernels, instructions, FLOPs, bytes, the roofline
ESTIMATE and its bound, peak memory, TPU tiles, GPU registers and occupancy; the fusions that changed,
matched by the layers they compute; both memory skylines on one scale with the buffers live at each peak;
why. Everything shown is decided by `explorer.views.whatif.panes`; the variants are the cache's
(`explorer.views.whatif.choice`). Keyboard: v the next variant, n/p the layer, [ and ] mark a changed
fusion and Enter shows its HLO in both variants (screens/fusion_pair.py), Esc or V closes.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.safe_text import visible
from explorer.views.suggested import only_variant_note, variant_hint
from explorer.views.trace import neighbour_layer
from explorer.views.whatif.choice import VariantChoice, cached_variants, open_variant
from explorer.views.whatif.diff import VariantDiff, variant_diff
from explorer.views.whatif.panes import WhatIfPanes, fusion_hlo, whatif_panes

from screens.bindings import keyed
from screens.fusion_pair import FusionPairScreen
from screens.widgets.keys_footer import KeysFooter

BLOCKS = ("layer", "model", "fusions", "skyline", "why")


class WhatIfScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        keyed("escape,V", "close", "whatif.close"),
        keyed("v", "next_variant", "whatif.next_variant"),
        keyed("n", "move_layer(1)", "whatif.next_layer"),
        keyed("p", "move_layer(-1)", "whatif.previous_layer"),
        keyed("right_square_bracket", "pick_fusion(1)", "whatif.next_fusion"),
        keyed("left_square_bracket", "pick_fusion(-1)", "whatif.previous_fusion"),
        keyed("enter", "open_fusion", "whatif.open_fusion"),
    ]

    def __init__(self, layer: str, choices: tuple[VariantChoice, ...] | None = None) -> None:
        """choices: the variants to compare with; None = the cache's (read when the screen opens)."""
        super().__init__()
        self.layer_name = layer
        self.choices = choices
        self.choice = 0
        self.fusion = 0  # the changed fusion marked in the list
        self.panes: WhatIfPanes | None = None
        self._opened: dict = {}  # path -> the variant's bundle, read once
        self._diffs: dict[tuple[Path, str, str], VariantDiff] = {}  # per variant, target and language
        self._note = ""  # a word under the title (`v` with nothing to switch to)

    def compose(self) -> ComposeResult:
        yield Static("", id="whatif-title")
        with VerticalScroll(id="whatif-body"):
            for block in BLOCKS:
                yield Static("", id=f"whatif-{block}", classes="whatif-block")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.sync()
        self.query_one("#whatif-body").focus()

    def on_resize(self) -> None:
        self.sync()

    def help_text(self) -> str:
        return label("help.whatif", self.app.lang)

    def sync(self) -> None:
        app = self.app
        bundle, target, lang = getattr(app, "bundle", None), app.target, app.lang
        if bundle is None or not bundle.has_manifest():
            return
        if self.choices is None:
            self.choices = cached_variants(bundle, target)
        if not self.choices:
            self._show(label("whatif.title", lang), {"layer": variant_hint(bundle, target, lang)})
            return
        this, other = (label("whatif.this", lang), bundle), (self._choice().label, self._other())
        key = (self._choice().path, target, lang)
        try:
            if key not in self._diffs:  # every layer of both variants: once, not on each n, p, [ or ]
                self._diffs[key] = variant_diff(this, other, target)
            panes = whatif_panes(this, other, target, self.layer_name, lang, self.app.size.width - 4, self.fusion,
                                 self._diffs[key])
        except TensorwegError as error:
            self._show(label("whatif.title", lang), {"layer": str(error)})
            return
        self.panes = panes
        self._show(panes.title, {block: getattr(panes, block) for block in BLOCKS})

    def _choice(self) -> VariantChoice:
        return self.choices[self.choice % len(self.choices)]

    def _other(self):
        path = self._choice().path
        if path not in self._opened:
            self._opened[path] = open_variant(path)
        return self._opened[path]

    def _show(self, title: str, blocks: dict[str, str]) -> None:
        title = f"{title}\n{self._note}" if self._note else title
        self.query_one("#whatif-title", Static).update(Content(visible(title, multiline=True)))
        for block in BLOCKS:
            self.query_one(f"#whatif-{block}", Static).update(Content(visible(blocks.get(block, ""), multiline=True)))

    def action_close(self) -> None:
        self.dismiss()

    def action_next_variant(self) -> None:
        if self.choices and len(self.choices) == 1:  # nothing to switch to: say so, and how to get more
            app = self.app
            self._note = only_variant_note(app.bundle, app.target, app.lang)
            self.sync()
        elif self.choices:
            self.choice = (self.choice + 1) % len(self.choices)
            self.fusion = 0
            self.sync()

    def action_pick_fusion(self, step: int) -> None:
        if self.panes is not None and self.panes.changes:
            self.fusion = (self.fusion + step) % len(self.panes.changes)
            self.sync()

    def action_open_fusion(self) -> None:
        """Enter: the marked changed fusion's HLO in this capture and in the other variant."""
        if self.panes is None or not self.panes.changes:
            return
        change = self.panes.changes[self.fusion % len(self.panes.changes)]
        lang, target = self.app.lang, self.app.target
        missing = label("whatif.no_fusion", lang)
        columns = tuple((name, fusion_hlo(bundle, target, names) or missing) for name, bundle, names in (
            (label("whatif.this", lang), self.app.bundle, change.before),
            (self._choice().label, self._other(), change.after)))
        title = label("whatif.fusion_pair", lang).format(layers=" + ".join(change.layers))
        self.app.push_screen(FusionPairScreen(title, columns))

    def action_move_layer(self, step: int) -> None:
        layer = neighbour_layer(getattr(self.app, "bundle", None), self.layer_name, step)
        if layer is not None:
            self.layer_name = layer
            self.sync()
            self.query_one("#whatif-body", VerticalScroll).scroll_home(animate=False)
