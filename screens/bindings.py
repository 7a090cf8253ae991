"""Key bindings whose words follow the app's language, translated when they are drawn.

Textual declares bindings on the class (`BINDINGS`), read once. Every tensorweg binding has an id,
and its words live in `explorer.labels` (`binding.<id>` and `tooltip.<id>`): `keyed` builds the
binding from the English labels (one definition of the words, and what Textual's own widgets show),
and the footer and the help screen ask `words(binding, lang)` for the words in the app's language
when they draw. Textual's own bindings (no id) are named by their action (`textual.<action>`);
in English they keep Textual's words. The ids are also what a learner's keymap names
(`screens.keymap`).
"""

from __future__ import annotations

from textual.binding import Binding

from explorer.labels import LABELS, label


def keyed(key: str, action: str, id: str, **options) -> Binding:
    """A binding described by its labels (`binding.<id>`, `tooltip.<id>`), in English until drawn."""
    return Binding(key, action, label(f"binding.{id}", "en"), id=id, tooltip=label(f"tooltip.{id}", "en"), **options)


def words(binding: Binding, lang: str) -> tuple[str, str]:
    """(description, tooltip) of `binding` in `lang`."""
    if binding.id is not None and f"binding.{binding.id}" in LABELS:
        return label(f"binding.{binding.id}", lang), label(f"tooltip.{binding.id}", lang)
    if binding.id is None and lang != "en" and f"textual.{binding.action}" in LABELS:
        tip = f"tooltip.textual.{binding.action}"
        return label(f"textual.{binding.action}", lang), label(tip, lang) if tip in LABELS else binding.tooltip
    return binding.description, binding.tooltip
