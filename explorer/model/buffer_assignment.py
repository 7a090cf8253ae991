"""XLA's buffer assignment, memory report and live ranges as data (the memory level).

Formats (as XLA prints them; see `BufferAllocation::ToString` and
`HloLiveRange::ToString` in xla/service/buffer_assignment.cc and
xla/hlo/utils/hlo_live_range.cc):

    allocation 0: size 54080, parameter 3, shape |f32[1352,10]| at ShapeIndex {}:
     value: <47 arg3.1 @0> (size=54080,offset=0): f32[1352,10]{1,0}
     value: <89 inputs.5{0} (phi) @0> (size=4,offset=0): s32[]
    Total bytes used: 84700 (82.7KiB)
    HloLiveRange (max 16):
      InstructionSequence:
        0:arg0.1
      BufferLiveRange:
        arg4.1{}:0-16
      Live ranges at 9 (peak):
        arg3.1{}: 54080 bytes (cumulative: 54080 bytes)

XLA:CPU appends the HloLiveRange part to its buffer-assignment file; XLA:GPU
writes the same format to a separate `-live-range.txt`. A live range `a-b`
includes both ends: a value is live at time t when a <= t <= b.

Where XLA wrote no live ranges, `live_ranges_from_schedule` derives them from
the optimized HLO (see its docstring); `MemoryLevel.live_ranges_source` and
`peak_source` say which ("xla" or "derived").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from explorer.errors import ParseError
from explorer.hlo.model import HloModule
from explorer.model.records import Allocation, AssignedValue, LiveRange, MemoryLevel

_ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)(.*):$")
_VALUE = re.compile(
    r"^ value: <\d+ ([^\s{]+)(\{[\d,]*\})?(?: \(phi\))? @\d+> "
    r"\(size=(\d+),offset=(\d+)\): (.*)$"
)
_PARAMETER = re.compile(r", parameter (\d+), shape \|.*?\| at ShapeIndex \{[\d,]*\}")
_OUTPUT = re.compile(r", output shape is \|.*?\|")
_COLOR = re.compile(r", color (\d+)")
_TOTAL_BYTES = re.compile(r"^Total bytes(?: used)?: (\d+)", re.MULTILINE)
_RANGE = re.compile(r"^    (\S+?(?:\{[\d,]*\})?):(\d+)-(\d+)$")
_PEAK_HEADER = re.compile(r"^  Live ranges at (\d+) \(peak\):$")
_PEAK_VALUE = re.compile(r"^    \S+: (\d+) bytes \(cumulative: (\d+) bytes\)$")

# Flags XLA prints as plain words after the size, in the order it prints them.
_WORD_FLAGS = ("constant", "thread-local", "maybe-live-out", "preallocated-temp")
# Which flag names the allocation's kind when several apply.
_KIND_PRIORITY = ("parameter", "constant", "output", "maybe-live-out", "thread-local", "preallocated-temp")

# Instructions whose result is (part of) an operand's buffer, not a new one: a
# use of their result is a use of the operand's value.
_FORWARDING_OPCODES = frozenset({"bitcast", "get-tuple-element", "tuple", "while", "optimization-barrier"})


@dataclass(frozen=True)
class MemoryReport:
    """XLA's `-memory-usage-report.txt`: the total and the allocations it lists by size."""

    total_bytes: int
    largest_first: tuple[int, ...]  # allocation indices, as XLA sorted them


def _parse_flags(rest: str) -> tuple[tuple[str, ...], int | None]:
    flags: list[str] = []
    parameter_number = None
    remaining = rest
    if match := _COLOR.search(remaining):
        flags.append(f"color {match.group(1)}")
        remaining = remaining.replace(match.group(0), "", 1)
    if match := _PARAMETER.search(remaining):
        flags.append("parameter")
        parameter_number = int(match.group(1))
        remaining = remaining.replace(match.group(0), "", 1)
    if match := _OUTPUT.search(remaining):
        flags.append("output")
        remaining = remaining.replace(match.group(0), "", 1)
    for word in _WORD_FLAGS:
        if f", {word}" in remaining:
            flags.append(word)
            remaining = remaining.replace(f", {word}", "", 1)
    # Attributes this parser does not know (XLA:TPU's `page 0`, newer XLA's
    # additions) are kept verbatim: a new word must not lose the whole level.
    flags.extend(part.strip() for part in remaining.split(",") if part.strip())
    return tuple(flags), parameter_number


def _kind(flags: tuple[str, ...]) -> str:
    for kind in _KIND_PRIORITY:
        if kind in flags:
            return kind
    return "temp"


def _parse_allocations(lines: list[str]) -> tuple[Allocation, ...]:
    allocations: list[Allocation] = []
    values: list[AssignedValue] = []
    in_section = False
    for number, line in enumerate(lines, start=1):
        if match := _ALLOCATION.match(line):
            if allocations:
                allocations[-1] = replace(allocations[-1], values=tuple(values))
            in_section = True
            values = []
            flags, parameter_number = _parse_flags(match.group(3))
            allocations.append(
                Allocation(
                    index=int(match.group(1)),
                    size=int(match.group(2)),
                    kind=_kind(flags),
                    flags=flags,
                    parameter_number=parameter_number,
                )
            )
        elif line.startswith(" value:"):
            match = _VALUE.match(line)
            if match is None or not in_section:
                raise ParseError("malformed buffer assignment value line", number, 1)
            name, index, size, offset, shape = match.groups()
            values.append(AssignedValue(name, index or "{}", int(offset), int(size), shape))
        elif in_section and line.strip() and not line.startswith("allocation"):
            break  # the end of the allocation list ("Total bytes used", "Used values", ...)
        elif line.startswith("allocation"):
            raise ParseError("malformed allocation line", number, 1)
    if allocations:
        allocations[-1] = replace(allocations[-1], values=tuple(values))
    return tuple(allocations)


def parse_live_ranges(text: str) -> tuple[LiveRange, ...]:
    """The `BufferLiveRange:` entries of XLA's HloLiveRange text, in XLA's order.

    `LiveRange.value` is `instruction{shape index}` exactly as XLA prints it
    (`arg4.1{}`), the key `AssignedValue.instruction + AssignedValue.shape_index`.
    """
    ranges: list[LiveRange] = []
    in_ranges = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line == "  BufferLiveRange:":
            in_ranges = True
        elif in_ranges and line.startswith("    "):
            match = _RANGE.match(line)
            if match is None:
                raise ParseError("malformed live range line", number, 1)
            ranges.append(LiveRange(match.group(1), int(match.group(2)), int(match.group(3))))
        elif in_ranges:
            break
    return tuple(ranges)


def parse_xla_peak(text: str) -> int | None:
    """XLA's peak live bytes: the last cumulative figure under `Live ranges at N (peak):`."""
    peak = None
    in_peak = False
    for line in text.splitlines():
        if _PEAK_HEADER.match(line):
            in_peak, peak = True, 0
        elif in_peak and (match := _PEAK_VALUE.match(line)):
            peak = int(match.group(2))
        elif in_peak:
            break
    return peak


def parse_buffer_assignment(text: str) -> MemoryLevel:
    """Parse XLA's `-buffer-assignment.txt` into a MemoryLevel.

    Live ranges and the peak are XLA's own where the text has an HloLiveRange
    part (XLA:CPU); otherwise they are left empty (peak 0, source "") for
    `with_derived_live_ranges` or a separate `-live-range.txt` to fill in.

    Raises:
        ParseError: with the 1-based line of a malformed allocation or value.
    """
    lines = text.splitlines()
    allocations = _parse_allocations(lines)
    if not allocations and text.strip():
        raise ParseError("no allocations found in buffer assignment", 1, 1)
    ranges = parse_live_ranges(text)
    peak = parse_xla_peak(text)
    return MemoryLevel(
        allocations=allocations,
        peak_bytes=peak or 0,
        live_ranges=ranges,
        peak_source="xla" if peak is not None else "",
        live_ranges_source="xla" if ranges else "",
    )


def parse_memory_report(text: str) -> MemoryReport:
    """Parse XLA's `-memory-usage-report.txt` (total and allocation order)."""
    total = _TOTAL_BYTES.search(text)
    if total is None:
        raise ParseError("memory report has no 'Total bytes' line", 1, 1)
    order: list[int] = []
    for line in text.split("Allocations sorted by size with their values:")[0].splitlines():
        if match := re.search(r"; allocation (\d+): size ", line):
            order.append(int(match.group(1)))
    return MemoryReport(total_bytes=int(total.group(1)), largest_first=tuple(order))


def assigned_value(memory: MemoryLevel, instruction: str,
                   shape_index: str = "{}") -> tuple[Allocation, AssignedValue] | None:
    """Where one part of `instruction`'s result lives: its allocation and value at `shape_index`
    (`{}` the whole result, `{0}` a tuple's first element). A tuple's parts are separate values,
    often in separate allocations: cuDNN's convolution returns (output, u8[0] workspace), and the
    workspace's allocation is not where the output is."""
    for allocation in memory.allocations:
        for value in allocation.values:
            if value.instruction == instruction and value.shape_index == shape_index:
                return allocation, value
    return None


def live_range_of(memory: MemoryLevel, instruction: str, shape_index: str = "{}") -> LiveRange | None:
    """The live range of `instruction`'s value at `shape_index`; XLA names a whole result `name{}`
    or, in older dumps, `name`."""
    wanted = {f"{instruction}{shape_index}"} | ({instruction} if shape_index == "{}" else set())
    return next((live for live in memory.live_ranges if live.value in wanted), None)


def value_sizes(memory: MemoryLevel) -> dict[str, int]:
    """Bytes of each assigned value, keyed like `LiveRange.value` (`name{index}`)."""
    return {
        f"{value.instruction}{value.shape_index}": value.size
        for allocation in memory.allocations
        for value in allocation.values
    }


def live_bytes(ranges: tuple[LiveRange, ...], sizes: dict[str, int]) -> tuple[int, ...]:
    """The bytes live at each time of program order (ends inclusive, as XLA counts): the memory
    skyline. Empty without live ranges."""
    if not ranges:
        return ()
    last = max(r.end for r in ranges)
    change = [0] * (last + 2)
    for r in ranges:
        size = sizes.get(r.value, 0)
        change[r.start] += size
        change[r.end + 1] -= size
    profile, running = [], 0
    for delta in change[:-1]:
        running += delta
        profile.append(running)
    return tuple(profile)


def occupied_bytes(memory: MemoryLevel) -> tuple[int, ...]:
    """The bytes the buffer assignment's allocations hold at each time of program order (ends
    inclusive): each allocation's live values by their offsets, a stretch two live values share
    counted once. XLA gives an elementwise fusion its operand's slot when that operand dies there
    (both values sit at one offset, both "live" at that time); summing value sizes counted that slot
    twice and put the skyline's peak above what the buffer assignment allocates. Empty without live
    ranges; values no allocation holds count nothing."""
    if not memory.live_ranges:
        return ()
    placed = {f"{value.instruction}{value.shape_index}": (allocation.index, value.offset, value.size)
              for allocation in memory.allocations for value in allocation.values}
    last = max(r.end for r in memory.live_ranges)
    change = [0] * (last + 2)
    spans: dict[int, list[tuple[int, int, int, int]]] = {}  # allocation -> (start, end, offset, size)
    for r in memory.live_ranges:
        if r.value in placed:
            index, offset, size = placed[r.value]
            spans.setdefault(index, []).append((r.start, r.end, offset, offset + size))
    for held in spans.values():
        _add_occupied(held, change)
    profile, running = [], 0
    for delta in change[:-1]:
        running += delta
        profile.append(running)
    return tuple(profile)


def _add_occupied(held: list[tuple[int, int, int, int]], change: list[int]) -> None:
    """Add one allocation's occupied bytes to `change` (a running total's steps), re-measuring the
    union of its live values' [offset, end) only where a value starts or ends."""
    if len(held) == 1:
        start, end, low, high = held[0]
        change[start] += high - low
        change[end + 1] -= high - low
        return
    starting: dict[int, list[tuple[int, int, int, int]]] = {}
    for span in held:
        starting.setdefault(span[0], []).append(span)
    live: list[tuple[int, int, int, int]] = []
    before = 0
    for time in sorted({start for start, _, _, _ in held} | {end + 1 for _, end, _, _ in held}):
        live = [span for span in live if span[1] >= time] + starting.get(time, [])
        now = _union_bytes([(low, high) for _, _, low, high in live])
        change[time] += now - before
        before = now


def _union_bytes(stretches: list[tuple[int, int]]) -> int:
    total, reached = 0, 0
    for low, high in sorted(stretches):
        if high > reached:
            total += high - max(low, reached)
            reached = high
    return total


def peak_from_live_ranges(ranges: tuple[LiveRange, ...], sizes: dict[str, int]) -> tuple[int, int]:
    """(peak live bytes, time of the peak): the max over program order of the
    sizes of the values live at each time (ends inclusive, as XLA counts)."""
    best, best_time = 0, 0
    for time, live in enumerate(live_bytes(ranges, sizes)):
        if live > best:
            best, best_time = live, time
    return best, best_time


def live_ranges_from_schedule(module: HloModule, memory: MemoryLevel) -> tuple[LiveRange, ...]:
    """Live ranges DERIVED from the optimized HLO, for when XLA wrote none.

    Time is the position in the ENTRY computation's text order (for modules
    printed with `is_scheduled=true` that is XLA's schedule). Following XLA's
    HloLiveRange conventions: a value is live from its defining instruction to
    its last use, inclusive; entry parameters and values that reach the ROOT
    are live until the end (time = number of entry instructions). A use of a
    bitcast / get-tuple-element / tuple / while of a value counts as a use of
    the value, since those forward its buffer. Values defined inside
    other computations (while bodies, reducers) are not covered.
    """
    entry = module.entry
    if entry is None:
        return ()
    position = {instruction.name: i for i, instruction in enumerate(entry.instructions)}
    by_name = {instruction.name: instruction for instruction in entry.instructions}
    users = entry.readers()
    end_of_program = len(entry.instructions)
    root = entry.root.name if entry.root else ""

    def last_use(name: str) -> int:
        last, seen, pending = position[name], {name}, [name]
        while pending:
            current = pending.pop()
            if current == root:
                return end_of_program
            for user in users.get(current, ()):
                last = max(last, position[user])
                if user not in seen and by_name[user].opcode in _FORWARDING_OPCODES:
                    seen.add(user)
                    pending.append(user)
        return last

    ranges: list[LiveRange] = []
    for allocation in memory.allocations:
        for value in allocation.values:
            instruction = by_name.get(value.instruction)
            if instruction is None:
                continue
            start = 0 if instruction.opcode == "parameter" else position[instruction.name]
            end = end_of_program if instruction.opcode == "parameter" else last_use(instruction.name)
            ranges.append(LiveRange(f"{value.instruction}{value.shape_index}", start, end))
    return tuple(sorted(ranges, key=lambda r: (r.start, r.end, r.value)))


def with_derived_live_ranges(memory: MemoryLevel, module: HloModule) -> MemoryLevel:
    """Fill in live ranges and peak from the schedule where XLA gave none (marked "derived")."""
    if memory.live_ranges:
        return memory
    ranges = live_ranges_from_schedule(module, memory)
    changes: dict[str, object] = {"live_ranges": ranges, "live_ranges_source": "derived"}
    if not memory.peak_source:
        changes["peak_bytes"] = peak_from_live_ranges(ranges, value_sizes(memory))[0]
        changes["peak_source"] = "derived"
    return replace(memory, **changes)
