"""How many warps of a GPU kernel fit on one SM at once: an ESTIMATE from `ptxas -v`'s
registers and shared memory, the launch's block size and the SM's limits (`targets.SmLimits`).

The same arithmetic as NVIDIA's occupancy calculator, simplified: blocks per SM are limited
by the registers, the shared memory, the threads (warps) and the block count an SM holds;
the smallest wins and names the limit. Nothing is measured: the target is compile-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.labels.numbers import number
from explorer.model.records import KernelRecord
from explorer.targets import SmLimits

WARP = 32


@dataclass(frozen=True)
class Occupancy:
    """warps: warps resident per SM (blocks x warps per block); limited_by: what stops more
    blocks ("registers", "shared memory", "threads per SM", "blocks per SM"), ties listed."""

    registers: int
    threads_per_block: int
    shared_memory_per_block: int
    blocks: int
    warps: int
    max_warps: int
    limited_by: tuple[str, ...]

    @property
    def fraction(self) -> float:
        return self.warps / self.max_warps if self.max_warps else 0.0


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def estimate(kernel: KernelRecord, limits: SmLimits | None) -> Occupancy | None:
    """The estimate for a kernel with a ptxas report and a launch; None where either is missing."""
    if limits is None or kernel.ptxas is None or kernel.launch is None:
        return None
    x, y, z = kernel.launch.block
    threads = x * y * z
    if threads <= 0:
        return None
    warps_per_block = -(-threads // WARP)
    registers = kernel.ptxas.registers
    # Static shared memory (ptxas) plus the launch's dynamic shared memory, plus the runtime's share.
    shared = kernel.ptxas.shared_memory_bytes + kernel.launch.shared_memory_bytes
    registers_per_warp = _round_up(max(registers, 1) * WARP, limits.register_allocation_unit)
    by_limit = {
        "registers": (limits.registers_per_sm // registers_per_warp) // warps_per_block,
        "threads per SM": min(limits.max_warps_per_sm, limits.max_threads_per_sm // WARP) // warps_per_block,
        "blocks per SM": limits.max_blocks_per_sm,
    }
    if shared:
        by_limit["shared memory"] = limits.shared_memory_per_sm // (shared + limits.reserved_shared_memory_per_block)
    blocks = min(by_limit.values())
    return Occupancy(
        registers=registers, threads_per_block=threads, shared_memory_per_block=shared,
        blocks=blocks, warps=blocks * warps_per_block, max_warps=limits.max_warps_per_sm,
        limited_by=tuple(name for name, count in by_limit.items() if count == blocks),
    )


def summary(occupancy: Occupancy, lang: str = "en") -> tuple[str, str]:
    """The result, then the figures it used and what limits it:
    (`63/64 warps/SM 98%`, `10 registers x 72 threads: 21 blocks, limited by threads per SM`);
    the figures in `lang`'s separators."""
    shared = f", {number(occupancy.shared_memory_per_block, ',', lang)} B shared" \
        if occupancy.shared_memory_per_block else ""
    return (f"{occupancy.warps}/{occupancy.max_warps} warps/SM {number(occupancy.fraction, '.0%', lang)}",
            f"{occupancy.registers} registers x {occupancy.threads_per_block} threads{shared}: "
            f"{occupancy.blocks} blocks, limited by {' and '.join(occupancy.limited_by)}")
