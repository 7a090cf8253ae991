"""Device mapping: what each captured target made of the selection's layer.

One tab per device kind (`explorer.targets.device_tabs`: CPU | GPU | TPU). A kind
without a captured target says so and names the key that captures one, instead of
an empty tab.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Tab, TabbedContent, TabPane

from explorer.labels import label
from explorer.targets import device_kind, device_tabs
from explorer.views.tables import Selection

from screens.widgets.pane_text import PaneText

TABS = device_tabs()
CAPTURE_KEY = "c"


def family_text(selection: Selection | None, family: str, captured: tuple[str, ...], can_capture: bool,
                lang: str = "en", reading: frozenset[str] = frozenset()) -> str:
    """One tab: each captured target of the family (`explorer.views.panes.device_lines`), or how to capture one.

    A target in `reading` is being read by the open worker: said so, not read here on the UI thread."""
    from explorer.views.panes import device_lines  # noqa: PLC0415 (kept off the first frame: the open worker loads it)

    targets = [t for t in captured if device_kind(t) == family]
    if not targets:
        how = label("text.press_to_capture", lang).format(key=CAPTURE_KEY) if can_capture \
            else label("text.capture_again", lang)
        tab = next(tab for tab in TABS if tab.kind == family)
        return label("text.family_not_captured", lang).format(family=tab.title, example=tab.default_target, how=how)
    if selection is None:
        return label("state.select_item", lang)
    out: list[str] = []
    for target in targets:
        if target in reading:
            out.append(f"{target}: " + label("text.reading_target", lang))
            continue
        out += device_lines(selection.bundle, selection.level, selection.name, selection.target, target, lang)
    return "\n".join(out)


class DevicePane(Vertical):
    # Every part fills the pane's box, so new text repaints its tab instead of resizing it.
    DEFAULT_CSS = """
    DevicePane { height: 1fr; }
    DevicePane TabbedContent { height: 1fr; }
    DevicePane ContentSwitcher { height: 1fr; }
    DevicePane TabPane { padding: 0 1; height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        with TabbedContent(id="device-tabs"):
            for tab in TABS:
                with TabPane(tab.title, id=f"device-{tab.kind}"):
                    yield PaneText(id=f"device-{tab.kind}-text")

    _wanted_tab = ""  # the tab of the target last shown, opened once the tabs exist
    _texts_waiting = False  # a selection waits for the tab panes to mount
    _tab_waiting = False  # the wanted tab waits for the tab strip

    @property
    def settled(self) -> bool:
        """The last selection shown is in its tabs, and its target's tab is open and laid out (what a
        picture waits for: a tab just opened has no size until the next layout, and draws blank)."""
        if self._texts_waiting or self._tab_waiting:
            return False
        if not self.size.area:
            return True  # the pane is hidden (the memory map): nothing of it is drawn
        opened = self.query_one("#device-tabs", TabbedContent).active
        if opened != self.query_one(ContentSwitcher).current:
            return False
        return any(text.size.area for text in self.query(f"#{opened}-text").results(PaneText)) if opened else True

    def show(self, selection: Selection | None, captured: tuple[str, ...], can_capture: bool,
             lang: str = "en", reading: frozenset[str] = frozenset()) -> None:
        if selection is not None:
            # Open the tab of the target being shown; the learner can still switch tabs.
            self._wanted_tab = f"device-{device_kind(selection.target)}"
            self._open_wanted_tab()
        texts = self.query(PaneText)
        if len(texts) < len(TABS):
            # The tab panes mount after the pane itself: the screen may sync in between (on its
            # mount, under load). Show this selection once they are there.
            self._texts_waiting = True
            self.call_after_refresh(self.show, selection, captured, can_capture, lang, reading)
            return
        self._texts_waiting = False
        for tab in TABS:
            self.query_one(f"#device-{tab.kind}-text", PaneText).show(
                family_text(selection, tab.kind, captured, can_capture, lang, reading))

    def _open_wanted_tab(self) -> None:
        """TabbedContent mounts its tab strip after its panes: a level can arrive in between
        (a capture's first level, a bundle read in a worker), so wait for the tabs there. And for
        its switcher's mount, which shows its initial pane (none): a tab opened before it was
        underlined over an empty pane until a click (a handout picture differed under load)."""
        switchers = self.query(ContentSwitcher)
        if len(self.query(Tab)) < len(TABS) or not (switchers and switchers.first().is_mounted):
            self._tab_waiting = True
            self.call_after_refresh(self._open_wanted_tab)
            return
        self._tab_waiting = False
        tabs = self.query_one("#device-tabs", TabbedContent)
        if tabs.active != self._wanted_tab:
            tabs.active = self._wanted_tab
        elif switchers.first().current != self._wanted_tab:  # the strip agrees, the panes were reset
            switchers.first().current = self._wanted_tab
