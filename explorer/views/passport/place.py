"""What the `P` screen's keys do, decided here (no Textual): which passport `P` opens for the app's
selection, where Enter on a hop goes, which target `t` turns to. Tested without Pilot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.levels import LIST_LEVELS, level_named
from explorer.texts.lookup import Explanation, explain_topic
from explorer.views.passport import Passport, passport
from explorer.views.passport.hops import Hop
from explorer.views.trace import counterpart

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle


def passport_for_selection(bundle: Bundle, level: str, selections: dict[str, str], target: str,
                           lang: str) -> Passport:
    """`P`: the passport of the selected item on `target`; from a level without a list (memory)
    or without a selection, the selected layer (else the model's first layer)."""
    item = selections.get(level, "") if level in LIST_LEVELS else ""
    if not item:
        level = "layers"
        item = selections.get("layers", "") or (bundle.layers[0].name if bundle.layers else "")
    if level_named(level).lists_layers:
        return passport(bundle, target, item, lang=lang)
    return passport(bundle, target, level=level, item=item, lang=lang)


def hop_place(found: Passport, hop: Hop) -> tuple[str, str, str] | None:
    """Enter on `hop`: (target, level, item to select), on the passport's target; None when the hop
    has nothing to show (it could not be recovered)."""
    level, item = hop.jump
    if not level or not item:
        return None
    return found.target, level, item


def next_target(bundle: Bundle, target: str) -> str:
    """`t`: the bundle's next target after `target`, round (itself when it has one)."""
    targets = bundle.targets
    if target not in targets:
        return targets[0] if targets else target
    return targets[(targets.index(target) + 1) % len(targets)]


def retarget(bundle: Bundle, found: Passport, lang: str) -> Passport:
    """The same passport on the next target: the same layer; an item no layer owns, its counterpart there."""
    other = next_target(bundle, found.target)
    if found.layer:
        return passport(bundle, other, found.layer, lang=lang)
    level, item = found.item
    item = counterpart(bundle, level, item, found.target, other) or item
    return passport(bundle, other, level=level, item=item, lang=lang)


# The course text beside each hop in the `P` screen: the two hops with texts of their own, else the overview.
_HOP_TEXTS = {"python": "passport:python", "optimized-hlo": "passport:output", "machine-code": "passport:machine-code"}


def hop_explanation(hop: Hop, lang: str) -> Explanation:
    """The course text for `hop` (explorer/texts/content/<lang>/passport/)."""
    return explain_topic(_HOP_TEXTS.get(hop.level, "passport:hops"), lang)
