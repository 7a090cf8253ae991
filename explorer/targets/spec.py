"""The shape of one row of the target table: `TargetSpec`, and the chip figures it carries.

Every fact about a target lives in its row (explorer/targets/table.py): the chip's published
figures (each a `Figure` with its source), its interconnect, the compile-only device a worker
builds from it, and whether tours may name it. Everything else (the roofline, the mesh panes,
the course texts' placeholders, the tour parser, the capture workers) reads the row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

from explorer.targets.figures import Figure
from explorer.targets.gpu import GpuDevice, SmLimits


@dataclass(frozen=True)
class Memory:
    """A chip's own memory (HBM on an accelerator, DRAM on a CPU board)."""

    kind: str  # as the page names it: "HBM2", "HBM3", "LPDDR4X-4267"
    capacity: Figure | None  # bytes, binary (explorer.targets.figures); None: a board sold in several sizes
    bandwidth: Figure  # bytes/s


@dataclass(frozen=True)
class Interconnect:
    """The chip-to-chip link a mesh's collectives travel over."""

    link: str  # "ICI", "NVLink"
    bandwidth: Figure  # bytes/s per chip: what the ring estimate divides by


@dataclass(frozen=True)
class Chip:
    """A chip's published figures; a figure a vendor does not publish is None, never guessed.

    name: how texts name the chip ("TPU v5e", "H100 SXM").
    peaks: (dtype, FLOP/s dense) per dtype, headline figure first.
    cores: TensorCores per TPU chip, SMs per GPU, cores per CPU.
    matrix_units: MXUs per TensorCore; matrix_unit_size: cells along one side of an MXU.
    l2_cache, shared_memory_per_core: bytes (GPU: per SM).
    vector_width: bits of one SIMD register (a CPU: 128 for NEON); clock: Hz (a CPU board's cores).
    """

    name: str
    peaks: tuple[tuple[str, Figure], ...]
    memory: Memory
    interconnect: Interconnect | None = None
    cores: Figure | None = None
    matrix_units: Figure | None = None
    matrix_unit_size: Figure | None = None
    l2_cache: Figure | None = None
    shared_memory_per_core: Figure | None = None
    vector_width: Figure | None = None
    clock: Figure | None = None

    def figures(self) -> Iterator[tuple[str, Figure]]:
        """Every figure with its place (`peaks.bf16`, `memory.capacity`), for the table's test."""
        for dtype, figure in self.peaks:
            yield f"peaks.{dtype}", figure
        if self.memory.capacity is not None:
            yield "memory.capacity", self.memory.capacity
        yield "memory.bandwidth", self.memory.bandwidth
        if self.interconnect is not None:
            yield "interconnect.bandwidth", self.interconnect.bandwidth
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, Figure):
                yield field.name, value


# What a chip of each kind must publish (Chip field names): the roofline needs peaks and memory, a mesh
# the interconnect, the course texts the rest. A new kind of chip adds its entry.
REQUIRED_FIGURES: dict[str, tuple[str, ...]] = {
    "tpu": ("peaks", "memory", "interconnect", "matrix_units", "matrix_unit_size"),
    "gpu": ("peaks", "memory", "interconnect", "cores", "l2_cache", "shared_memory_per_core"),
    "cpu": ("peaks", "memory", "cores", "vector_width", "clock"),  # a compile-only CPU board (ARM)
}

# Which capture worker compiles a target (explorer.capture.worker_requests maps each to its module).
WORKERS = ("tensorflow", "jax", "tvm", "aot")


@dataclass(frozen=True)
class TargetSpec:
    """One compile target: one row of the table.

    name: the registry key (`gpu:h100`), used on the CLI, in the manifest and UI.
    kind: "cpu", "gpu" or "tpu".
    compiler: "xla" (XLA: the TensorFlow, JAX or ahead-of-time worker), or "tvm" (explorer.capture.tvm_worker).
    worker: which capture worker compiles it (WORKERS): "tensorflow" (`cpu`, XLA's JIT in the TF worker),
        "jax" (GPU/TPU compile-only), "tvm", or "aot" (XLA's ahead-of-time compiler for another CPU).
    chip: the published figures; None for a device of this machine (`cpu`, `gpu:local`), whose
        figures tensorweg does not know. A compile-only CPU's chip is a board's (a core design has
        no bandwidth or clock of its own).
    on_this_machine: compiled by (and for) the device in this machine, not a compile-only one.
    topology: what `jax.experimental.topologies.get_topology_desc` takes (`v5e:1x1` for TPU, a
        free label for GPU); "" where no compile-only topology is used.
    gpu_device: the compile-only CUDA device description (GPU only).
    sm_limits: one SM's limits for the occupancy estimate (GPU with a known model only).
    llvm_target: the LLVM target as (key, value) pairs (`kind: llvm`, `mtriple: aarch64-linux-gnu`,
        `mcpu: cortex-a76`): what TVM's `Target` takes, and the triple and CPU XLA's ahead-of-time
        compiler is given (the "aot" worker). Empty for XLA's JIT and the JAX targets.
    needs_modules: what the target's compiler needs beyond the `compilers` extra (dotted module names,
        looked for without importing them); `install_hint` says how to get them. A capture asking for
        the target without them is bad input (explorer.targets.require_installed).
    in_tours: a tour's `target=` may name it (explorer.course.tours.parser).
    """

    name: str
    kind: str
    display_name: str
    compiler: str = "xla"
    chip: Chip | None = None
    on_this_machine: bool = False
    topology: str = ""
    gpu_device: GpuDevice | None = None
    sm_limits: SmLimits | None = None
    llvm_target: tuple[tuple[str, str], ...] = ()
    needs_modules: tuple[str, ...] = ()
    install_hint: str = ""
    worker: str = "jax"
    in_tours: bool = True

    def __post_init__(self) -> None:
        if self.worker not in WORKERS:  # a row naming no worker would fail only when captured
            raise ValueError(f"target {self.name}: worker {self.worker!r} is not one of {', '.join(WORKERS)}")

    @property
    def inference_only(self) -> bool:
        """Its worker compiles the inference graph only (TVM's ONNX import, XLA's ahead-of-time
        compiler): no training step, no mesh."""
        return self.worker in ("tvm", "aot")

    @property
    def isa(self) -> str:
        """The instruction set of its machine code: "aarch64" (an ARM row's LLVM triple), "x86-64" (this
        machine's CPU: tensorweg runs on Linux x86-64), "" for GPUs and TPUs (PTX/SASS, no listing)."""
        if self.llvm("mtriple").startswith("aarch64"):
            return "aarch64"
        return "x86-64" if self.kind == "cpu" else ""

    def llvm(self, key: str) -> str:
        """One value of the LLVM target (`mtriple`, `mcpu`), "" when the row gives none."""
        return dict(self.llvm_target).get(key, "")

    @property
    def peak_flops(self) -> tuple[tuple[str, float], ...]:
        """(dtype, FLOP/s) pairs, headline figure first; () without published figures."""
        return tuple((dtype, figure.value) for dtype, figure in self.chip.peaks) if self.chip else ()

    @property
    def memory_bandwidth(self) -> float:
        """Device memory bandwidth in bytes/s (0 when unknown)."""
        return self.chip.memory.bandwidth.value if self.chip else 0.0

    @property
    def memory_capacity(self) -> Figure | None:
        """One chip's memory in bytes, with its source; None when unknown."""
        return self.chip.memory.capacity if self.chip else None

    @property
    def interconnect(self) -> Interconnect | None:
        return self.chip.interconnect if self.chip else None

    @property
    def has_roofline_figures(self) -> bool:
        return bool(self.peak_flops) and self.memory_bandwidth > 0

    def peak_for(self, dtype: str) -> tuple[str, float]:
        """The (dtype, FLOP/s) figure for `dtype`, else the headline figure."""
        figure_dtype, figure = self._peak_figure(dtype)
        return figure_dtype, figure.value if figure else 0.0

    def roofline_source(self, dtype: str) -> str:
        """Where the two figures of a roofline estimate for `dtype` come from: the peak's page and the
        bandwidth's, once when they are the same page."""
        _dtype, peak = self._peak_figure(dtype)
        titles = [figure.source.title for figure in (peak, self.chip.memory.bandwidth if self.chip else None)
                  if figure is not None]
        return " and ".join(dict.fromkeys(titles))

    def peak_derived(self, dtype: str) -> bool:
        """Whether the peak used for `dtype` is derived from published figures (an ARM board's), not published."""
        _dtype, peak = self._peak_figure(dtype)
        return peak is not None and peak.derived

    def _peak_figure(self, dtype: str) -> tuple[str, Figure | None]:
        peaks = self.chip.peaks if self.chip else ()
        for figure_dtype, figure in peaks:
            if figure_dtype == dtype:
                return figure_dtype, figure
        return peaks[0] if peaks else ("", None)
