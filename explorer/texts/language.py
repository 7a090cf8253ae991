"""The user's language from the locale, without loading a text: the command line asks it before
the UI starts (`tensorweg MODEL` with no `--lang`); `explorer.texts.lookup` shows the texts in it."""

from __future__ import annotations

from collections.abc import Mapping


def default_language(environ: Mapping[str, str]) -> str:
    """"de" when the locale is German (LC_ALL, then LC_MESSAGES, then LANG), else "en"."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:  # the first one set decides, as in POSIX locale lookup
            return "de" if value.lower().startswith("de") else "en"
    return "en"
