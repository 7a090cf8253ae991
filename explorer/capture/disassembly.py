"""Disassemble XLA:CPU's object files (x86-64 or AArch64 ELF relocatable `.o`) with capstone.

A small ELF64 reader is enough: XLA:CPU's objects hold a few executable
sections (`.text`, and `.ltext` for the large code model it uses), a symbol
table and `.rela.<section>` relocations. Relocations matter for reading: XLA
calls helpers through `movabs rax, <address>; call rax`, and the address is
only filled in at load time, so without the relocation the call shows as
`movabs rax, 0x0`. Each instruction covering a relocation is annotated with
its target (`# col_major_gemv_F32_...`, or `# extern pow` for a symbol the
object does not define, i.e. a runtime library routine), and a `call reg`
after such a `movabs reg` is annotated with the same target.

Intel syntax, because it reads destination-first like LLVM IR's
`%x = op a, b` one level up, uses the register and mnemonic names of Intel's
manuals and intrinsics guide that learners look up, and writes memory
operands as `[rdi + 0x18]` rather than `0x18(%rdi)`.

An AArch64 object (XLA's ahead-of-time compiler for an ARM target) is read with capstone's ARM64
mode in Arm's own syntax (`fmla v0.4s, v4.4s, v6.4s`, destination first too); a `bl` to a function
of the same object is annotated with its name, as a relocation target is. Its listings are read
back by `explorer.capture.aarch64`.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from explorer.errors import ParseError

_SHF_EXECINSTR = 0x4
_SHT_SYMTAB, _SHT_RELA = 2, 4
_STT_FUNC, _STT_SECTION = 2, 3
_SHN_UNDEF = 0
# ELF e_machine: which instruction set the object holds.
EM_X86_64, EM_AARCH64 = 62, 183
# x86-64 relocation types whose value is relative to the place (P).
_PC_RELATIVE = frozenset({2, 4, 9, 41, 42})  # PC32, PLT32, GOTPCREL, GOTPCRELX, REX_GOTPCRELX

_VECTOR_REGISTER = re.compile(r"\b([xyz])mm(\d+)\b")
_VECTOR_BITS = {"x": 128, "y": 256, "z": 512}
_EXTERN_TARGET = re.compile(r"# extern (\S+)")


@dataclass(frozen=True)
class _Section:
    """An ELF section header's fields, as the object file writes them."""

    name: str
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int


@dataclass(frozen=True)
class _Symbol:
    """An ELF symbol table entry: its name, type, section, address and size."""

    name: str
    kind: int
    section: int
    value: int
    size: int


@dataclass(frozen=True)
class _Relocation:
    """An ELF relocation: where in the section, which kind, against which symbol, with what addend."""

    offset: int
    kind: int
    symbol: _Symbol
    addend: int


def _c_string(data: bytes, start: int) -> str:
    end = data.index(b"\0", start)
    return data[start:end].decode("utf-8", errors="replace")


def machine(elf: bytes) -> int:
    """The object's e_machine (EM_X86_64, EM_AARCH64, ...)."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ParseError("not a 64-bit little-endian ELF object", 0, 0)
    return struct.unpack_from("<H", elf, 0x12)[0]


def _sections(elf: bytes) -> list[_Section]:
    machine(elf)
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_offset = raw[shstrndx][4]
    return [
        _Section(_c_string(elf, names_offset + r[0]), r[1], r[2], r[4], r[5], r[6], r[7])
        for r in raw
    ]


def _symbols(elf: bytes, sections: list[_Section]) -> list[_Symbol]:
    for section in sections:
        if section.kind == _SHT_SYMTAB:
            strings = sections[section.link].offset
            symbols = []
            for start in range(section.offset, section.offset + section.size, 24):
                name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", elf, start)
                kind = info & 0xF
                label = sections[shndx].name if kind == _STT_SECTION else _c_string(elf, strings + name)
                symbols.append(_Symbol(label, kind, shndx, value, size))
            return symbols
    return []


def _relocations(elf: bytes, sections: list[_Section], symbols: list[_Symbol]) -> dict[int, list[_Relocation]]:
    """Relocations per target section index."""
    by_section: dict[int, list[_Relocation]] = {}
    for section in sections:
        if section.kind != _SHT_RELA:
            continue
        for start in range(section.offset, section.offset + section.size, 24):
            offset, info, addend = struct.unpack_from("<QQq", elf, start)
            symbol = symbols[info >> 32]
            by_section.setdefault(section.info, []).append(_Relocation(offset, info & 0xFFFFFFFF, symbol, addend))
    return by_section


def _target_name(relocation: _Relocation, instruction_end: int, functions: list[_Symbol], arch: int) -> str:
    """What a relocation points at, as a name a reader recognises."""
    symbol = relocation.symbol
    if symbol.section == _SHN_UNDEF:
        return f"extern {symbol.name}"
    target = relocation.addend
    # x86-64: value = S + A - P, the CPU adds the next instruction's address. AArch64's relocations
    # (CALL26, ADR_PREL_PG_HI21, ...) name their target as S + A whatever the encoding.
    if arch == EM_X86_64 and relocation.kind in _PC_RELATIVE:
        target += instruction_end - relocation.offset
    if symbol.kind == _STT_SECTION:  # `.ltext + 0x30`: find the function at that offset
        return _function_at(functions, symbol.section, target) or f"{symbol.name}+{target:#x}"
    return symbol.name + (f"+{target:#x}" if target else "")


def _function_at(functions: list[_Symbol], section: int, address: int) -> str:
    """`name` or `name+0x10` for the function of `section` holding `address`, "" when none does."""
    for function in functions:
        if function.section == section and function.value <= address < function.value + max(function.size, 1):
            offset = address - function.value
            return function.name + (f"+{offset:#x}" if offset else "")
    return ""


def _engine(arch: int):
    import capstone  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if arch == EM_AARCH64:
        return capstone.Cs(capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM)
    if arch != EM_X86_64:
        raise ParseError(f"an ELF object for machine {arch}: only x86-64 and AArch64 are disassembled", 0, 0)
    engine = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    engine.syntax = capstone.CS_OPT_SYNTAX_INTEL
    return engine


_AARCH64_BRANCH = frozenset({"bl", "b"})


def disassemble_object(elf_bytes: bytes) -> list[tuple[str, str]]:
    """[(function symbol, listing)] for every function in the object's code: Intel syntax for x86-64,
    Arm's syntax for AArch64.

    Raises:
        ParseError: when the bytes are not an ELF64 little-endian x86-64 or AArch64 object.
    """
    arch = machine(elf_bytes)
    sections = _sections(elf_bytes)
    symbols = _symbols(elf_bytes, sections)
    relocations = _relocations(elf_bytes, sections, symbols)
    functions = sorted(
        (s for s in symbols if s.kind == _STT_FUNC and s.section != _SHN_UNDEF),
        key=lambda s: (s.section, s.value),
    )
    engine = _engine(arch)
    listings: list[tuple[str, str]] = []
    for function in functions:
        section = sections[function.section]
        if not section.flags & _SHF_EXECINSTR:
            continue
        code = elf_bytes[section.offset + function.value : section.offset + function.value + function.size]
        section_relocations = relocations.get(function.section, [])
        lines = [f"{function.name}:"]
        loaded: dict[str, str] = {}  # register -> relocation target it was loaded with
        for insn in engine.disasm(code, function.value):
            text = f"{insn.mnemonic} {insn.op_str}".strip()
            end = insn.address + insn.size
            targets = [
                _target_name(r, end, functions, arch)
                for r in section_relocations
                if insn.address <= r.offset < end
            ]
            if not targets and arch == EM_AARCH64 and insn.mnemonic in _AARCH64_BRANCH:
                callee = _branch_target(insn.op_str, functions, function)
                targets = [callee] if callee else []
            if targets and insn.mnemonic == "movabs":
                loaded[insn.op_str.split(",")[0].strip()] = targets[0]
            elif not targets and insn.mnemonic in ("call", "jmp") and insn.op_str in loaded:
                targets = [loaded[insn.op_str]]
            comment = f"  # {', '.join(targets)}" if targets else ""
            lines.append(f"  {insn.address:6x}:  {text}{comment}")
        listings.append((function.name, "\n".join(lines)))
    return listings


def _branch_target(operand: str, functions: list[_Symbol], caller: _Symbol) -> str:
    """The function a `bl #0x30` enters (another function of the object; a branch inside the caller is a loop)."""
    try:
        address = int(operand.lstrip("#"), 16)
    except ValueError:
        return ""
    if caller.value <= address < caller.value + caller.size:
        return ""
    return _function_at(functions, caller.section, address)


def listing_text(listings: list[tuple[str, str]]) -> str:
    """All functions' listings as one text, separated by blank lines."""
    return "\n\n".join(text for _name, text in listings)


def vector_registers(asm: str) -> tuple[int, tuple[str, ...]]:
    """(widest SIMD register width in bits, names used) in an x86 listing.

    xmm = 128, ymm = 256, zmm = 512 bits; (0, ()) when no vector register is used.
    """
    used = {(kind, int(number)) for kind, number in _VECTOR_REGISTER.findall(asm)}
    if not used:
        return 0, ()
    widest = max(_VECTOR_BITS[kind] for kind, _ in used)
    ordered = sorted(used, key=lambda item: (_VECTOR_BITS[item[0]], item[1]))
    return widest, tuple(f"{kind}mm{number}" for kind, number in ordered)


def library_calls(asm_or_symbols: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Runtime library routines called, sorted: the `# extern NAME` targets of a
    listing from `disassemble_object`, or a list of undefined symbol names."""
    names = _EXTERN_TARGET.findall(asm_or_symbols) if isinstance(asm_or_symbols, str) else list(asm_or_symbols)
    return tuple(sorted(set(names)))


def exported_functions(elf_bytes: bytes) -> tuple[str, ...]:
    """Names of the global functions an object defines (its entry points)."""
    sections = _sections(elf_bytes)
    global_binding = 1
    return tuple(
        s.name
        for s, info in _symbols_with_binding(elf_bytes, sections)
        if s.kind == _STT_FUNC and s.section != _SHN_UNDEF and info == global_binding
    )


def _symbols_with_binding(elf: bytes, sections: list[_Section]) -> list[tuple[_Symbol, int]]:
    symbols = _symbols(elf, sections)
    for section in sections:
        if section.kind == _SHT_SYMTAB:
            bindings = [elf[start + 4] >> 4 for start in range(section.offset, section.offset + section.size, 24)]
            # _symbols read the same (first) symbol table, one entry per 24 bytes, as this did.
            return list(zip(symbols, bindings, strict=True))
    return []


# One line of a listing from `disassemble_object`: `   a0:  vmovups xmm4, xmmword ptr [rax + 0xa0]  # f`.
_LISTING_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)(?:\s+(.*?))?\s*(?:#.*)?$")
_MEMORY_OPERAND = re.compile(r"\[[^\]]*\]")
# LLVM's own assembly (TVM's kernels) is AT&T syntax: `\tvmovups\t%zmm0, 64(%rax,%rcx,4)`, destination last.
_ATT_LINE = re.compile(r"^\s+([a-z][a-z0-9]*)\s+(%.*?|[-\w$]*\(.*?)\s*(?:#.*)?$")
_ATT_MEMORY = re.compile(r"-?[\w$]*\(%[^)]*\)")


@dataclass(frozen=True)
class AsmLine:
    """One instruction of an x86 listing as the passport reads it.

    access: "store" (its destination is memory), "load" (a move or broadcast from memory),
    "compute" (vector arithmetic, a memory source or not), "" otherwise.
    """

    address: str
    mnemonic: str
    operands: str
    vector_registers: tuple[str, ...]
    memory: str
    access: str

    @property
    def text(self) -> str:
        return (f"{self.address}:  " if self.address else "") + f"{self.mnemonic} {self.operands}".rstrip()


def _top_level_operands(operands: str) -> list[str]:
    """Operands split at the commas outside parentheses (`64(%rax,%rcx,4)` is one)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(operands):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(operands[start:index].strip())
            start = index + 1
    return [*parts, operands[start:].strip()]


def read_listing_line(line: str) -> AsmLine | None:
    """`line` of a listing read into its parts (Intel syntax from `disassemble_object`, or LLVM's
    AT&T text); None for a line that holds no instruction (a label, a directive)."""
    match = _LISTING_LINE.match(line)
    if match is not None:
        address, mnemonic, operands = match.group(1), match.group(2), match.group(3) or ""
        memory = _MEMORY_OPERAND.search(operands)
        destination = operands.split(",", 1)[0]
    elif (att := _ATT_LINE.match(line)) is not None:
        address, mnemonic, operands = "", att.group(1), att.group(2)
        memory = _ATT_MEMORY.search(operands)
        parts = _top_level_operands(operands)
        destination = parts[-1] if len(parts) > 1 else ""
    else:
        return None
    registers = tuple(dict.fromkeys(f"{kind}mm{number}" for kind, number in _VECTOR_REGISTER.findall(operands)))
    if memory and memory.group(0) in destination:
        access = "store"
    elif memory and ("mov" in mnemonic or "broadcast" in mnemonic):
        access = "load"
    elif registers and mnemonic.startswith("v") and "mov" not in mnemonic:
        access = "compute"
    else:
        access = ""
    return AsmLine(address, mnemonic, operands, registers, memory.group(0) if memory else "", access)
