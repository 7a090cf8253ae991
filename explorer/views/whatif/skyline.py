"""The memory skyline: live bytes over program order, and the buffers live at the peak named by
layer and role, for the diff screen's two variants drawn one above the other.

From the target's buffer assignment (`MemoryLevel.live_ranges`, XLA's own or derived from program
order, and where each value sits in its allocation: `occupied_bytes`, so a slot XLA hands from an
operand to its output counts once and the peak never exceeds what the buffer assignment allocates;
entry parameters are in it, as in XLA's own peak) and the cross-level index; roles: weights and
inputs (entry parameters), activations (what the program computes), and in a training step the
step's own classes (gradients, optimizer state, saved activations: `explorer.model.training.step_memory`).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.model.buffer_assignment import occupied_bytes, value_sizes
from explorer.model.bundle import Bundle
from explorer.views.buffers import step_buffers
from explorer.views.format import format_bytes
from explorer.views.tables import cross_index, per_bundle

# Eight heights of a terminal cell, lowest first: one character per stretch of program order.
BLOCKS = " ▁▂▃▄▅▆▇█"
AT_PEAK_SHOWN = 5


@dataclass(frozen=True)
class PeakBuffer:
    value: str  # the instruction (and tuple index) the buffer holds
    layer: str  # "" when XLA created it
    role: str  # "weights", "inputs", "activations", or a training step's class
    bytes: int


@dataclass(frozen=True)
class Skyline:
    """live: bytes live at each position of program order; peak_time: where the most are live."""

    live: tuple[int, ...]
    peak_bytes: int
    peak_time: int
    at_peak: tuple[PeakBuffer, ...]  # largest first
    allocated_bytes: int = 0  # every allocation of the buffer assignment: the most the skyline can reach


@per_bundle  # the same for every layer: the diff screen's n, p, [ and ] redrew it each time (ResNet50: ~40 ms)
def skyline(bundle: Bundle, target: str) -> Skyline | None:
    """The target's skyline; None when its memory level or live ranges were not captured."""
    if bundle.status("memory", target).status != "ok":
        return None
    memory = bundle.memory(target)
    if memory is None or not memory.live_ranges:
        return None
    sizes = value_sizes(memory)
    live = occupied_bytes(memory)
    peak_time = max(range(len(live)), key=live.__getitem__)
    held = [r for r in memory.live_ranges if r.start <= peak_time <= r.end and sizes.get(r.value, 0)]
    roles = _roles(bundle, target)
    index = cross_index(bundle)
    buffers = []
    for found in held:
        instruction = found.value.split("{", 1)[0]
        entry = index.entry("optimized-hlo", instruction, target)
        layer = entry.layer if entry is not None else ""
        role = roles.get(instruction) or _role_of(entry)
        buffers.append(PeakBuffer(found.value, layer, role, sizes[found.value]))
    buffers.sort(key=lambda b: (-b.bytes, b.value))
    return Skyline(live, live[peak_time], peak_time, tuple(buffers),
                   sum(allocation.size for allocation in memory.allocations))


def _roles(bundle: Bundle, target: str) -> dict[str, str]:
    """A training step's entry instructions by class (gradients, optimizer state, ...); {} otherwise."""
    memory = step_buffers(bundle, target)
    return dict(memory.members) if memory is not None else {}


def _role_of(entry) -> str:
    if entry is not None and entry.role:
        return "inputs" if entry.role == "input" else "weights"
    return "activations"


def draw(live: tuple[int, ...], width: int, scale: int) -> str:
    """One line of `width` cells: each the most bytes live in its stretch of program order, as a
    block of eight heights against `scale` (the larger peak of the two variants, so they compare)."""
    if not live or width < 1 or scale <= 0:
        return ""
    cells = []
    for cell in range(min(width, len(live))):
        start = cell * len(live) // min(width, len(live))
        end = max(start + 1, (cell + 1) * len(live) // min(width, len(live)))
        height = max(live[start:end])
        cells.append(BLOCKS[min(8, -(-height * 8 // scale))])
    return "".join(cells)


def peak_lines(found: Skyline, lang: str = "en") -> list[str]:
    """`peak 1.9 MiB at position 12 of 40 (allocated 2.0 MiB):` and the largest buffers live there, by
    layer and role (the figures in `lang`'s digits)."""
    lines = [f"peak {format_bytes(found.peak_bytes, lang)} at position {found.peak_time} of {len(found.live)} "
             f"(allocated {format_bytes(found.allocated_bytes, lang)}):"]
    for buffer in found.at_peak[:AT_PEAK_SHOWN]:
        owner = buffer.layer or "created by XLA"
        lines.append(f"  {format_bytes(buffer.bytes, lang):>10}  {buffer.role:<17} {owner}  {buffer.value}")
    if len(found.at_peak) > AT_PEAK_SHOWN:
        lines.append(f"  ... {len(found.at_peak) - AT_PEAK_SHOWN} more")
    return lines
