"""Device mapping: what each captured target made of the selection's layer.

One tab per device family (CPU | GPU | TPU). A target that was not captured
says so and names the key that captures it, instead of an empty tab.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from explorer.errors import TensorwegError

from screens.widgets.pane_text import PaneText

if TYPE_CHECKING:
    from screens.selection import Selection

FAMILIES = (("cpu", "CPU"), ("gpu", "GPU"), ("tpu", "TPU"))
CAPTURE_KEY = "c"


def family_of(target: str) -> str:
    return target.split(":", 1)[0]


def target_summary(selection: Selection, target: str) -> list[str]:
    """Fusions, kernels and library calls `target` made of the selection's layer."""
    bundle, trace = selection.bundle, selection.trace
    layer = selection.layer
    try:
        status = bundle.status("optimized-hlo", target)
    except TensorwegError:  # still capturing: the staging directory has no manifest yet
        from explorer.records import LevelStatus  # noqa: PLC0415 (the data model loads with the data)

        status = LevelStatus("pending")
    if status.status == "failed":
        return [f"{target}: capture failed: {status.error}"]
    if bundle.hlo_module(target, optimized=True) is None:
        return [f"{target}: optimized HLO not captured yet"]
    if not layer:
        return [f"{target}: this item belongs to no layer (created by XLA)"]
    lines = [f"{target}  (layer {layer})"]
    module = bundle.hlo_module(target, optimized=True)
    entry = {i.name: i for i in module.entry.instructions} if module is not None and module.entry else {}
    fusions = [n for n in trace.items_for_layer(layer, "optimized-hlo", target) if n in entry]
    for name in fusions[:8]:
        ins = entry[name]
        what = ins.fusion_kind or ins.custom_call_target or ins.opcode
        lines.append(f"  {name}: {what}")
    if len(fusions) > 8:
        lines.append(f"  ... {len(fusions) - 8} more")
    kernel_names = set(trace.items_for_layer(layer, "kernels", target))
    for kernel in bundle.kernels(target):
        if kernel.name in kernel_names:
            extra = f" calls {', '.join(kernel.library_calls[:3])}" if kernel.library_calls else ""
            lines.append(f"  kernel {kernel.name} [{kernel.kind}]{extra}")
    if len(lines) == 1:
        lines.append("  nothing recorded for this layer")
    return lines


def family_text(selection: Selection | None, family: str, captured: tuple[str, ...], can_capture: bool) -> str:
    targets = [t for t in captured if family_of(t) == family]
    if not targets:
        how = f"press {CAPTURE_KEY} to capture it" if can_capture else "capture again with this target"
        example = {"cpu": "cpu", "gpu": "gpu:h100", "tpu": "tpu:v5e"}[family]
        return f"{family.upper()} not captured ({example}): {how}."
    if selection is None:
        return "select an item"
    out: list[str] = []
    for target in targets:
        out += target_summary(selection, target)
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
