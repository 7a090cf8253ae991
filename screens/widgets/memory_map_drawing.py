"""Text pictures of XLA's buffer assignment: allocations by offset and size,
and value live ranges over program order (not time) with the peak marked."""

from __future__ import annotations

from explorer.labels import label
from explorer.model.buffer_assignment import peak_from_live_ranges, value_sizes
from explorer.model.records import MemoryLevel
from explorer.views.format import format_bytes

FILLS = "█▓▒░"


def allocation_rows(memory: MemoryLevel, width: int, lang: str = "en") -> list[str]:
    """One row per allocation, bar length proportional to its size (largest = full width);
    the values inside are drawn at their offsets, alternating fill characters."""
    if not memory.allocations:
        return [label("text.no_allocations", lang)]
    largest = max(a.size for a in memory.allocations) or 1
    rows = []
    for allocation in sorted(memory.allocations, key=lambda a: a.index):
        length = max(1, round(width * allocation.size / largest))
        bar = ["·"] * length
        for number, value in enumerate(sorted(allocation.values, key=lambda v: v.offset)):
            start = int(length * value.offset / max(allocation.size, 1))
            end = max(start + 1, int(length * (value.offset + value.size) / max(allocation.size, 1)))
            for i in range(start, min(end, length)):
                bar[i] = FILLS[number % len(FILLS)]
        head = f"#{allocation.index:<3} {allocation.kind[:12]:<12} {format_bytes(allocation.size, lang):>10} "
        rows.append(head + "".join(bar))
    return rows


def peak_position(memory: MemoryLevel) -> tuple[int, int]:
    """(program position, bytes live there) where the most bytes are live at once."""
    peak_bytes, position = peak_from_live_ranges(memory.live_ranges, value_sizes(memory))
    return position, peak_bytes


def live_range_rows(memory: MemoryLevel, width: int, limit: int = 30, lang: str = "en") -> list[str]:
    """The `limit` largest values as bars over program order; `^` marks the peak column."""
    if not memory.live_ranges:
        return [label("text.no_live_ranges", lang)]
    sizes = value_sizes(memory)
    last = max(r.end for r in memory.live_ranges) or 1
    peak, peak_bytes = peak_position(memory)
    scale = (width - 1) / last
    ranges = sorted(memory.live_ranges, key=lambda r: (-sizes.get(r.value, 0), r.start))[:limit]
    name_width = min(28, max(len(r.value) for r in ranges))
    rows = []
    for live in sorted(ranges, key=lambda r: (r.start, r.end)):
        bar = [" "] * width
        for i in range(round(live.start * scale), round(live.end * scale) + 1):
            bar[min(i, width - 1)] = "━"
        name = live.value if len(live.value) <= name_width else "…" + live.value[-(name_width - 1):]
        rows.append(f"{name:<{name_width}} {format_bytes(sizes.get(live.value, 0), lang):>10} {''.join(bar)}")
    marker = " " * (name_width + 12 + round(peak * scale)) + label("text.peak_at", lang).format(
        position=peak, bytes=format_bytes(peak_bytes, lang))
    return rows + [marker]
