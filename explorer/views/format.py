"""The one way figures are written for people: bytes, counts, seconds and shares, and the dash for
none, in the UI's language (`27,040 B` in English is `27.040 B` in German: explorer.labels.numbers);
and a plain text table of them (`tensorweg inspect`).

Shared by the lists, panes, compare table, mesh comparison, what-if lab, graphs and handouts, so one
figure reads the same wherever it is shown. `lang` defaults to English, as the commands without
`--lang` print.
"""

from __future__ import annotations

from explorer.labels.numbers import number
from explorer.safe_text import visible

MISSING = "-"


def format_int(value: int, lang: str = "en") -> str:
    """A whole number, thousands grouped: 27,040 (27.040)."""
    return number(value, ",", lang)


def format_decimal(value: float, spec: str, lang: str = "en") -> str:
    """Any other figure by its format spec (`.3g`, `.1f`, `+.0%`), in the language's separators."""
    return number(value, spec, lang)


def format_percent(fraction: float, lang: str = "en") -> str:
    """0.25 -> 25%."""
    return number(fraction, ".0%", lang)


def format_bytes(value: float | None, lang: str = "en") -> str:
    """The short form: 27,040 -> 26.4 KiB (26,4 KiB)."""
    if value is None:
        return MISSING
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{number(value / size, '.1f', lang)} {unit}"
    return f"{int(value)} B"


def format_exact_bytes(value: int, lang: str = "en") -> str:
    """Every byte, and from 10,000 on the KiB too: 27,040 B (26.4 KiB); 27.040 B (26,4 KiB)."""
    exact = f"{number(value, ',', lang)} B"
    return exact if value < 10_000 else f"{exact} ({number(value / 1024, ',.1f', lang)} KiB)"


def format_count(value: float | None, lang: str = "en") -> str:
    if value is None:
        return MISSING
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size:
            return f"{number(value / size, '.1f', lang)}{unit}"
    return number(value, "g", lang)


def format_seconds(value: float | None, lang: str = "en") -> str:
    if value is None:
        return MISSING
    for unit, size in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= size:
            return f"{number(value / size, '.3g', lang)} {unit}"
    return f"{number(value / 1e-9, '.3g', lang)} ns"


def text_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """Columns padded to their widest cell, two spaces apart, no trailing blanks.

    Cells are shown as `explorer.safe_text.visible` shows them before they are measured: a name's
    control characters take the width of their stand-ins, and the columns stay aligned."""
    header = tuple(visible(cell) for cell in header)
    rows = [tuple(visible(cell) for cell in row) for row in rows]
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines)
