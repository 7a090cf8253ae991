"""Turn an XLA:CPU dump directory (`--xla_dump_to`) into the `cpu` target's files.

What XLA:CPU writes per module (`module_NNNN.<module name>.<what>`):
`before_optimizations.txt`, `cpu_after_optimizations.txt`, its
`-buffer-assignment.txt` and `-memory-usage-report.txt`, and per compiled unit
`<unit>.ir-no-opt.ll`, `<unit>.ir-with-opt.ll` and `obj-file.<unit>.o`. Units
seen: `<instruction>_kernel_module` (a fusion's kernel),
`<instruction>_elemental_kernel_module` (entry function `<instruction>_kernel`),
`__compute_module_<instruction>`, and `part_NN` (code from XLA:CPU's classic
IR emitter, e.g. a dot emitter's `col_major_gemv_...` or a sort comparator; one
part may hold several entry functions). A unit's entry functions are named
after the optimized-HLO instruction (or, for comparators, the computation) it
implements, which is how kernels are matched to HLO here.

Instructions that do work but have no emitted code (dots and convolutions run
by the runtime's Eigen/oneDNN routines, copies, FFTs, custom calls) become
`kind="library"` records, so every such instruction is traceable. A fusion
whose fused computation is identical to one that has a kernel is listed under
that kernel: XLA:CPU emitted one kernel for both (seen with two `negate`s).

XLA's ahead-of-time compiler (an ARM target, `explorer.capture.aot_worker`) writes the
same files, but emits the whole module as one unit, `cloned_to_local_context`: one
object (AArch64 for an ARM triple) whose exported functions are named
`<module>_<instruction>` with every character outside [0-9A-Za-z] made `_`
(`tfcompile_xla_generated_tfcompile_5_Model_wrapped_reduce_window`, `..._dot_kernel`).
That unit is split into one record per exported function: its listing with the local
functions it branches to (the dot's `row_major_gemv_F32_...`), and its LLVM IR
definitions with the internal functions they call.

This module imports no compiler; it only reads files.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from explorer.capture.disassembly import (
    disassemble_object,
    exported_functions,
    library_calls,
    listing_text,
)
from explorer.capture.listing import isa_of_object, vector_registers
from explorer.errors import ParseError
from explorer.hlo.model import HloComputation, HloInstruction, HloModule
from explorer.hlo.parser import parse_module
from explorer.model.buffer_assignment import parse_buffer_assignment, with_derived_live_ranges
from explorer.model.normalise import normalise_text
from explorer.model.passes_dump import write_pass_frames
from explorer.model.records import KernelRecord
from explorer.model.serial import dump_json, write_text_atomic

_AFTER = "cpu_after_optimizations.txt"
_MODULE_NUMBER = re.compile(r"^module_(\d+)\.")
_UNIT_FILE = re.compile(r"^(?:obj-file\.(?P<obj>.+)\.o|(?P<ir>.+)\.ir-(?:no|with)-opt\.ll)$")
_DEFINE = re.compile(r"^define (?!internal |private )[^@\n]*@\"?([^\"(\s]+)\"?\(", re.MULTILINE)
# Any definition, internal ones too, and the functions a body calls (the AOT unit's split).
_ANY_DEFINE = re.compile(r"^define [^@\n]*@\"?([^\"(\s]+)\"?\(", re.MULTILINE)
_CALLED = re.compile(r"\bcall [^@\n]*@\"?([^\"(\s]+)\"?\(")
_CALLEE_COMMENT = re.compile(r"# ([A-Za-z_][\w.$]*)$", re.MULTILINE)
# XLA's ahead-of-time compiler emits the whole module as this one unit (one object file).
WHOLE_MODULE_UNIT = "cloned_to_local_context"

# Opcodes that do no work of their own at run time: they name, forward or
# steer buffers (control flow runs its computations' instructions instead).
_NO_WORK = frozenset({
    "parameter", "constant", "tuple", "get-tuple-element", "bitcast", "while",
    "conditional", "call", "after-all", "add-dependency", "optimization-barrier", "domain",
})
_CONTROL_FLOW = frozenset({"while", "conditional", "call"})


def _module_prefix(dump_dir: Path) -> str | None:
    """The file prefix of the module to read: an `a_inference...` (TF function)
    module if any, else any; the largest module number among them."""
    candidates = [p.name[: -len(_AFTER)] for p in dump_dir.glob(f"*.{_AFTER}")]
    if not candidates:
        candidates = [p.name[: -len("before_optimizations.txt")] for p in dump_dir.glob("*.before_optimizations.txt")]
    if not candidates:
        return None
    inference = [c for c in candidates if "a_inference" in c] or candidates

    def number(prefix: str) -> int:
        match = _MODULE_NUMBER.match(prefix)
        return int(match.group(1)) if match else -1

    return max(inference, key=lambda c: (number(c), c))


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def _parse_module(text: str | None) -> HloModule | None:
    if text is None:
        return None

    return parse_module(text)


def _control_flow_computations(module: HloModule) -> list[HloComputation]:
    """ENTRY and the computations it runs through while/conditional/call."""
    if module.entry is None:
        return []
    found, pending = [module.entry], [module.entry]
    while pending:
        for instruction in pending.pop().instructions:
            if instruction.opcode not in _CONTROL_FLOW:
                continue
            for name in instruction.called_computations:
                computation = module.computation(name)
                if computation is not None and computation not in found:
                    found.append(computation)
                    pending.append(computation)
    return found


def _structure(module: HloModule, computation_name: str) -> tuple | None:
    """A fused computation's content without names, to spot identical fusions."""
    computation = module.computation(computation_name)
    if computation is None:
        return None
    index = {i.name: n for n, i in enumerate(computation.instructions)}
    return tuple(
        (i.opcode, i.shape, tuple(index.get(o, o) for o in i.operands), i.attributes, i.is_root)
        for i in computation.instructions
    )


class _Hlo:
    """Lookups over the optimized module for matching units to instructions."""

    def __init__(self, module: HloModule | None) -> None:
        self.module = module
        self.work: list[HloInstruction] = []
        self.by_name: dict[str, HloInstruction] = {}
        self.callers: dict[str, list[str]] = {}
        self.by_symbol: dict[str, str] = {}  # `wrapped_reduce_window_1` -> `wrapped_reduce-window.1`
        self.symbol_prefix = ""  # the AOT unit's `<module>_` before every function name
        if module is None:
            return
        self.symbol_prefix = symbol_name(module.name) + "_"
        for computation in _control_flow_computations(module):
            for instruction in computation.instructions:
                self.by_name[instruction.name] = instruction
                self.by_symbol.setdefault(symbol_name(instruction.name), instruction.name)
                if instruction.opcode not in _NO_WORK:
                    self.work.append(instruction)
        for _computation, instruction in module.all_instructions():
            for called in instruction.called_computations:
                self.callers.setdefault(called, []).append(instruction.name)

    def instructions_for(self, function: str) -> tuple[str, ...]:
        """Instruction names an entry function implements (empty if unknown)."""
        for candidate in (function, function.removesuffix("_kernel")):
            if candidate in self.by_name:
                return (candidate,)
        if self.symbol_prefix and function.startswith(self.symbol_prefix):  # the AOT unit's naming
            stem = function.removeprefix(self.symbol_prefix)
            for candidate in (stem, stem.removesuffix("_kernel")):
                if candidate in self.by_symbol:
                    return (self.by_symbol[candidate],)
        return tuple(self.callers.get(function, ()))

    def line(self, name: str) -> int:
        instruction = self.by_name.get(name)
        return instruction.line if instruction else 0


def symbol_name(name: str) -> str:
    """A name as XLA's ahead-of-time compiler spells it in a symbol: every character outside [0-9A-Za-z] is `_`."""
    return re.sub(r"[^0-9A-Za-z]", "_", name)


def _unit_names(prefix: str, dump_dir: Path) -> list[str]:
    units: set[str] = set()
    for path in dump_dir.glob(f"{glob_escape(prefix)}*"):
        match = _UNIT_FILE.match(path.name[len(prefix):])
        if match:
            units.add(match.group("obj") or match.group("ir"))
    return sorted(units)


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _unit_records(prefix: str, dump_dir: Path, unit: str, hlo: _Hlo) -> list[KernelRecord]:
    """The unit's record, or one per exported function for the AOT compiler's whole-module unit."""
    if unit != WHOLE_MODULE_UNIT:
        return [_unit_record(prefix, dump_dir, unit, hlo)]
    obj = dump_dir / f"{prefix}obj-file.{unit}.o"
    if not obj.is_file():
        return [_unit_record(prefix, dump_dir, unit, hlo)]
    elf = obj.read_bytes()
    listings = dict(disassemble_object(elf))
    llvm_ir = _read(dump_dir / f"{prefix}{unit}.ir-no-opt.ll") or ""
    llvm_ir_optimized = _read(dump_dir / f"{prefix}{unit}.ir-with-opt.ll") or ""
    exported = exported_functions(elf)
    return [_function_record(function, hlo, _with_callees(function, listings, exported),
                             _definitions(function, llvm_ir), _definitions(function, llvm_ir_optimized),
                             isa_of_object(elf))
            for function in exported]


def _with_callees(function: str, listings: dict[str, str], exported: tuple[str, ...]) -> str:
    """`function`'s listing, then each local function it branches to (once, in the order first called)."""
    order, pending = [function], [function]
    while pending:
        for callee in _CALLEE_COMMENT.findall(listings.get(pending.pop(), "")):
            callee = callee.split("+", 1)[0]
            if callee in listings and callee not in exported and callee not in order:
                order.append(callee)
                pending.append(callee)
    return "\n\n".join(listings[name] for name in order if name in listings)


def _definitions(function: str, module_text: str) -> str:
    """The LLVM IR definition of `function` and of the internal functions it calls, from a whole module."""
    blocks: dict[str, str] = {}
    lines = module_text.splitlines()
    for index, line in enumerate(lines):
        match = _ANY_DEFINE.match(line)
        if match is None:
            continue
        end = next((i for i in range(index, len(lines)) if lines[i] == "}"), len(lines) - 1)
        blocks[match.group(1)] = "\n".join(lines[index:end + 1])
    order, pending = [function], [function]
    while pending:
        for callee in _CALLED.findall(blocks.get(pending.pop(), "")):
            if callee in blocks and callee not in order:
                order.append(callee)
                pending.append(callee)
    return "\n\n".join(blocks[name] for name in order if name in blocks)


def _function_record(function: str, hlo: _Hlo, asm: str, llvm_ir: str, llvm_ir_optimized: str,
                     isa: str) -> KernelRecord:
    """One exported function of the AOT unit as a kernel record, named after the instruction it implements."""
    instructions = hlo.instructions_for(function)
    name = instructions[0] if len(instructions) == 1 else function.removeprefix(hlo.symbol_prefix)
    opcodes = {hlo.by_name[n].opcode for n in instructions if n in hlo.by_name}
    width, registers = vector_registers(asm, isa)
    return KernelRecord(
        name=name, hlo=tuple(instructions) or (name,),
        kind="fusion" if not opcodes or "fusion" in opcodes else "emitter",
        llvm_ir=normalise_text(llvm_ir), llvm_ir_optimized=normalise_text(llvm_ir_optimized), asm=asm,
        vector_width_bits=width, vector_registers=registers, library_calls=library_calls(asm))


def _unit_record(prefix: str, dump_dir: Path, unit: str, hlo: _Hlo) -> KernelRecord:
    llvm_ir = _read(dump_dir / f"{prefix}{unit}.ir-no-opt.ll") or ""
    llvm_ir_optimized = _read(dump_dir / f"{prefix}{unit}.ir-with-opt.ll") or ""
    obj = dump_dir / f"{prefix}obj-file.{unit}.o"
    asm, functions, isa = "", (), "x86-64"
    if obj.is_file():
        elf = obj.read_bytes()
        asm = listing_text(disassemble_object(elf))
        functions = exported_functions(elf)
        isa = isa_of_object(elf)
    if not functions:
        functions = tuple(_DEFINE.findall(llvm_ir_optimized or llvm_ir))
    instructions: list[str] = []
    for function in functions:
        instructions.extend(n for n in hlo.instructions_for(function) if n not in instructions)
    is_part = re.fullmatch(r"part_\d+", unit) is not None
    if is_part:
        name = functions[0] if len(functions) == 1 else unit
    else:
        stem = unit.removeprefix("__compute_module_").removesuffix("_kernel_module").removesuffix("_elemental")
        name = instructions[0] if len(instructions) == 1 else stem
    if not instructions and not hlo.module:
        instructions = [name]
    opcodes = {hlo.by_name[n].opcode for n in instructions if n in hlo.by_name}
    kind = "emitter" if is_part or (opcodes and "fusion" not in opcodes) else "fusion"
    width, registers = vector_registers(asm, isa)
    return KernelRecord(
        name=name,
        hlo=tuple(instructions),
        kind=kind,
        llvm_ir=normalise_text(llvm_ir),
        llvm_ir_optimized=normalise_text(llvm_ir_optimized),
        asm=asm,
        vector_width_bits=width,
        vector_registers=registers,
        library_calls=library_calls(asm),
    )


def _kernel_records(prefix: str, dump_dir: Path, hlo: _Hlo) -> list[KernelRecord]:
    records = [record for unit in _unit_names(prefix, dump_dir)
               for record in _unit_records(prefix, dump_dir, unit, hlo)]
    if hlo.module is None:
        return records
    covered = {name for record in records for name in record.hlo}
    twins = _FusionTwins(hlo.module, records)
    for instruction in hlo.work:
        if instruction.name in covered:
            continue
        twin = twins.kernel_for(instruction)
        if twin is not None:
            records[twin] = replace(records[twin], hlo=records[twin].hlo + (instruction.name,))
            continue
        calls = (instruction.custom_call_target,) if instruction.custom_call_target else ()
        twins.add(instruction, len(records))  # a later identical fusion is listed under this one
        records.append(KernelRecord(name=instruction.name, hlo=(instruction.name,), kind="library",
                                    library_calls=calls))
    return sorted(records, key=lambda r: min((hlo.line(n) for n in r.hlo), default=0))


class _FusionTwins:
    """Which kernel record already implements a fusion identical to a given one (same shape and
    fused computation). Built once: a training step's module has thousands of fusions without a
    kernel of their own, and comparing each with every record was quadratic (a minute on ResNet50)."""

    def __init__(self, module: HloModule, records: list[KernelRecord]) -> None:
        self.module = module
        by_name = {i.name: i for _c, i in module.all_instructions()}
        self.first: dict[tuple, int] = {}
        for index, record in enumerate(records):
            for name in record.hlo:
                if name in by_name:
                    self.add(by_name[name], index)

    def add(self, instruction: HloInstruction, index: int) -> None:
        key = self._key(instruction)
        if key is not None:
            self.first.setdefault(key, index)

    def _key(self, instruction: HloInstruction) -> tuple | None:
        if instruction.opcode != "fusion" or not instruction.called_computations:
            return None
        return (instruction.shape, _structure(self.module, instruction.called_computations[0]))

    def kernel_for(self, instruction: HloInstruction) -> int | None:
        key = self._key(instruction)
        return self.first.get(key) if key is not None else None


def read_cpu_dump(dump_dir: Path, out_dir: Path) -> None:
    """Write hlo.txt, optimized_hlo.txt, buffer_assignment.txt, memory_report.txt,
    memory.json and kernels.json (normalised) for the dump's main module.

    Missing files are skipped; what exists is written. A buffer assignment that
    does not parse raises its ParseError after everything else was written.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    prefix = _module_prefix(dump_dir)
    if prefix is None:
        return
    problems: list[ParseError] = []
    texts = {
        "hlo.txt": _read(dump_dir / f"{prefix}before_optimizations.txt"),
        "optimized_hlo.txt": _read(dump_dir / f"{prefix}{_AFTER}"),
        "buffer_assignment.txt": _read(dump_dir / f"{prefix}cpu_after_optimizations-buffer-assignment.txt"),
        "memory_report.txt": _read(dump_dir / f"{prefix}cpu_after_optimizations-memory-usage-report.txt"),
    }
    for file_name, text in texts.items():
        if text is not None:
            write_text_atomic(out_dir / file_name, normalise_text(text))

    try:
        module = _parse_module(texts["optimized_hlo.txt"])
    except ParseError:
        # Reported where the HLO level is parsed (optimized_hlo.json); here it
        # only means kernels are matched by file name, without library records.
        module = None

    if texts["buffer_assignment.txt"] is not None:
        try:
            memory = parse_buffer_assignment(normalise_text(texts["buffer_assignment.txt"]))
            if module is not None:
                memory = with_derived_live_ranges(memory, module)
            memory = replace(memory, report=normalise_text(texts["memory_report.txt"] or ""))
            dump_json(memory, out_dir / "memory.json")
        except ParseError as error:
            problems.append(error)

    dump_json(_kernel_records(prefix, dump_dir, _Hlo(module)), out_dir / "kernels.json")
    if problems:
        raise problems[0]


# TensorFlow's jit functions compile as `a_inference_...` modules; its helper modules do not.
CPU_PASS_MODULES = ".*a_inference.*"


def read_cpu_passes(dump_dir: Path, out_dir: Path) -> bool:
    """Write `out_dir/passes/` from the main module's per-pass snapshots; False when there are none."""
    prefix = _module_prefix(dump_dir)
    if prefix is None:
        return False
    before, after = dump_dir / f"{prefix}before_optimizations.txt", dump_dir / f"{prefix}{_AFTER}"
    return write_pass_frames(dump_dir, before if before.is_file() else None,
                             after if after.is_file() else None, out_dir) is not None
