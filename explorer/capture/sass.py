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

from explorer.gpu_dump import ptx_target
from explorer.records import KernelRecord, PtxasReport

# (tool, the distribution whose wheel holds it).
TOOL_WHEELS = (
    ("ptxas", "nvidia-cuda-nvcc-cu12"),
    ("cuobjdump", "nvidia-cuda-cuobjdump"),
    ("nvdisasm", "nvidia-cuda-nvdisasm"),
)
NOT_AVAILABLE = ("SASS not available: install " + ", ".join(wheel for _, wheel in TOOL_WHEELS)
                 + " (Linux x86-64 only, like the CUDA plugin)")
# One ptxas run per kernel: a big model has hundreds, and each is a short single-threaded process.
_PARALLEL = max(1, min(8, os.cpu_count() or 1))
_TIMEOUT_S = 120


@dataclass(frozen=True)
class Tools:
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
    if any(path is None for path in found.values()):
        return None
    return Tools(**found)


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


def normalise_sass(cuobjdump_output: str, kernel: str) -> str:
    """`kernel`'s SASS as one instruction a line: `/*0040*/  LEA R0, R0, R3, 0x7 ;`.

    The encodings (the hex words in comments) and the ELF header flags are dropped: they are
    the same facts in binary and would double the text. The address stays (branches name it).
    """
    lines: list[str] = []
    current = None
    for line in cuobjdump_output.splitlines():
        if function := _FUNCTION.match(line):
            current = function.group(1)
            continue
        if current != kernel:
            continue
        match = _INSTRUCTION.match(line)
        if match and match.group(2):
            lines.append(f"{match.group(1)}  {match.group(2).rstrip(' ;')} ;")
    while lines and lines[-1].endswith("  NOP ;"):
        lines.pop()  # padding to the code's alignment after the final `BRA` to itself: never runs
    return "\n".join(lines) + ("\n" if lines else "")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")


def compile_kernel(tools: Tools, kernel: KernelRecord, work: Path) -> KernelRecord:
    """`kernel` with its SASS and ptxas report, or a note saying why there is none."""
    try:
        return _compile(tools, kernel, work)
    except subprocess.TimeoutExpired as expired:
        return replace(kernel, sass_note=f"SASS not available: {Path(str(expired.cmd[0])).name} "
                       f"took longer than {_TIMEOUT_S} s")


def _compile(tools: Tools, kernel: KernelRecord, work: Path) -> KernelRecord:
    arch = ptx_target(kernel.ptx)
    if not arch.startswith("sm_"):
        return replace(kernel, sass_note=f"SASS not available: the PTX targets {arch or 'no architecture'}")
    folder = Path(tempfile.mkdtemp(dir=work))
    ptx, cubin = folder / "kernel.ptx", folder / "kernel.cubin"
    ptx.write_text(kernel.ptx, encoding="utf-8")
    env = {**os.environ, "PATH": f"{tools.nvdisasm.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    compiled = subprocess.run([str(tools.ptxas), f"-arch={arch}", "-v", str(ptx), "-o", str(cubin)],
                              capture_output=True, text=True, timeout=_TIMEOUT_S, cwd=folder)
    if compiled.returncode != 0:
        return replace(kernel, sass_note=f"ptxas failed: {_first_line(compiled.stderr)}")
    report = parse_ptxas_report(compiled.stdout + compiled.stderr, kernel.name, arch)
    dumped = subprocess.run([str(tools.cuobjdump), "-sass", str(cubin)], capture_output=True, text=True,
                            timeout=_TIMEOUT_S, cwd=folder, env=env)
    sass = normalise_sass(dumped.stdout, kernel.name) if dumped.returncode == 0 else ""
    note = "" if sass else f"cuobjdump printed no SASS: {_first_line(dumped.stderr)}"
    return replace(kernel, sass=sass, ptxas=report, sass_note=note)


def with_sass(kernels: list[KernelRecord], work: Path, tools: Tools | None = None) -> list[KernelRecord]:
    """Every kernel with PTX gains its SASS and register report (library calls and copies have none)."""
    tools = tools if tools is not None else find_tools()
    if tools is None:
        return [replace(k, sass_note=NOT_AVAILABLE) if k.ptx else k for k in kernels]
    work.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(_PARALLEL) as pool:
        done = {id(k): pool.submit(compile_kernel, tools, k, work) for k in kernels if k.ptx}
        return [done[id(k)].result() if id(k) in done else k for k in kernels]
