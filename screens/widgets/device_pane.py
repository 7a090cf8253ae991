"""Device mapping: what each captured target made of the selection's layer.

One tab per device family (CPU | GPU | TPU). A target that was not captured
says so and names the key that captures it, instead of an empty tab.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from explorer.view import Selection, device_lines

from screens.widgets.pane_text import PaneText

FAMILIES = (("cpu", "CPU"), ("gpu", "GPU"), ("tpu", "TPU"))
CAPTURE_KEY = "c"


def family_of(target: str) -> str:
    return target.split(":", 1)[0]


def family_text(selection: Selection | None, family: str, captured: tuple[str, ...], can_capture: bool) -> str:
    """One tab: each captured target of the family (`explorer.view.device_lines`), or how to capture one."""
    targets = [t for t in captured if family_of(t) == family]
    if not targets:
        how = f"press {CAPTURE_KEY} to capture it" if can_capture else "capture again with this target"
        example = {"cpu": "cpu", "gpu": "gpu:h100", "tpu": "tpu:v5e"}[family]
        return f"{family.upper()} not captured ({example}): {how}."
    if selection is None:
        return "select an item"
    out: list[str] = []
    for target in targets:
        out += device_lines(selection.bundle, selection.level, selection.name, selection.target, target)
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
            for family, title in FAMILIES:
                with TabPane(title, id=f"device-{family}"):
                    yield PaneText(id=f"device-{family}-text")

    def show(self, selection: Selection | None, captured: tuple[str, ...], can_capture: bool) -> None:
        if selection is not None:
            # Open the tab of the target being shown; the learner can still switch tabs.
            tabs = self.query_one("#device-tabs", TabbedContent)
            wanted = f"device-{family_of(selection.target)}"
            if tabs.active != wanted:
                tabs.active = wanted
        for family, _ in FAMILIES:
            self.query_one(f"#device-{family}-text", PaneText).show(
                family_text(selection, family, captured, can_capture))
