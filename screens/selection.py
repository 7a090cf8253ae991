"""What every side pane needs to know about the current selection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from screens.items import LevelItem

if TYPE_CHECKING:  # types only: screens import this before any bundle is read
    from explorer.bundle import Bundle
    from explorer.hlo.model import HloInstruction
    from explorer.records import MemoryLevel
    from screens.trace import Trace


def memory_of(bundle: Bundle, target: str) -> MemoryLevel | None:
    """The memory level of `target` (Bundle caches the parsed JSON)."""
    return bundle.memory(target)


_INSTRUCTIONS: WeakKeyDictionary = WeakKeyDictionary()


def instructions_of(bundle: Bundle, target: str, optimized: bool) -> dict[str, HloInstruction]:
    """name -> instruction over the whole module, built once (lookups on every key press)."""
    per_bundle = _INSTRUCTIONS.setdefault(bundle, {})
    key = (target, optimized)
    if key not in per_bundle:
        module = bundle.hlo_module(target, optimized)
        per_bundle[key] = {i.name: i for _, i in module.all_instructions()} if module is not None else {}
    return per_bundle[key]


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
        return instructions_of(self.bundle, self.target, self.level == "optimized-hlo").get(self.item.name)
