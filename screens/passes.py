"""`f` from the HLO levels: the filmstrip, the module after every compiler pass that changed it.

Top: the passes in order (pipeline, pass, instructions before and after, fusions, temporary
bytes where known). Below: the selected pass's narration and its diff (changed computations
only; added lines green, removed red, changed as a red/green pair; side by side from 160
columns). `n`/`p` step, `w` follows the HLO level's selected instruction (or its layer) to
the frame where it was fused or rewritten. `g` switches to Grappler's film (the TensorFlow
graph after each Grappler optimizer that changed it; `f` from the graph level opens it) and
back. Everything shown comes from `explorer.views.passes`; names are shown as text.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.safe_text import visible
from explorer.views import passes as pass_view
from explorer.views.passes import GRAPPLER, Filmstrip
from explorer.views.suggested import model_argument

from screens.bindings import keyed
from screens.widgets.keys_footer import KeysFooter

_STYLES = {"computation": "bold", "added": "green", "removed": "red",
           "changed-from": "red", "changed-to": "green"}
# Long pass names are cut at 28 columns so the counts stay on an 80-column screen.
_WIDTHS = (3, 28, 13, 5, 7, 10, None)
_GRAPPLER_WIDTHS = (3, 28, 13, 5, 7, None)
_MARKS = {"computation": "@@ ", "added": "+ ", "removed": "- ", "changed-from": "- ", "changed-to": "+ "}


def _heading(strip: Filmstrip, number: int, result, lang: str) -> Text:
    return Text(f"{pass_view.describe(strip, number, lang)}: {pass_view.summary(result, lang)}\n", style="bold")


def diff_text(strip: Filmstrip, number: int, lang: str = "en") -> Text:
    """The selected pass's diff as highlighted text (names never read as markup)."""
    result = pass_view.diff_of(strip, number)
    text = _heading(strip, number, result, lang)
    for line in result.lines:
        text.append(_MARKS[line.kind] + visible(pass_view.line_text(line, lang)) + "\n", style=_STYLES[line.kind])
    return text


def side_by_side_text(strip: Filmstrip, number: int, width: int, lang: str = "en") -> Text:
    """The diff in two columns of `width // 2` (wide terminals): before left, after right."""
    result = pass_view.diff_of(strip, number)
    half = max(20, width // 2 - 2)
    text = _heading(strip, number, result, lang)
    styles = {"computation": ("bold", "bold"), "removed": ("red", ""), "added": ("", "green"),
              "changed": ("red", "green")}
    for before, after, kind in pass_view.side_by_side(result, lang):
        before, after = visible(before), visible(after)  # measured as drawn (Rich drops BEL, BS, VT, FF)
        left, right = styles[kind]
        text.append(before[:half].ljust(half), style=left)
        text.append(" | ")
        text.append(after[:half] + "\n", style=right)
    return text


class PassesScreen(Screen):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [  # words: explorer.labels (`binding.passes.*`, `tooltip.passes.*`)
        keyed("escape,f", "close", "passes.close"),
        keyed("n", "step(1)", "passes.next"),
        keyed("p", "step(-1)", "passes.previous"),
        keyed("w", "follow", "passes.follow"),
        keyed("g", "switch_film", "passes.film"),
        keyed("c", "capture", "passes.capture"),
    ]

    def __init__(self, target: str, thing: str = "") -> None:
        super().__init__()
        self.target = target
        self.thing = thing  # the selected instruction or layer, for `w`
        self.strip: Filmstrip | None = None
        self.missing: pass_view.MissingFilm | None = None  # the film has no frames: how to get them
        self.frame = 0
        self._capturing_over: object | None = None  # the bundle without frames `c`'s capture replaces

    def compose(self) -> ComposeResult:
        yield Static("", id="passes-title")
        yield DataTable(id="passes-list", cursor_type="row", zebra_stripes=True)
        yield Static("", id="passes-narration")
        yield Static("", id="passes-follow")
        with VerticalScroll(id="passes-diff"):
            yield Static("", id="passes-diff-text")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.load_film(self.target)

    def load_film(self, target: str, frame: int = 0) -> None:
        """Show `target`'s film: an XLA target's passes, or Grappler's optimizers ("grappler")."""
        bundle = getattr(self.app, "bundle", None)
        title = self.query_one("#passes-title", Static)
        table = self.query_one("#passes-list", DataTable)
        self.target, self.strip, self.frame, self.missing = target, None, 0, None
        table.clear(columns=True)
        for pane in ("#passes-narration", "#passes-follow", "#passes-diff-text"):
            self.query_one(pane, Static).update("")
        lang = self._lang()
        try:
            if bundle is None:
                raise TensorwegError(label("passes.no_bundle", lang))
            session = self.app.session
            self.missing = pass_view.missing_film(bundle, target, model_argument(bundle, session.model_spec),
                                                  session.may_capture, lang)
            if self.missing is not None:
                title.update(Text(visible(self.missing.title)))
                self.query_one("#passes-diff-text", Static).update(Text(visible(self.missing.body, multiline=True)))
                self.refresh_bindings()
                return
            self.strip = pass_view.filmstrip(bundle, target, lang)
        except TensorwegError as error:
            title.update(Text(label("passes.title_error", lang).format(film=pass_view.shown_name(target, lang),
                                                                       error=error)))
            return
        title.update(Text(visible(pass_view.title(bundle, target, self.strip, lang))))
        # One width per column (None: the pipeline or iteration takes the rest of the line).
        widths = _GRAPPLER_WIDTHS if target == GRAPPLER else _WIDTHS
        for column, width in zip(pass_view.columns(self.strip, lang), widths, strict=True):
            # A header is never cut (German's are longer); the pass name stays cut at 28.
            table.add_column(column, width=None if width is None else max(width, len(column)))
        for row in self.strip.rows():
            table.add_row(*(Text(cell) for cell in pass_view.cells(row, self.strip.index.film, lang)),
                          key=str(row.number))
        table.focus()
        self.show(frame)

    def _lang(self) -> str:
        return getattr(self.app, "lang", "en")

    def show(self, number: int) -> None:
        """Select frame `number`: list cursor, narration and diff."""
        if self.strip is None:
            return
        self.frame = max(0, min(number, len(self.strip) - 1))
        table = self.query_one("#passes-list", DataTable)
        if table.cursor_row != self.frame:
            table.move_cursor(row=self.frame)
        lang = self._lang()
        title, body, source = pass_view.narration(self.strip.frames[self.frame].pass_name, lang, self.strip.index.film)
        narration = Text(f"{title}: ", style="bold")
        narration.append(body)
        self.query_one("#passes-narration", Static).update(narration)
        width = self.size.width
        drawn = (side_by_side_text(self.strip, self.frame, width, lang) if width >= pass_view.SIDE_BY_SIDE_COLUMNS
                 else diff_text(self.strip, self.frame, lang))
        self.query_one("#passes-diff-text", Static).update(drawn)
        self.query_one("#passes-diff", VerticalScroll).scroll_home(animate=False)

    def on_resize(self) -> None:
        self.show(self.frame)  # unified below SIDE_BY_SIDE_COLUMNS, side by side from there

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        # A reload (`L`, `g`) clears the list, which posts a highlight of row 0 that arrives after
        # the cursor moved back to the kept frame: only the cursor's present row counts.
        if event.cursor_row == event.data_table.cursor_row and event.cursor_row != self.frame:
            self.show(event.cursor_row)

    def action_step(self, step: int) -> None:
        self.show(self.frame + step)

    def action_follow(self) -> None:
        follow_pane = self.query_one("#passes-follow", Static)
        if self.strip is None or not self.thing:
            follow_pane.update(label("passes.nothing_to_follow", self._lang()))
            return
        try:
            steps = pass_view.follow_target(self.strip, self.app.bundle, self.target, self.thing, self._lang())
        except TensorwegError as error:
            follow_pane.update(Text(str(error)))
            return
        landing = pass_view.fusion_frame(steps) or (steps[0] if steps else None)
        if landing is None:
            follow_pane.update(Text(label("passes.unchanged", self._lang()).format(name=self.thing)))
            return
        follow_pane.update(Text(pass_view.follow_sentence(self.strip, landing, self._lang())))
        self.show(landing.frame)

    def action_switch_film(self) -> None:
        """Grappler's film (the TensorFlow graph) <-> the XLA pipeline of the app's target."""
        xla_target = getattr(self.app, "target", "cpu")
        self.load_film(xla_target if self.target == GRAPPLER else GRAPPLER)

    def check_action(self, action: str, _parameters: tuple[object, ...]) -> bool | None:
        """`c` only where the film has no frames and the app can capture them (shown in the footer then)."""
        if action == "capture":
            return self.missing is not None and self.missing.can_capture
        return True

    def action_capture(self) -> None:
        """`c` where the film has no frames: the app captures the model again with --passes, and the
        film opens here when the capture is done, on the same item (`sync`)."""
        if self.missing is None or not self.missing.can_capture:
            return
        before = getattr(self.app, "bundle", None)
        if not self.app.capture_passes():
            self.dismiss()  # refused: the level's status line says why
            return
        self._capturing_over = before
        self.missing = None
        self.refresh_bindings()
        self.sync()

    def sync(self) -> None:
        """The app's session changed: `L` rewords the same film and frame; while `c`'s capture runs, its
        progress shows under the title, and once its bundle replaced the one without frames, the film."""
        if self._capturing_over is None:
            self.load_film(self.target, self.frame)
            return
        app, lang = self.app, self._lang()
        session = app.session
        bundle = getattr(app, "bundle", None)
        done = bundle is not None and bundle is not self._capturing_over and bundle.has_manifest()
        if not done or session.progress:
            progress = session.now.progress_line()
            note = label("passes.capturing", lang) + (f"\n{progress}" if progress else "")
            self.query_one("#passes-title", Static).update(Text(visible(note, multiline=True)))
            return
        self._capturing_over = None
        self.load_film(self.target)

    def action_close(self) -> None:
        self.dismiss()

    def help_text(self) -> str:
        return label("help.passes", self._lang())
