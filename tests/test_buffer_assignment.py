"""explorer.model.buffer_assignment on real XLA:CPU buffer assignments (tests/fixtures/xla_dump_cpu)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.errors import ParseError
from explorer.hlo.model import HloComputation, HloInstruction, HloModule, Shape
from explorer.hlo.parser import parse_module
from explorer.model.buffer_assignment import (
    live_ranges_from_schedule,
    parse_buffer_assignment,
    parse_live_ranges,
    parse_memory_report,
    peak_from_live_ranges,
    value_sizes,
    with_derived_live_ranges,
)
from explorer.model.records import Allocation, AssignedValue, MemoryLevel

FIXTURES_ROOT = Path(__file__).parent / "fixtures"

FIXTURE = Path(__file__).parent / "fixtures" / "xla_dump_cpu"


def _one(kind: str, suffix: str) -> str:
    (path,) = (FIXTURE / kind).glob(f"*{suffix}")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cnn_text() -> str:
    return _one("cnn", "buffer-assignment.txt")


def test_allocations_of_the_cnn(cnn_text):
    memory = parse_buffer_assignment(cnn_text)
    by_index = {a.index: a for a in memory.allocations}
    assert sorted(by_index) == list(range(len(memory.allocations)))
    weights = by_index[0]
    assert (weights.kind, weights.parameter_number, weights.size) == ("parameter", 3, 1352 * 10 * 4)
    assert weights.values[0].instruction == "arg3.1" and weights.values[0].shape.startswith("f32[1352,10]")
    output = next(a for a in memory.allocations if "output" in a.flags)
    assert "maybe-live-out" in output.flags
    temp = next(a for a in memory.allocations if a.kind == "preallocated-temp")
    # Values sharing the temp buffer fit inside it.
    assert all(v.offset + v.size <= temp.size for v in temp.values)
    assert {"convolution.1", "wrapped_reduce-window"} <= {v.instruction for v in temp.values}


def test_total_matches_memory_report(cnn_text):
    memory = parse_buffer_assignment(cnn_text)
    report = parse_memory_report(_one("cnn", "memory-usage-report.txt"))
    assert report.total_bytes == sum(a.size for a in memory.allocations)
    sizes = {a.index: a.size for a in memory.allocations}
    assert [sizes[i] for i in report.largest_first] == sorted(sizes.values(), reverse=True)


def test_xla_live_ranges_and_peak(cnn_text):
    memory = parse_buffer_assignment(cnn_text)
    assert memory.live_ranges_source == "xla" and memory.peak_source == "xla"
    ranges = {r.value: r for r in memory.live_ranges}
    assert ranges and set(ranges) <= set(value_sizes(memory))  # every range names an assigned value
    assert ranges["convolution.1{}"].start < ranges["broadcast_maximum_fusion{}"].start
    # XLA's peak lies between the largest allocation and the total of all allocations.
    assert max(a.size for a in memory.allocations) < memory.peak_bytes <= sum(a.size for a in memory.allocations)


def test_while_loop_tuple_and_phi_values():
    memory = parse_buffer_assignment(_one("lstm", "buffer-assignment.txt"))
    values = [v for a in memory.allocations for v in a.values]
    indexed = {(v.instruction, v.shape_index) for v in values}
    assert ("while.3", "{1}") in indexed and ("while.3", "{}") in indexed
    assert all("(phi)" not in v.instruction for v in values)


def test_live_range_format_alone():
    # The GPU `-live-range.txt` is this same HloLiveRange text on its own.
    text = _one("cnn", "buffer-assignment.txt")
    live_range_part = text[text.index("HloLiveRange"):]
    assert parse_live_ranges(live_range_part) == parse_buffer_assignment(text).live_ranges


def test_malformed_value_line_names_its_line(cnn_text):
    lines = cnn_text.splitlines()
    broken = next(i for i, line in enumerate(lines) if line.startswith(" value:"))
    lines[broken] = " value: <47 arg3.1 @0> (size=oops)"
    with pytest.raises(ParseError) as error:
        parse_buffer_assignment("\n".join(lines))
    assert error.value.line == broken + 1


def test_unknown_allocation_attribute_is_kept_as_a_flag():
    memory = parse_buffer_assignment("BufferAssignment:\nallocation 0: size 4, haunted:\n")
    assert memory.allocations[0].flags == ("haunted",)


def test_real_tpu_buffer_assignment_with_pages():
    """XLA:TPU writes `page 0` on every allocation; the allocations must still come through."""
    text = (FIXTURES_ROOT / "bundles" / "mnist_cnn" / "targets" / "tpu-v5e" / "buffer_assignment.txt").read_text()
    memory = parse_buffer_assignment(text)
    assert memory.allocations
    parameters = [a for a in memory.allocations if a.kind == "parameter"]
    assert {a.parameter_number for a in parameters} == {0, 1, 2, 3, 4}
    assert all("page 0" in a.flags for a in memory.allocations)


def _instruction(name, opcode, operands=(), root=False):
    return HloInstruction(name, opcode, Shape("f32", (4,)), tuple(operands), is_root=root)


def test_derived_ranges_follow_xla_conventions():
    # p0 -> a -> bitcast b -> c (root); d unused. Sizes 16 bytes each.
    entry = HloComputation("main", (
        _instruction("p0", "parameter"),
        _instruction("a", "negate", ["p0"]),
        _instruction("d", "negate", ["p0"]),
        _instruction("b", "bitcast", ["a"]),
        _instruction("c", "add", ["b", "p0"], root=True),
    ), is_entry=True)
    memory = MemoryLevel(
        allocations=tuple(
            Allocation(i, 16, "temp", values=(AssignedValue(n, "{}", 0, 16),))
            for i, n in enumerate(["p0", "a", "d", "c"])
        ),
        peak_bytes=0,
    )
    ranges = {r.value: (r.start, r.end) for r in live_ranges_from_schedule(HloModule("m", (entry,)), memory)}
    assert ranges == {"p0{}": (0, 5), "a{}": (1, 4), "d{}": (2, 2), "c{}": (4, 5)}
    derived = with_derived_live_ranges(memory, HloModule("m", (entry,)))
    assert (derived.peak_source, derived.live_ranges_source) == ("derived", "derived")
    assert derived.peak_bytes == 48  # p0, a and d at time 2
    assert peak_from_live_ranges(derived.live_ranges, value_sizes(memory)) == (48, 2)


def test_derived_ranges_match_xla_on_the_real_cnn(cnn_text):
    module = parse_module(_one("cnn", "cpu_after_optimizations.txt"))
    memory = parse_buffer_assignment(cnn_text)
    xla = {r.value: (r.start, r.end) for r in memory.live_ranges}
    derived = {r.value: (r.start, r.end) for r in live_ranges_from_schedule(module, memory)}
    assert derived == {k: v for k, v in xla.items() if k in derived}
    assert len(derived) == len(xla)
