"""Read XLA:GPU's dump (`--xla_dump_to`) into kernel records.

XLA:GPU writes, per compiled module `module_NNNN.<name>`:
- `thunk_sequence.txt`: the runtime program, one thunk per line, in launch
  order; kernel launches carry `grid: [x, y, z] threads: [x, y, z]
  shared_memory: N bytes`; while/conditional bodies are indented under them.
- `thunk_metadata.txt`: per thunk id, the HLO instruction it runs
  (`profile_annotation`): kernel names are sanitised (`triton_softmax_2`), so
  this is the only exact link back to `triton_softmax.2`.
- `<n>.ptx`, `<n>.ir-no-opt.ll`, `<n>.ir-with-opt.ll`: one LLVM module per kernel,
  numbered, so kernels are matched by the `.entry`/`define` names inside.

No compiler is imported: this reads text files only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from explorer.hlo.scan import custom_call_target, instruction_line
from explorer.model.records import KernelRecord, LaunchShape

_THUNK_LINE = re.compile(r"^(?P<indent>\s*)(?P<id>\d+): (?P<kind>k\w+)\s*\[[^\]]*\]\s*(?P<rest>.*)$")
_LAUNCH = re.compile(
    r"^(?P<name>\S+) grid: \[(?P<grid>[\d, ]+)\] threads: \[(?P<block>[\d, ]+)\]"
    r"\s+shared_memory: (?P<shmem>\d+) bytes"
)
_METADATA = re.compile(
    r'profile_annotation: "(?P<hlo>[^"]*)"\s*thunk_id: (?P<id>\d+)\s*\}\s*thunk_kind: "(?P<kind>\w+)"'
)
_PTX_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(", re.MULTILINE)
_LLVM_KERNEL = re.compile(r"^define ptx_kernel void @\"?([\w.$]+)\"?\(", re.MULTILINE)

# Thunks that only sequence others (their nested kernels are listed instead).
CONTROL_THUNKS = frozenset({
    "kWhile", "kConditional", "kSequential", "kCommandBuffer", "kDynamicSliceFusion",
    "kWaitForStreams", "kHostExecuteStart", "kHostExecuteDone",
})
# Thunks that move or fill memory with the CUDA runtime, not a compiled kernel.
MEMORY_THUNKS = {"kCopy": "copy", "kMemset32BitValue": "memset", "kMemzero": "memset"}


@dataclass(frozen=True)
class Thunk:
    """One line of `thunk_sequence.txt`.

    name: the kernel name for launches, else the thunk kind as XLA prints it.
    depth: nesting level (0 top level; bodies of while/conditional deeper).
    """

    id: int
    kind: str
    name: str
    launch: LaunchShape | None = None
    depth: int = 0


def _triple(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.split(",")]
    parts += [1] * (3 - len(parts))
    return parts[0], parts[1], parts[2]


def parse_thunk_sequence(text: str) -> tuple[Thunk, ...]:
    """Every thunk in launch order, nested ones in place (depth > 0)."""
    thunks = []
    for line in text.splitlines():
        match = _THUNK_LINE.match(line)
        if not match:
            continue  # "condition:" / "body:" labels, blank lines
        rest = match["rest"].strip()
        launch = None
        name = rest.split(" ", 1)[0] if rest else match["kind"]
        if launched := _LAUNCH.match(rest):
            name = launched["name"]
            launch = LaunchShape(
                grid=_triple(launched["grid"]),
                block=_triple(launched["block"]),
                shared_memory_bytes=int(launched["shmem"]),
            )
        thunks.append(Thunk(
            id=int(match["id"]), kind=match["kind"], name=name, launch=launch,
            depth=len(match["indent"]) // 4,
        ))
    return tuple(thunks)


def parse_thunk_metadata(text: str) -> dict[int, str]:
    """thunk id -> the HLO instruction it runs (`profile_annotation`)."""
    return {int(m["id"]): m["hlo"] for m in _METADATA.finditer(text)}


def index_ptx(texts: list[str]) -> dict[str, str]:
    """kernel name -> the PTX module that defines it."""
    return {name: text for text in texts for name in _PTX_ENTRY.findall(text)}


def index_llvm_ir(texts: list[str]) -> dict[str, str]:
    """kernel name -> the LLVM IR module that defines it as a `ptx_kernel`."""
    return {name: text for text in texts for name in _LLVM_KERNEL.findall(text)}


def ptx_target(ptx: str) -> str:
    """The `.target` line's architecture, e.g. `sm_90a` ("" if none)."""
    match = re.search(r"^\.target (\S+)", ptx, re.MULTILINE)
    return match.group(1).rstrip(",") if match else ""


def classify(thunk: Thunk, hlo_line: str) -> tuple[str, tuple[str, ...]]:
    """(KernelRecord.kind, library_calls) for one thunk given its HLO instruction line.

    cuDNN and cuBLAS calls are HLO custom calls (`__cudnn$convForward`,
    `__cublas$gemm`); Triton fusions say so in their backend config.
    """
    target = custom_call_target(hlo_line)
    if thunk.launch is None:
        if thunk.kind in MEMORY_THUNKS:
            return MEMORY_THUNKS[thunk.kind], ()
        return "library", ((target,) if target else (thunk.kind,))
    if '"kind":"__triton' in hlo_line or thunk.name.startswith("triton_"):
        return "triton", ()
    if target:
        # A custom kernel XLA generated for a custom call (e.g. cuDNN fusion).
        return "library", (target,)
    return "fusion", ()


def kernels_from_thunks(
    thunk_sequence: str,
    thunk_metadata: str,
    optimized_hlo: str,
    ptx_texts: list[str],
    llvm_no_opt: list[str],
    llvm_opt: list[str],
) -> list[KernelRecord]:
    """One KernelRecord per kernel launch, library call or copy, in launch order."""
    hlo_of = parse_thunk_metadata(thunk_metadata)
    ptx = index_ptx(ptx_texts)
    ir = index_llvm_ir(llvm_no_opt)
    ir_opt = index_llvm_ir(llvm_opt)
    records = []
    for thunk in parse_thunk_sequence(thunk_sequence):
        if thunk.kind in CONTROL_THUNKS:
            continue
        hlo_name = hlo_of.get(thunk.id, "")
        kind, calls = classify(thunk, instruction_line(optimized_hlo, hlo_name) if hlo_name else "")
        name = thunk.name if thunk.launch else (hlo_name or thunk.name)
        records.append(KernelRecord(
            name=name,
            hlo=(hlo_name,) if hlo_name else (),
            kind=kind,
            llvm_ir=ir.get(thunk.name, ""),
            llvm_ir_optimized=ir_opt.get(thunk.name, ""),
            ptx=ptx.get(thunk.name, ""),
            library_calls=calls,
            launch=thunk.launch,
        ))
    return records


@dataclass(frozen=True)
class GpuDumpFiles:
    """The dump files of one GPU module (`stem` is e.g. `module_0001.jit_fwd`)."""

    stem: str
    after_optimizations: Path | None
    buffer_assignment: Path | None
    live_range: Path | None
    thunk_sequence: Path | None
    thunk_metadata: Path | None
    ptx: tuple[Path, ...]
    llvm_no_opt: tuple[Path, ...]
    llvm_opt: tuple[Path, ...]


def find_gpu_module(dump_dir: Path, module_name: str) -> GpuDumpFiles | None:
    """The GPU-compiled module called `module_name` (e.g. `jit_fwd`) in a dump.

    The same dump also holds small CPU modules JAX compiled on the way (loading
    weights, initialisers); only a module with a `*_gpu_after_optimizations.txt`
    counts, and the last one wins (the latest compile).
    """
    optimized = sorted(
        p for p in dump_dir.glob(f"module_*.{module_name}.*_gpu_after_optimizations.txt")
    )
    if not optimized:
        return None
    after = optimized[-1]
    stem = after.name.split(f".{module_name}.", 1)[0] + f".{module_name}"
    base = after.name[: -len(".txt")]

    def one(name: str) -> Path | None:
        path = dump_dir / name
        return path if path.exists() else None

    def numbered(suffix: str) -> tuple[Path, ...]:
        pattern = re.compile(rf"^{re.escape(stem)}\.\d+\.{re.escape(suffix)}$")
        return tuple(sorted(p for p in dump_dir.iterdir() if pattern.match(p.name)))

    return GpuDumpFiles(
        stem=stem,
        after_optimizations=after,
        buffer_assignment=one(f"{base}-buffer-assignment.txt"),
        live_range=one(f"{base}-live-range.txt"),
        thunk_sequence=one(f"{stem}.thunk_sequence.txt"),
        thunk_metadata=one(f"{stem}.thunk_metadata.txt"),
        ptx=numbered("ptx"),
        llvm_no_opt=numbered("ir-no-opt.ll"),
        llvm_opt=numbered("ir-with-opt.ll"),
    )


def kernels_from_dump(files: GpuDumpFiles) -> list[KernelRecord]:
    """Kernel records for a module found by `find_gpu_module`."""

    def read(path: Path | None) -> str:
        return path.read_text(encoding="utf-8", errors="replace") if path else ""

    return kernels_from_thunks(
        thunk_sequence=read(files.thunk_sequence),
        thunk_metadata=read(files.thunk_metadata),
        optimized_hlo=read(files.after_optimizations),
        ptx_texts=[read(p) for p in files.ptx],
        llvm_no_opt=[read(p) for p in files.llvm_no_opt],
        llvm_opt=[read(p) for p in files.llvm_opt],
    )
