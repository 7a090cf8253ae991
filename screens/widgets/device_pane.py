"""Device mapping: what each captured target made of the selection's layer.

One tab per device kind (`explorer.targets.device_tabs`: CPU | GPU | TPU). A kind
without a captured target says so and names the key that captures one, instead of
an empty tab.

The tabs are one line of text (`DeviceTabs`) over three texts, the open tab's shown, not
Textual's `TabbedContent`: that is a dozen widgets, its own styles and an underline that moves a
frame after a tab opens, which made the first screen settle two frames and some 40 ms later. The
open tab is drawn in reverse video, so it shows on a terminal without colour. The pane keeps its
texts from compose on, so a level that arrives while they still mount (a capture's first level)
goes straight into them; a `ContentSwitcher` opened before its own mount showed its initial child.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

from explorer.labels import label
from explorer.targets import device_kind, device_tabs
from explorer.views.tables import Selection

from screens.bindings import keyed
from screens.widgets.pane_text import PaneText

TABS = device_tabs()
KINDS = tuple(tab.kind for tab in TABS)
CAPTURE_KEY = "c"
TAB_GAP = 1  # columns between two tab titles, besides each title's own space either side


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


def tab_spans() -> list[tuple[int, int, str]]:
    """(first column, end column, kind) of each tab title on the strip: ` CPU ` ` GPU ` ` TPU `."""
    spans, column = [], 0
    for tab in TABS:
        width = len(tab.title) + 2
        spans.append((column, column + width, tab.kind))
        column += width + TAB_GAP
    return spans


class DeviceTabs(Widget, can_focus=True):
    """The strip of tab titles. Left/Right (when focused) or a click opens another tab."""

    COMPONENT_CLASSES = {"device-tabs--open"}
    DEFAULT_CSS = """
    DeviceTabs { height: 1; }
    DeviceTabs > .device-tabs--open { text-style: bold reverse; }
    DeviceTabs:focus > .device-tabs--open { text-style: bold reverse underline; }
    """
    BINDINGS = [
        keyed("right", "step(1)", "devices.next", show=False),
        keyed("left", "step(-1)", "devices.previous", show=False),
    ]

    class Opened(Message):
        """The learner opened the tab of `kind`."""

        def __init__(self, kind: str) -> None:
            super().__init__()
            self.kind = kind

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.open_kind = KINDS[0]

    def open(self, kind: str) -> None:
        if kind != self.open_kind:
            self.open_kind = kind
            self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        open_style = self.get_component_rich_style("device-tabs--open")
        for (start, _, kind), tab in zip(tab_spans(), TABS, strict=True):  # where a click finds them
            text.append(" " * (start - len(text)))
            text.append(f" {tab.title} ", open_style if kind == self.open_kind else "")
        return text

    def action_step(self, delta: int) -> None:
        self._learner_opens(KINDS[(KINDS.index(self.open_kind) + delta) % len(KINDS)])

    def on_click(self, event: events.Click) -> None:
        for start, end, kind in tab_spans():
            if start <= event.x < end:
                self._learner_opens(kind)

    def _learner_opens(self, kind: str) -> None:
        self.open(kind)
        self.post_message(self.Opened(kind))


class DevicePane(Vertical):
    # Every part fills the pane's box, so new text repaints its tab instead of resizing it.
    DEFAULT_CSS = """
    DevicePane { height: 1fr; }
    DevicePane PaneText { padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._texts = {kind: PaneText(id=f"device-{kind}-text") for kind in KINDS}
        self._tabs = DeviceTabs(id="device-tabs")
        self._target_shown = ""  # the target of the selection last shown: its tab opened then

    def compose(self) -> ComposeResult:
        yield self._tabs
        for kind, text in self._texts.items():
            text.display = kind == self._tabs.open_kind
            yield text

    @property
    def open_kind(self) -> str:
        """The device kind whose tab is open."""
        return self._tabs.open_kind

    @property
    def shown_text(self) -> PaneText:
        """The open tab's text."""
        return self._texts[self.open_kind]

    @property
    def settled(self) -> bool:
        """The open tab's text is laid out (what a picture waits for: a text just shown has no size
        until the next layout, and draws blank)."""
        return not self.size.area or bool(self.shown_text.size.area)

    def show(self, selection: Selection | None, captured: tuple[str, ...], can_capture: bool,
             lang: str = "en", reading: frozenset[str] = frozenset()) -> None:
        """Each tab's text for `selection`; the tab of a target not shown before opens (the learner can
        still open another, which stays open while that target is shown)."""
        if selection is not None and selection.target != self._target_shown:
            # A new target opens its tab; the same target again (its read arriving, a cursor move)
            # keeps the tab the learner opened.
            self._target_shown = selection.target
            self._open(device_kind(selection.target))
        for kind, text in self._texts.items():
            text.show(family_text(selection, kind, captured, can_capture, lang, reading))

    def on_device_tabs_opened(self, message: DeviceTabs.Opened) -> None:
        self._open(message.kind)

    def _open(self, kind: str) -> None:
        if kind not in KINDS:
            return  # a target of a kind without a tab (none today): the open tab stays
        self._tabs.open(kind)
        for each, text in self._texts.items():
            text.display = each == kind
