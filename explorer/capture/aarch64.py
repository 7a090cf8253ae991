"""Reading AArch64 listings: NEON registers, their arrangements and lanes, and what a line does.

Two kinds of listing reach here: capstone's (`explorer.capture.disassembly.disassemble_object` on the
object XLA's ahead-of-time compiler wrote for an ARM target: `    94:  mla v4.4s, v16.4s, v17.4s`) and
LLVM's own assembly text (TVM's kernels for aarch64: `\tfmla\tv18.4s, v22.4s, v1.s[0]`). Both write
Arm's syntax: destination first, memory operands in brackets (`[x13, #0x1520]`).

NEON's 32 registers `v0`-`v31` are 128 bits each. An instruction names the arrangement it uses:
`v4.4s` is four 32-bit lanes, `.8h` eight 16-bit lanes, `.16b` sixteen bytes, `.2d` two 64-bit
lanes; `.2s`, `.4h`, `.8b` use the low 64 bits only; `q16` is the whole register as one 128-bit
value (loads and stores), `s4`/`d1` its low 32 or 64 bits as a scalar (read as `v4.s[0]`, lane 0 of
v4: scalar code uses the same register file, one lane at a time). A listing's vector width is the widest
arrangement it uses: 128 bits on these cores (SVE is not used by NEON code); scalar code has none.
"""

from __future__ import annotations

import re
from collections import Counter

from explorer.capture.disassembly import AsmLine

# `v4.4s`, `v0.16b`, `v1.s[0]` (one element: no lane count), `q16`.
_VECTOR = re.compile(r"\bv(\d+)\.(\d*)([bhsdq])\b(?!\[)")
_ELEMENT = re.compile(r"\bv(\d+)\.([bhsd])\[(\d+)\]")
_Q_REGISTER = re.compile(r"\bq(\d+)\b")
# A scalar view of a SIMD&FP register: `s1` is lane 0 of v1 as 32 bits (`v1.s[0]`), `d1` as 64, `h1`, `b1`.
_SCALAR = re.compile(r"\b([bhsd])(\d+)\b")
_ELEMENT_BITS = {"b": 8, "h": 16, "s": 32, "d": 64, "q": 128}
# A capstone listing line: `    94:  mla v4.4s, v16.4s, v17.4s  # comment`.
_LISTING_LINE = re.compile(r"^\s*([0-9a-f]+):\s+([a-z][a-z0-9.]*)(?:\s+(.*?))?\s*(?:#\s.*)?$")
# LLVM's text: `\tfmla\tv18.4s, v22.4s, v1.s[0]   // comment`; labels and directives do not match.
_LLVM_LINE = re.compile(r"^\s+([a-z][a-z0-9.]*)(?:\s+(.*?))?\s*(?://.*)?$")
_MEMORY = re.compile(r"\[(?:x\d+|sp)\b[^\]]*\]!?")
_STACK = re.compile(r"\[(?:sp|x29)\b")
# Moves, broadcasts and lane transfers: they place values, they do not compute.
_PLACING = ("mov", "movi", "mvni", "dup", "ins", "umov", "smov", "fmov", "ext", "zip", "uzp", "trn")


def vector_registers(asm: str) -> tuple[int, tuple[str, ...]]:
    """(widest vector width in bits, the NEON registers used with each arrangement: `v4.4s`, `v16.8h`)
    in an AArch64 listing; (0, ()) when it uses none (scalar code)."""
    arranged = {(int(number), count, kind) for number, count, kind in _VECTOR.findall(asm) if count}
    widths = [int(count) * _ELEMENT_BITS[kind] for _number, count, kind in arranged]
    widths += [128 for _ in _Q_REGISTER.findall(asm)]
    if not widths:
        return 0, ()
    names = tuple(f"v{number}.{count}{kind}" for number, count, kind in sorted(arranged))
    return max(widths), names


def scalar_only(names: tuple[str, ...]) -> bool:
    """Every register is used one lane at a time (`v1.s[0]`): the code is scalar, not vectorised."""
    return bool(names) and all(name.endswith("[0]") for name in names)


def register_count(names: tuple[str, ...]) -> int:
    """How many distinct registers `names` hold (`v4.4s` and `v4.2d` are one register, v4)."""
    return len({name.split(".", 1)[0] for name in names})


def lanes(asm: str) -> tuple[int, int]:
    """(lanes, bits per lane) of the arrangement the listing's arithmetic uses most (`fmla v0.4s` -> (4, 32));
    moves are left out (a whole-register copy is written `mov v1.16b, v0.16b` whatever its lanes hold);
    (0, 0) when no arithmetic names an arrangement (scalar code)."""
    arrangements: Counter[str] = Counter()
    for text in asm.splitlines():
        line = read_line(text)
        if line is not None and line.access == "compute":
            arrangements.update(name.split(".", 1)[1] for name in line.vector_registers
                                if "." in name and not name.endswith("]"))
    if not arrangements:
        return 0, 0
    arrangement = arrangements.most_common(1)[0][0]
    return int(arrangement[:-1]), _ELEMENT_BITS[arrangement[-1]]


def read_line(line: str) -> AsmLine | None:
    """One line of an AArch64 listing read into its parts; None for a label, a directive or a blank."""
    match = _LISTING_LINE.match(line)
    if match is not None:
        address, mnemonic, operands = match.group(1), match.group(2), match.group(3) or ""
    elif (llvm := _LLVM_LINE.match(line)) is not None and not llvm.group(1).startswith("."):
        address, mnemonic, operands = "", llvm.group(1), (llvm.group(2) or "").strip()
    else:
        return None
    registers = tuple(dict.fromkeys(f"v{number}.{count}{kind}" if count else f"v{number}"
                                    for number, count, kind in _VECTOR.findall(operands)))
    registers += tuple(f"v{number}.{kind}[{lane}]" for number, kind, lane in _ELEMENT.findall(operands))
    registers += tuple(f"v{number}" for number in _Q_REGISTER.findall(operands) if f"v{number}" not in registers)
    registers += tuple(dict.fromkeys(f"v{number}.{kind}[0]" for kind, number in _SCALAR.findall(operands)))
    memory = _MEMORY.search(operands)
    if memory and mnemonic.startswith("st"):
        access = "store"
    elif memory and mnemonic.startswith("ld"):
        access = "load"
    elif registers and not mnemonic.startswith(_PLACING):
        access = "compute"
    else:
        access = ""
    return AsmLine(address, mnemonic, operands, registers, memory.group(0) if memory else "", access)


def is_stack(memory: str) -> bool:
    """A memory operand on the stack frame (`[sp, #16]`, `[x29, #-8]`): a spill, not a tensor."""
    return bool(_STACK.match(memory))
