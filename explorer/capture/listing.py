"""A CPU kernel's listing read by its instruction set: x86-64 (`explorer.capture.disassembly`) or
AArch64 (`explorer.capture.aarch64`). The views and the workers ask here, naming the ISA a target's row
gives (`TargetSpec.isa`), so neither guesses the instruction set from the text.
"""

from __future__ import annotations

from explorer.capture import aarch64, disassembly
from explorer.capture.disassembly import AsmLine

AARCH64, X86_64 = "aarch64", "x86-64"


def isa_of_object(elf: bytes) -> str:
    """The instruction set of an ELF object XLA wrote."""
    return AARCH64 if disassembly.machine(elf) == disassembly.EM_AARCH64 else X86_64


def read_line(line: str, isa: str) -> AsmLine | None:
    return aarch64.read_line(line) if isa == AARCH64 else disassembly.read_listing_line(line)


def vector_registers(asm: str, isa: str) -> tuple[int, tuple[str, ...]]:
    """(widest vector width in bits, registers used): `zmm3` on x86, `v4.4s` (register and arrangement) on AArch64."""
    return aarch64.vector_registers(asm) if isa == AARCH64 else disassembly.vector_registers(asm)


def register_count(names: tuple[str, ...]) -> int:
    """Distinct vector registers among `names` (an AArch64 register may appear with two arrangements)."""
    return aarch64.register_count(names)


def lanes(asm: str, isa: str, width_bits: int) -> tuple[int, int]:
    """(lanes, bits per lane) of a kernel's vector code: on AArch64 the arrangement its arithmetic names most
    (`fmla v0.4s` -> 4 x 32); on x86, whose register names carry no element size, the widest register in
    32-bit lanes; (0, 0) without vectors."""
    if isa == AARCH64:
        return aarch64.lanes(asm)
    return (width_bits // 32, 32) if width_bits else (0, 0)


def instruction_count(asm: str, isa: str) -> int:
    """Instructions in a listing (labels, directives and blank lines left out)."""
    return sum(1 for line in asm.splitlines() if read_line(line, isa) is not None)


def is_stack(memory: str, isa: str) -> bool:
    """A memory operand on the stack frame (a spill, not a tensor)."""
    if isa == AARCH64:
        return aarch64.is_stack(memory)
    return any(register in memory for register in ("rsp", "rbp"))
