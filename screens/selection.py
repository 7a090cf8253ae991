"""What every side pane needs to know about the current selection."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.bundle import Bundle
from explorer.hlo.model import HloInstruction

from screens.items import LevelItem
from screens.trace import Trace


@dataclass(frozen=True)
class Selection:
    bundle: Bundle
    trace: Trace
    level: str
    target: str
    item: LevelItem
    lang: str = "en"

    @property
    def layer(self) -> str:
        return self.trace.layer_of(self.level, self.item.name, self.target)

    def instruction(self) -> HloInstruction | None:
        if self.level not in ("hlo", "optimized-hlo"):
            return None
        module = self.bundle.hlo_module(self.target, self.level == "optimized-hlo")
        if module is None:
            return None
        for _, instruction in module.all_instructions():
            if instruction.name == self.item.name:
                return instruction
        return None
