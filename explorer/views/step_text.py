"""The memory pane's summary of a training step or a sharded call (and `tensorweg inspect memory`).

Worded from the step's layout and memory (explorer.model.training) and its collectives
(explorer.model.sharding): buffers by class, the peak against inference, what rematerialisation
saves and costs, whether it fits one chip, and each collective with its ring estimate.
"""

from __future__ import annotations

from explorer.hlo.scan import shape_without_layout
from explorer.model.sharding import collectives, device_memory, interconnect, transfer_seconds
from explorer.model.training import StepLayout, StepMemory, op_phase, peak_of, step_memory
from explorer.views.format import format_bytes


def _duration(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.1f} {unit}"
    return f"{seconds * 1e9:.0f} ns"


def mode_label(layout: StepLayout) -> str:
    """`train (adam)`, `inference`, plus the mesh: `train (sgd) on 2x2, data parallel`."""
    text = f"train ({layout.optimizer})" if layout.mode == "train" else layout.mode
    text += ", rematerialised" if layout.remat else ""
    if layout.mesh:
        text += f" on {layout.mesh}, {layout.shard} parallel"
        text += f" by layout map {layout.layout_map}" if layout.layout_map else ""
    return text


def step_lines(layout: StepLayout, optimized_hlo: str, analysis: tuple[tuple[str, int], ...],
               target: str, memory: StepMemory | None = None) -> tuple[str, ...]:
    """The memory pane's summary of a training step or sharded call (per device). `memory`: the
    step's `step_memory`, when the caller has it already (it reads every entry instruction)."""
    memory = memory or step_memory(layout, optimized_hlo, analysis)
    lines = [f"{mode_label(layout)}, compiled by {layout.compiler}"]
    where = " per device" if layout.devices > 1 else ""
    lines.append(f"buffers{where}:")
    for group in memory.classes:
        lines.append(f"  {group.role:<20} {format_bytes(group.bytes):>10}  ({group.count})")
    if memory.fused_gradients:
        lines.append(f"  {memory.fused_gradients} gradients never stored: computed inside the optimizer's fusion")
    if memory.inference_peak_bytes:
        ratio = memory.peak_bytes / memory.inference_peak_bytes
        lines.append(f"peak {format_bytes(memory.peak_bytes)}{where}, "
                     f"inference {format_bytes(memory.inference_peak_bytes)} ({ratio:.1f}x; memory_analysis)")
    elif memory.peak_bytes:
        lines.append(f"peak {format_bytes(memory.peak_bytes)}{where} (memory_analysis)")
    if layout.remat and layout.without_remat_analysis:
        kept = peak_of(layout.without_remat_analysis)
        lines.append(f"remat saves {format_bytes(max(kept - memory.peak_bytes, 0))}: peak {format_bytes(kept)} when"
                     f" activations are kept")
        with_remat, without = layout.flops
        if with_remat and without:
            lines.append(f"remat adds {100 * (with_remat / without - 1):.0f}% work: {with_remat:,.0f} FLOP"
                         f" against {without:,.0f} (cost analysis)")
    if memory.aliases:
        lines.append(f"donated: {len(memory.aliases)} outputs reuse their argument's buffer (input_output_alias)")
    if layout.devices > 1:
        capacity = device_memory(target)
        if capacity and memory.peak_bytes:
            fits = "fits" if memory.peak_bytes <= capacity[0] else "does NOT fit"
            lines.append(f"{fits} in one chip's {format_bytes(capacity[0])} ({capacity[1]})")
        found = collectives(optimized_hlo)
        moved = format_bytes(sum(c.bytes_per_device for c in found))
        lines.append(f"collectives: {len(found)}, {moved} per device per step")
        link = interconnect(target)
        if found and link is not None:
            lines.append(f"  over {link.link} at {format_bytes(link.bandwidth.value)}/s per chip"
                         f" ({link.bandwidth.citation})")
        for collective in found:
            seconds = transfer_seconds(collective, target)
            time = f", ~{_duration(seconds)} (ring estimate)" if seconds is not None else ""
            phase = op_phase(collective.op_name, layout.optimizer).label()
            shape = shape_without_layout(collective.shape)
            lines.append(f"  {collective.opcode} {shape} groups {collective.replica_groups}"
                         f" {format_bytes(collective.bytes_per_device)}{time}" + (f"  [{phase}]" if phase else ""))
    return tuple(lines)
