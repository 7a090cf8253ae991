"""Key bindings whose description and tooltip follow the app's language.

Textual declares bindings on the class (`BINDINGS`), read once; the footer and
the help screen show `Binding.description` and `Binding.tooltip`. Every
tensorweg binding has an id, and its words live in `explorer.labels`
(`binding.<id>` and `tooltip.<id>`): `keyed` builds the class-level binding
from the English labels (one definition of the words), `localise` swaps each
node's own copy of its bindings for ones in the app's language and asks the
footer to redraw. Textual's own bindings (no id) are named by their action
(`textual.<action>`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual.binding import Binding

from explorer.labels import LABELS, label

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen


def keyed(key: str, action: str, id: str, **options) -> Binding:
    """A binding described by its labels (`binding.<id>`, `tooltip.<id>`), in English until localised."""
    return Binding(key, action, label(f"binding.{id}", "en"), id=id, tooltip=label(f"tooltip.{id}", "en"), **options)


def _in(binding: Binding, lang: str) -> Binding:
    if binding.id is not None and f"binding.{binding.id}" in LABELS:
        description, tooltip = label(f"binding.{binding.id}", lang), label(f"tooltip.{binding.id}", lang)
    elif binding.id is None and lang != "en" and f"textual.{binding.action}" in LABELS:
        # Textual's own keys (a list's cursor, an input's editing keys) have no id: named by action;
        # in English they keep Textual's own words.
        description = label(f"textual.{binding.action}", lang)
        tip = f"tooltip.textual.{binding.action}"
        tooltip = label(tip, lang) if tip in LABELS else binding.tooltip
    else:
        return binding
    return replace(binding, description=description, tooltip=tooltip)


def localise_node(node: DOMNode, lang: str) -> None:
    """`node`'s bindings in `lang`, made from the ones it was built with (kept on first use). Each
    node holds its own copy of the class's map (its lists are shared with the class), so the lists
    are replaced, never changed in place."""
    keys = node._bindings.key_to_bindings
    built = node.__dict__.setdefault("_bindings_as_built", dict(keys))
    for key, bindings in built.items():
        keys[key] = [_in(binding, lang) for binding in bindings]


def localise(screen: Screen, lang: str) -> None:
    """Every binding `screen`'s footer and help can show (app, screen, its widgets) in `lang`."""
    localise_node(screen.app, lang)
    localise_node(screen, lang)
    for node in screen.walk_children():
        localise_node(node, lang)
    screen.refresh_bindings()
