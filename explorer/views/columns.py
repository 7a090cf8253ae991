"""How a level's list fits its columns into the width it has: widths from the content, the name
column first, every column at least a readable minimum, and a cell too long for its column cut
with an ellipsis (a name in the middle, where it is least telling), never silently at the edge.

Pure arithmetic over cell counts; the list widget (`screens.widgets.item_rows`) draws with it.
"""

from __future__ import annotations

ELLIPSIS = "…"
# The narrowest a column gets while the list is short of room: the name column keeps enough to
# tell `loop_multiply_fusion` from `loop_add_fusion`, the others a word (or their title).
NAME_FLOOR = 16
FLOOR = 8
# How wide the other columns grow, each in turn, before any grows further.
MODEST = 16
# What share of the width the name column may take before the other columns grow past their floor.
NAME_SHARE = 0.45


def fit_widths(natural: list[int], titles: list[int], available: int) -> list[int]:
    """Column widths (cells, padding not counted) for `available` cells.

    natural: each column's widest cell; titles: each title's width (a title is never cut).
    All fit: the natural widths. Else each column gets its floor (its natural width when
    narrower), the name column then grows to its share of the width, the others to MODEST, then
    from left to right to their natural widths (the op_name or layer column, the longest words,
    last), and the name column takes any rest. When even the floors do not fit, the floors (the list then
    scrolls sideways).
    """
    if sum(natural) <= available or not natural:
        return list(natural)
    floors = [min(width, max(title, NAME_FLOOR if column == 0 else FLOOR))
              for column, (width, title) in enumerate(zip(natural, titles, strict=True))]
    widths = list(floors)
    spare = available - sum(widths)
    if spare <= 0:
        return widths
    grow = min(natural[0] - widths[0], max(0, int(available * NAME_SHARE) - widths[0]), spare)
    widths[0] += grow
    spare -= grow
    # Then each other column to a modest width (a custom call's long target must not starve the
    # shape), then left to right to their natural widths (the longest words, op_name or layer,
    # come last), the name last of all.
    for limit in (MODEST, None):
        for column in (*range(1, len(widths)), 0) if limit is None else range(1, len(widths)):
            wanted = natural[column] if limit is None else min(natural[column], limit)
            extra = max(0, min(wanted - widths[column], spare))
            widths[column] += extra
            spare -= extra
    return widths


def cut(text: str, width: int, middle: bool = False) -> str:
    """`text` in at most `width` characters: as it is when it fits, else with an ellipsis at the
    end, or in the middle (`middle`: a name keeps its start and its numbered end)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    if not middle:
        return text[:width - 1] + ELLIPSIS
    tail = (width - 1) // 2
    return text[:width - 1 - tail] + ELLIPSIS + text[len(text) - tail:]
