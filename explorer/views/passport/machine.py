"""The passport's machine-code hop: the lines of a kernel that load, store and compute a tensor,
with the registers they use, read off the recorded code by the assembly readers
(`explorer.capture.listing.read_line` for x86 and AArch64, by the target row's instruction set:
`zmm3` there, NEON's `v4.4s` here; `explorer.capture.sass.read_sass_line` for SASS). On a TPU there is
no machine code to read: the hop is the tensor's tiled layout and memory space, from the layout XLA
wrote on its shape (`explorer.views.panes.shape_lines`).

Which lines touch *this* tensor is a heuristic: machine code names registers and addresses, not
tensors. A fusion's stores write its result and its loads read its operands; stack traffic
(`[rsp + ...]`, `[rbp - ...]`, `[sp, #16]`: spills) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.capture import listing
from explorer.capture.sass import read_sass_line
from explorer.hlo.model import Shape
from explorer.model.records import KernelRecord
from explorer.views.panes import shape_lines

# How many lines of each kind the passport shows (a kernel's listing runs to hundreds).
_PER_KIND = 3
_COMPUTES = 4
# Fused multiply-adds: x86's vfmadd, NEON's fmla (float) and mla (integer), and the dot products.
_MULTIPLY_ADD = ("fma", "fmla", "mla", "dot")
_ARITHMETIC = ("add", "mul", "max", "min", "sub", "div", "sqrt", "exp", "mnmx")


@dataclass(frozen=True)
class MachineCode:
    """What the hop shows: `lines` as (access, instruction text); `registers` in first-use order;
    `addressing` the memory operands of its loads and stores; `kind` "x86", "aarch64", "sass", "tpu" or ""."""

    kind: str
    lines: tuple[tuple[str, str], ...] = ()
    registers: tuple[str, ...] = ()
    addressing: tuple[str, ...] = ()
    layout: tuple[str, ...] = ()
    registers_per_thread: int = 0


def _compute_rank(line: tuple[str, str, tuple[str, ...], str]) -> int:
    """Fused multiply-adds first, then arithmetic, then shuffles and the rest (a stable sort keeps order)."""
    mnemonic = line[1].split(":", 1)[-1].split()[0].lower() if ":" in line[1] else line[1].lower()
    if any(word in mnemonic for word in _MULTIPLY_ADD):
        return 0
    return 1 if any(word in mnemonic for word in _ARITHMETIC) else 2


def _pick(found: list[tuple[str, str, tuple[str, ...], str]]) -> MachineCode | None:
    """The first loads and stores, the computes (fused multiply-adds first), in listing order."""
    if not found:
        return None
    chosen: list[tuple[str, str, tuple[str, ...], str]] = []
    for access, limit in (("load", _PER_KIND), ("store", _PER_KIND)):
        chosen += [line for line in found if line[0] == access][:limit]
    computes = [line for line in found if line[0] == "compute"]
    chosen += sorted(computes, key=_compute_rank)[:_COMPUTES]
    chosen.sort(key=found.index)
    registers = tuple(dict.fromkeys(r for line in chosen for r in line[2]))
    addressing = tuple(dict.fromkeys(line[3] for line in chosen if line[3]))
    return MachineCode("", tuple((line[0], line[1]) for line in chosen), registers, addressing)


def cpu_code(asm: str, isa: str) -> MachineCode | None:
    """The lines of a CPU listing (x86-64 or AArch64) that move or compute vectors."""
    found = []
    for text in asm.splitlines():
        line = listing.read_line(text, isa)
        if line is None or not line.access or not line.vector_registers:
            continue
        if line.memory and listing.is_stack(line.memory, isa):
            continue  # a spill to the stack frame, not the tensor
        found.append((line.access, line.text, line.vector_registers, line.memory))
    picked = _pick(found)
    kind = "aarch64" if isa == listing.AARCH64 else "x86"
    return None if picked is None else MachineCode(kind, picked.lines, picked.registers, picked.addressing)


def sass_code(kernel: KernelRecord) -> MachineCode | None:
    found = []
    for text in kernel.sass.splitlines():
        line = read_sass_line(text)
        if line is None or not line.access:
            continue
        address = line.operands.split(",")[0 if line.access == "store" else -1].strip() \
            if line.access in ("load", "store") else ""
        found.append((line.access, line.text, line.registers, address))
    picked = _pick(found)
    if picked is None:
        return None
    per_thread = kernel.ptxas.registers if kernel.ptxas is not None else 0
    return MachineCode("sass", picked.lines, picked.registers, picked.addressing, registers_per_thread=per_thread)


def tpu_layout(shape: Shape, lang: str) -> MachineCode:
    return MachineCode("tpu", layout=shape_lines(shape, lang))


def machine_code(kernel: KernelRecord | None, shape: Shape | None, is_tpu: bool, lang: str,
                 isa: str = listing.X86_64) -> MachineCode | None:
    """The hop's content for `kernel` (None when nothing was recorded); `isa` the target row's."""
    if is_tpu and shape is not None:
        return tpu_layout(shape, lang)
    if kernel is None:
        return None
    if kernel.sass:
        return sass_code(kernel)
    if kernel.asm:
        return cpu_code(kernel.asm, isa)
    return None
