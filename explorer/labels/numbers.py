"""Numbers as the UI's language writes them: thousands grouped `27,040` and decimals `1.5` in English,
`27.040` and `1,5` in German (a German reader takes `27,040 B` for 27.04 bytes).

The one rule for both languages' digits: `explorer.views.format` writes bytes, counts and seconds
with it, the course texts their figures (`explorer.texts`), which may not import the views.
"""

from __future__ import annotations

_GERMAN = str.maketrans({",": ".", ".": ","})


def number(value: float, spec: str = ",", lang: str = "en") -> str:
    """`value` written by the format `spec` (`,` groups thousands, `.1f` one decimal, `.0%`), with
    the separators of `lang`: `number(27040, ",", "de")` -> "27.040", `number(1.5, ".1f", "de")` -> "1,5"."""
    text = format(value, spec)
    return text.translate(_GERMAN) if lang == "de" else text
