"""GPU kernels down to SASS: `ptxas` compiles each kernel's PTX for the target's real
architecture, `cuobjdump -sass` (which runs `nvdisasm`) prints the machine code.

The tools come from NVIDIA's wheels, installed with the project on Linux x86-64
(`nvidia-cuda-nvcc-cu12` has `ptxas`, `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm`
the other two); they are found in the installed distributions, never downloaded. Elsewhere
every GPU kernel keeps its PTX and says why it has no SASS (`KernelRecord.sass_note`).

Runs in the JAX worker after XLA:GPU's dump is read: plain subprocesses, no compiler import.
The parsing (`parse_ptxas_report`, `normalise_sass`) is pure, so tests feed it recorded output.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

from explorer.capture.gpu_dump import ptx_target
from explorer.capture.installed_tools import TOOL_WHEELS
from explorer.model.records import KernelRecord, PtxasReport

NOT_AVAILABLE = ("SASS not available: install " + ", ".join(wheel for _, wheel in TOOL_WHEELS)
                 + " (Linux x86-64 only, like the CUDA plugin)")
# One ptxas run per kernel: a big model has hundreds, and each is a short single-threaded process.
_PARALLEL = max(1, min(8, os.cpu_count() or 1))
_TIMEOUT_S = 120


@dataclass(frozen=True)
class Tools:
    """Where CUDA's ptxas, cuobjdump and nvdisasm are (from the NVIDIA wheels)."""

    ptxas: Path
    cuobjdump: Path
    nvdisasm: Path


def _wheel_binary(tool: str, distribution: str) -> Path | None:
    """`tool` as installed by `distribution`'s wheel (its RECORD lists `.../bin/<tool>`)."""
    try:
        files = metadata.files(distribution) or ()
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == tool and file.parent.name == "bin":
            path = Path(str(file.locate()))
            if path.is_file() and os.access(path, os.X_OK):
                return path
    return None


def find_tools() -> Tools | None:
    """The three tools from the installed wheels; None when any is missing."""
    found = {tool: _wheel_binary(tool, wheel) for tool, wheel in TOOL_WHEELS}
    paths = {tool: path for tool, path in found.items() if path is not None}
    if len(paths) < len(found):
        return None
    return Tools(**paths)


_REGISTERS = re.compile(r"Used (\d+) registers")
_FIGURES = {
    "barriers": re.compile(r"used (\d+) barriers"),
    "shared_memory_bytes": re.compile(r"(\d+) bytes smem"),
    "constant_memory_bytes": re.compile(r"(\d+) bytes cmem\[0\]"),
    "stack_frame_bytes": re.compile(r"(\d+) bytes stack frame"),
    "spill_store_bytes": re.compile(r"(\d+) bytes spill stores"),
    "spill_load_bytes": re.compile(r"(\d+) bytes spill loads"),
}


def parse_ptxas_report(text: str, kernel: str, arch: str) -> PtxasReport | None:
    """The `ptxas -v` figures of `kernel` (its `Function properties` and `Used ...` lines)."""
    start = text.find(f"Compiling entry function '{kernel}'")
    if start < 0:
        return None
    end = text.find("Compiling entry function", start + 1)
    part = text[start:] if end < 0 else text[start:end]
    registers = _REGISTERS.search(part)
    if registers is None:
        return None
    figures = {key: int(m.group(1)) for key, rx in _FIGURES.items() if (m := rx.search(part))}
    return PtxasReport(arch=arch, registers=int(registers.group(1)), **figures)


_FUNCTION = re.compile(r"^\s*Function : (\S+)\s*$")
_INSTRUCTION = re.compile(r"^\s*(/\*[0-9a-f]{4,}\*/)\s+(.*?)\s*;?\s*(?:/\* 0x[0-9a-f]+ \*/)?\s*$")


def split_sass(cuobjdump_output: str) -> dict[str, str]:
    """Each function's SASS, one instruction a line: `/*0040*/  LEA R0, R0, R3, 0x7 ;`.

    The encodings (the hex words in comments) and the ELF header flags are dropped: they are
    the same facts in binary and would double the text. The address stays (branches name it).
    """
    functions: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in cuobjdump_output.splitlines():
        if function := _FUNCTION.match(line):
            lines = functions.setdefault(function.group(1), [])
            continue
        match = _INSTRUCTION.match(line) if lines is not None else None
        if lines is not None and match and match.group(2):  # a match implies a function's lines
            lines.append(f"{match.group(1)}  {match.group(2).rstrip(' ;')} ;")
    for lines in functions.values():
        while lines and lines[-1].endswith("  NOP ;"):
            lines.pop()  # padding to the code's alignment after the final `BRA` to itself: never runs
    return {name: "\n".join(lines) + "\n" for name, lines in functions.items() if lines}


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")


_MODULE_HEADER = re.compile(r"^\.(?:version|target|address_size)\b.*$", re.MULTILINE)


def merge_ptx(modules: list[str]) -> str:
    """One PTX module holding the kernels of `modules` (same header): ptxas and cuobjdump start
    once for all of them instead of once per kernel, which is most of their time on small kernels.

    The first module's header is kept, the others' dropped; a module-scope line repeated word for
    word (`.extern .shared ... global_smem[];` in every Triton kernel) is kept once. A clash that
    remains (two modules defining the same global) makes ptxas fail, and the caller compiles those
    kernels one by one.
    """
    header = "\n".join(_MODULE_HEADER.findall(modules[0]))
    seen: set[str] = set()
    parts = [header]
    for module in modules:
        body = []
        for line in _MODULE_HEADER.sub("", module).splitlines():
            if line.startswith(".extern "):
                if line in seen:
                    continue
                seen.add(line)
            body.append(line)
        parts.append("\n".join(body))
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class _Compiled:
    """One ptxas + cuobjdump run: the `-v` report and each function's SASS, or why it failed."""

    report: str = ""
    sass: dict[str, str] | None = None
    error: str = ""


def _compile_ptx(tools: Tools, ptx_text: str, arch: str, work: Path, timeout: float) -> _Compiled:
    folder = Path(tempfile.mkdtemp(dir=work))
    ptx, cubin = folder / "kernels.ptx", folder / "kernels.cubin"
    ptx.write_text(ptx_text, encoding="utf-8")
    env = {**os.environ, "PATH": f"{tools.nvdisasm.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    try:
        compiled = subprocess.run([str(tools.ptxas), f"-arch={arch}", "-v", str(ptx), "-o", str(cubin)],
                                  capture_output=True, text=True, timeout=timeout, cwd=folder)
        if compiled.returncode != 0:
            return _Compiled(error=f"ptxas failed: {_first_line(compiled.stderr)}")
        dumped = subprocess.run([str(tools.cuobjdump), "-sass", str(cubin)], capture_output=True, text=True,
                                timeout=timeout, cwd=folder, env=env)
    except subprocess.TimeoutExpired as expired:
        return _Compiled(error=f"SASS not available: {Path(str(expired.cmd[0])).name} took longer than "
                               f"{timeout:.0f} s")
    except OSError as exc:  # a tool that cannot start here (wrong platform, not executable)
        return _Compiled(error=f"SASS not available: {exc.strerror or exc}")
    if dumped.returncode != 0:
        return _Compiled(report=compiled.stdout + compiled.stderr,
                         error=f"cuobjdump printed no SASS: {_first_line(dumped.stderr)}")
    return _Compiled(report=compiled.stdout + compiled.stderr, sass=split_sass(dumped.stdout))


def _with_result(kernel: KernelRecord, arch: str, result: _Compiled) -> KernelRecord:
    sass = (result.sass or {}).get(kernel.name, "")
    note = "" if sass else (result.error or "cuobjdump printed no SASS for this kernel")
    return replace(kernel, sass=sass, ptxas=parse_ptxas_report(result.report, kernel.name, arch), sass_note=note)


def compile_batch(tools: Tools, kernels: list[KernelRecord], arch: str, work: Path) -> list[KernelRecord]:
    """Kernels of one architecture compiled together; where that fails, each on its own (so a
    failure names its own kernel)."""
    timeout = _TIMEOUT_S + 5 * len(kernels)
    if len(kernels) > 1:
        together = _compile_ptx(tools, merge_ptx([k.ptx for k in kernels]), arch, work, timeout)
        if together.sass is not None:
            return [_with_result(k, arch, together) for k in kernels]
    return [_with_result(k, arch, _compile_ptx(tools, k.ptx, arch, work, _TIMEOUT_S)) for k in kernels]


def with_sass(kernels: list[KernelRecord], work: Path, tools: Tools | None = None) -> list[KernelRecord]:
    """Every kernel with PTX gains its SASS and register report (library calls and copies have none)."""
    tools = tools if tools is not None else find_tools()
    if tools is None:
        return [replace(k, sass_note=NOT_AVAILABLE) if k.ptx else k for k in kernels]
    work.mkdir(parents=True, exist_ok=True)
    # A kernel launched several times has one record per launch but one PTX: compile it once.
    done: dict[tuple[str, str], KernelRecord] = {}
    by_header: dict[tuple[str, str], list[KernelRecord]] = {}
    for kernel in {(k.name, k.ptx): k for k in kernels if k.ptx}.values():
        arch = ptx_target(kernel.ptx)
        if not arch.startswith("sm_"):
            done[kernel.name, kernel.ptx] = replace(kernel, sass_note=f"SASS not available: the PTX targets "
                                                                      f"{arch or 'no architecture'}")
            continue
        header = "\n".join(_MODULE_HEADER.findall(kernel.ptx))
        by_header.setdefault((arch, header), []).append(kernel)
    # A few batches per architecture, so ptxas runs on every core.
    batches = [(arch, group[i::_PARALLEL]) for (arch, _), group in by_header.items()
               for i in range(min(_PARALLEL, len(group)))]
    with ThreadPoolExecutor(_PARALLEL) as pool:
        for compiled in pool.map(lambda batch: compile_batch(tools, batch[1], batch[0], work), batches):
            done.update(((record.name, record.ptx), record) for record in compiled)
    return [_same_code(k, done[k.name, k.ptx]) if k.ptx else k for k in kernels]


def _same_code(kernel: KernelRecord, compiled: KernelRecord) -> KernelRecord:
    """`kernel` (one launch) with what was compiled from its PTX."""
    return replace(kernel, sass=compiled.sass, ptxas=compiled.ptxas, sass_note=compiled.sass_note)


# A SASS line as `split_sass` keeps it, and the registers in it (as screens/widgets/sass_lexer.py colours them).
_SASS_LINE = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?\S+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)\s*(.*?)\s*;?\s*$")
_SASS_REGISTER = re.compile(r"\b(?:U?R\d+|U?P\d+)\b")
_LOADS = frozenset({"LDG", "LD", "LDS", "LDL", "LDSM", "LDGSTS"})
_STORES = frozenset({"STG", "ST", "STS", "STL"})
# Arithmetic on values (floating point, tensor cores, min/max, integer multiply-add).
_COMPUTES = frozenset({"FFMA", "FMUL", "FADD", "FMNMX", "HFMA2", "HMMA", "HADD2", "HMUL2", "HMNMX2",
                       "FSEL", "MUFU", "DFMA", "IMMA", "HGMMA", "FCHK", "FSETP"})


@dataclass(frozen=True)
class SassLine:
    """One SASS instruction: address, opcode (with its modifiers), operands, registers, access
    ("load" and "store" for global/shared/local memory, "compute" for arithmetic, else "")."""

    address: str
    opcode: str
    operands: str
    registers: tuple[str, ...]
    access: str

    @property
    def text(self) -> str:
        return f"/*{self.address}*/  {self.opcode} {self.operands}".rstrip()


def read_sass_line(line: str) -> SassLine | None:
    """A line of `KernelRecord.sass` read into its parts; None for a line without an instruction."""
    match = _SASS_LINE.match(line)
    if match is None:
        return None
    address, guard, base, modifiers, operands = match.groups()
    access = "load" if base in _LOADS else "store" if base in _STORES else "compute" if base in _COMPUTES else ""
    registers = tuple(dict.fromkeys(_SASS_REGISTER.findall(operands)))
    return SassLine(address, (guard or "") + base + modifiers, operands.rstrip(" ;"), registers, access)
