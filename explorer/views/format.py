"""The one way figures are written for people: bytes, counts and seconds, and the dash for none;
and a plain text table of them (`tensorweg inspect`).

Shared by the compare table, the mesh comparison and the panes, so one figure reads the same
wherever it is shown.
"""

from __future__ import annotations

from explorer.safe_text import visible

MISSING = "-"


def format_bytes(value: float | None) -> str:
    if value is None:
        return MISSING
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{int(value)} B"


def format_count(value: float | None) -> str:
    if value is None:
        return MISSING
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size:
            return f"{value / size:.1f}{unit}"
    return f"{value:g}"


def format_seconds(value: float | None) -> str:
    if value is None:
        return MISSING
    for unit, size in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


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
