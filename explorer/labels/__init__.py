"""Interface strings in English and German, so screens never hard-code a language.

The strings are kept in tables by where they are shown; `label` looks a key up in all of them.
"""

from __future__ import annotations

from explorer.errors import TensorwegError
from explorer.labels import compare, graph, keys, passport, screen, session, whatif

# key -> (English, German)
LABELS: dict[str, tuple[str, str]] = {**screen.LABELS, **keys.LABELS, **compare.LABELS, **graph.LABELS,
                                   **passport.LABELS, **whatif.LABELS, **session.LABELS}


def label(key: str, lang: str) -> str:
    """The UI string for `key` in `lang` ("en" or "de"); unknown keys raise, so typos show in tests."""
    try:
        english, german = LABELS[key]
    except KeyError:
        raise TensorwegError(f"unknown label '{key}'") from None
    if lang not in ("en", "de"):
        raise TensorwegError(f"unknown language '{lang}' (try: de, en)")
    return german if lang == "de" else english
