"""The compile targets tensorweg knows, with the public figures the roofline uses.

No compiler is imported here: the UI and the CLI read this registry, and only the
JAX worker turns a `TargetSpec` into a compile-only XLA device.

Peak figures are the vendors' published per-chip numbers (dense, no sparsity);
each spec names its source so the roofline can say which figures it used.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, replace

from explorer.errors import TensorwegError


@dataclass(frozen=True)
class SmLimits:
    """What one streaming multiprocessor holds at once: the limits occupancy is computed from.

    registers_per_sm: 32-bit registers in the SM's register file.
    register_allocation_unit: registers are handed to a warp in blocks of this many.
    shared_memory_per_sm: bytes of shared memory the blocks on one SM may use together.
    reserved_shared_memory_per_block: bytes the CUDA runtime keeps per resident block.
    """

    registers_per_sm: int
    register_allocation_unit: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    shared_memory_per_sm: int
    reserved_shared_memory_per_block: int
    source: str


_SM_LIMITS_SOURCE = ("CUDA C++ Programming Guide, Compute Capabilities: technical specifications per "
                     "compute capability; allocation units as in NVIDIA's CUDA Occupancy Calculator")
# Compute capability 9.0 (H100) and 8.0 (A100) differ only in the shared memory per SM.
_SM_90 = SmLimits(registers_per_sm=65536, register_allocation_unit=256, max_threads_per_sm=2048,
                  max_warps_per_sm=64, max_blocks_per_sm=32,
                  shared_memory_per_sm=228 * 1024, reserved_shared_memory_per_block=1024,
                  source=_SM_LIMITS_SOURCE)
_SM_80 = replace(_SM_90, shared_memory_per_sm=164 * 1024)


@dataclass(frozen=True)
class TargetSpec:
    """One compile target.

    name: the registry key (`gpu:h100`), used on the CLI, in the manifest and UI.
    kind: "cpu", "gpu" or "tpu".
    topology: what `jax.experimental.topologies.get_topology_desc` takes
        (`v5e:1x1` for TPU, a free label for GPU); "" where no compile-only
        topology is used (`cpu` is compiled by the TF worker, `gpu:local` by the
        GPU that is really there).
    peak_flops: (dtype, FLOP/s) pairs, headline figure first.
    memory_bandwidth: device memory bandwidth in bytes/s (0 when unknown).
    figures_source: where the peak figures come from.
    gpu_device_info: `GpuTargetConfigProto.gpu_device_info` fields (GPU only).
    compute_capability: CUDA compute capability (major, minor) (GPU only).
    compiler: "xla", or "tvm" for `tvm:cpu` (the TVM worker, explorer.capture.tvm_worker).
    sm_limits: one SM's limits for the occupancy estimate (GPU with a known model only).
    """

    name: str
    kind: str
    display_name: str
    topology: str = ""
    peak_flops: tuple[tuple[str, float], ...] = ()
    memory_bandwidth: float = 0.0
    figures_source: str = ""
    gpu_device_info: tuple[tuple[str, int | float], ...] = ()
    compute_capability: tuple[int, int] = (0, 0)
    # Which compiler's worker captures it: "xla" (TensorFlow or JAX worker) or "tvm".
    compiler: str = "xla"
    sm_limits: SmLimits | None = None

    @property
    def has_roofline_figures(self) -> bool:
        return bool(self.peak_flops) and self.memory_bandwidth > 0

    def peak_for(self, dtype: str) -> tuple[str, float]:
        """The (dtype, FLOP/s) figure for `dtype`, else the headline figure."""
        for figure_dtype, flops in self.peak_flops:
            if figure_dtype == dtype:
                return figure_dtype, flops
        return self.peak_flops[0] if self.peak_flops else ("", 0.0)


# Device description fields shared by both data-centre GPUs (CUDA limits).
_CUDA_LIMITS: tuple[tuple[str, int | float], ...] = (
    ("threads_per_block_limit", 1024),
    ("threads_per_warp", 32),
    ("shared_memory_per_block", 49152),
    ("threads_per_core_limit", 2048),
    ("block_dim_limit_x", 2147483647),
    ("block_dim_limit_y", 65535),
    ("block_dim_limit_z", 65535),
)

_T = 1e12  # TFLOP/s

TARGETS: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        TargetSpec(
            name="cpu",
            kind="cpu",
            display_name="This machine's CPU (XLA:CPU)",
        ),
        # The article's second compiler: the same model through ONNX into Apache TVM,
        # compiled for this machine's x86 (AVX-512) by TVM's LLVM backend.
        TargetSpec(
            name="tvm:cpu",
            kind="cpu",
            display_name="This machine's CPU (Apache TVM)",
            compiler="tvm",
        ),
        TargetSpec(
            name="gpu:h100",
            kind="gpu",
            display_name="NVIDIA H100 SXM 80GB",
            topology="h100",
            peak_flops=(("f32", 67 * _T), ("tf32", 494.7 * _T), ("bf16", 989.4 * _T),
                        ("f16", 989.4 * _T)),
            memory_bandwidth=3.35232e12,
            figures_source="NVIDIA H100 Tensor Core GPU datasheet (SXM5, dense)",
            gpu_device_info=_CUDA_LIMITS + (
                ("shared_memory_per_core", 233472),
                ("core_count", 132),
                ("fpus_per_core", 128),
                ("memory_bandwidth", 3352320000000),
                ("l2_cache_size", 52428800),
                ("clock_rate_ghz", 1.98),
                ("device_memory_size", 84929347584),
                ("shared_memory_per_block_optin", 232448),
                ("registers_per_core_limit", 65536),
                ("registers_per_block_limit", 65536),
            ),
            compute_capability=(9, 0),
            sm_limits=_SM_90,
        ),
        TargetSpec(
            name="gpu:a100",
            kind="gpu",
            display_name="NVIDIA A100 SXM4 40GB",
            topology="a100",
            peak_flops=(("f32", 19.5 * _T), ("tf32", 156 * _T), ("bf16", 312 * _T),
                        ("f16", 312 * _T)),
            memory_bandwidth=1.5552e12,
            figures_source="NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB, dense)",
            gpu_device_info=_CUDA_LIMITS + (
                ("shared_memory_per_core", 167936),
                ("core_count", 108),
                ("fpus_per_core", 64),
                ("memory_bandwidth", 1555200000000),
                ("l2_cache_size", 41943040),
                ("clock_rate_ghz", 1.41),
                ("device_memory_size", 42331013120),
                ("shared_memory_per_block_optin", 166912),
            ),
            compute_capability=(8, 0),
            sm_limits=_SM_80,
        ),
        TargetSpec(
            name="gpu:local",
            kind="gpu",
            display_name="The GPU in this machine (CUDA)",
        ),
        # TPU peaks are the MXU's bf16 figures: XLA:TPU runs f32 dots at default
        # precision as bf16 passes, and Google publishes no separate f32 figure.
        TargetSpec(
            name="tpu:v5e",
            kind="tpu",
            display_name="Google Cloud TPU v5e (1 chip)",
            topology="v5e:1x1",
            peak_flops=(("bf16", 197 * _T), ("int8", 393 * _T)),
            memory_bandwidth=819e9,
            figures_source="Google Cloud TPU documentation, TPU v5e system architecture",
        ),
        TargetSpec(
            name="tpu:v4",
            kind="tpu",
            display_name="Google Cloud TPU v4 (1 chip)",
            topology="v4:1x1x1",
            peak_flops=(("bf16", 275 * _T), ("int8", 275 * _T)),
            memory_bandwidth=1200e9,
            figures_source="Google Cloud TPU documentation, TPU v4 system architecture",
        ),
        TargetSpec(
            name="tpu:v5p",
            kind="tpu",
            display_name="Google Cloud TPU v5p (1 chip)",
            topology="v5p:1x1x1",
            peak_flops=(("bf16", 459 * _T), ("int8", 918 * _T)),
            memory_bandwidth=2765e9,
            figures_source="Google Cloud TPU documentation, TPU v5p system architecture",
        ),
        TargetSpec(
            name="tpu:v6e",
            kind="tpu",
            display_name="Google Cloud TPU v6e Trillium (1 chip)",
            topology="v6e:1x1",
            peak_flops=(("bf16", 918 * _T), ("int8", 1836 * _T)),
            memory_bandwidth=1640e9,
            figures_source="Google Cloud TPU documentation, TPU v6e system architecture",
        ),
    )
}

DEFAULT_TARGETS: tuple[str, ...] = ("cpu", "gpu:h100", "tpu:v5e")
# The device kinds, in the order screens show them (the device-mapping pane's tabs).
DEVICE_KINDS: tuple[str, ...] = ("cpu", "gpu", "tpu")


@dataclass(frozen=True)
class DeviceTab:
    """One device kind as a screen shows it: `title` names it, `default_target` is the target of
    that kind a learner captures first (a bare `gpu` on the command line means it too)."""

    kind: str
    title: str
    default_target: str


def device_tabs() -> tuple[DeviceTab, ...]:
    """One tab per device kind, in DEVICE_KINDS order."""
    return tuple(DeviceTab(kind, kind.upper(), default_target(kind)) for kind in DEVICE_KINDS)


def default_target(kind: str) -> str:
    """The default target of a device kind: the first of DEFAULT_TARGETS of that kind."""
    return next(name for name in DEFAULT_TARGETS if TARGETS[name].kind == kind)


def device_kind(target: str) -> str:
    """The device kind of a target, so `tvm:cpu` (TVM on this CPU) sits beside XLA's `cpu`; an
    unknown name by its prefix."""
    spec = TARGETS.get(target)
    return spec.kind if spec is not None else target.split(":", 1)[0]


NOT_AVAILABLE = "not available on this platform"
# What the TVM target needs beyond the base install (the `tvm` extra in pyproject.toml).
TVM_MODULES = ("tvm", "onnx", "tf2onnx")
TVM_INSTALL_HINT = 'TVM is not installed; install it with: pip install -e ".[tvm]"'
# What every capture needs (the TensorFlow worker traces each model; Keras on JAX compiles the GPU
# and TPU targets): the `compilers` extra. The base install opens lesson packs and bundles only.
COMPILER_MODULES = ("tensorflow", "keras")
COMPILERS_INSTALL_HINT = ('cannot capture: the compilers are not installed (this install opens lesson packs and '
                          'bundles only); install them with: pip install -e ".[compilers]"')



def get_target(name: str) -> TargetSpec:
    try:
        return TARGETS[name]
    except KeyError:
        known = ", ".join(TARGETS)
        raise TensorwegError(f"unknown target {name!r} (known: {known})") from None


def parse_targets(text: str) -> tuple[str, ...]:
    """`"cpu,gpu:h100"` -> `("cpu", "gpu:h100")`; duplicates dropped, order kept.

    A bare `gpu` or `tpu` means the default of that kind, since that is what a
    learner types first.
    """
    names: list[str] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name = parse_target(part)
        if name not in names:
            names.append(name)
    if not names:
        raise TensorwegError("no target given (known: " + ", ".join(TARGETS) + ")")
    return tuple(names)


def parse_target(text: str) -> str:
    """One target as a learner types it (`--target`): its name, or a bare device kind (`gpu`,
    `tpu`) for that kind's default chip; an unknown name raises TensorwegError (one line)."""
    name = text.strip().lower()
    name = default_target(name) if name in DEVICE_KINDS else name
    get_target(name)
    return name


def require_compilers() -> None:
    """A capture on an install without the compilers (the UI alone) is bad input: one line saying
    how to install them. Looks for the packages without importing them."""
    if not all(_has_module(module) for module in COMPILER_MODULES):
        raise TensorwegError(COMPILERS_INSTALL_HINT)


def require_installed(names: tuple[str, ...]) -> None:
    """The compilers, and a target whose compiler is an optional extra (TVM) and is not installed, are
    bad input: one line saying how to install it (a GPU/TPU wheel missing is only `unavailable`)."""
    require_compilers()
    for name in names:
        if get_target(name).compiler == "tvm" and availability(name):
            raise TensorwegError(f"target {name}: {TVM_INSTALL_HINT}")


def target_dirname(name: str) -> str:
    """The bundle directory for a target: `gpu:h100` -> `gpu-h100`."""
    return name.replace(":", "-")


def gpu_target_config_text(spec: TargetSpec) -> str:
    """A `GpuTargetConfigProto` in protobuf text format for a compile-only GPU."""
    if spec.kind != "gpu" or not spec.gpu_device_info:
        raise TensorwegError(f"{spec.name} has no GPU device description")
    lines = ["gpu_device_info {"]
    for field, value in spec.gpu_device_info:
        lines.append(f"  {field}: {value}")
    major, minor = spec.compute_capability
    lines.append(f"  cuda_compute_capability {{ major: {major} minor: {minor} }}")
    lines.append("}")
    lines.append('platform_name: "CUDA"')
    # The cuDNN version XLA assumes when choosing fused convolution custom calls.
    lines.append("dnn_version_info { major: 9 minor: 7 }")
    lines.append(f'device_description_str: "{_cuda_device_description(spec)}"')
    return "\n".join(lines) + "\n"


def _cuda_device_description(spec: TargetSpec) -> str:
    # The strings CUDA reports for these boards (XLA matches on them for
    # some per-device tuning).
    return {
        "gpu:h100": "NVIDIA H100 80GB HBM3",
        "gpu:a100": "NVIDIA A100-SXM4-40GB",
    }.get(spec.name, spec.display_name)


def availability(name: str) -> str | None:
    """None when `name` can be compiled here, else why not (one line).

    Checks that the wheels are installed without importing them (importing
    libtpu or the CUDA plugin is slow and noisy).
    """
    spec = get_target(name)
    if spec.compiler == "tvm":
        return None if all(_has_module(module) for module in TVM_MODULES) else TVM_INSTALL_HINT
    if spec.kind == "cpu":
        return None
    if importlib.util.find_spec("jax") is None:
        return NOT_AVAILABLE
    if spec.kind == "tpu":
        return None if importlib.util.find_spec("libtpu") is not None else NOT_AVAILABLE
    if spec.name == "gpu:local":
        # A real GPU works with whichever CUDA plugin its JAX was installed with.
        if not any(_has_module(f"jax_plugins.xla_{cuda}") for cuda in ("cuda12", "cuda13")):
            return NOT_AVAILABLE
        return None if _has_nvidia_driver() else "no NVIDIA GPU driver on this machine"
    # Compile-only GPU targets use the CUDA 12 plugin this project pins.
    return None if _has_module("jax_plugins.xla_cuda12") else NOT_AVAILABLE


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent package (jax_plugins) is missing
        return False


def _has_nvidia_driver() -> bool:
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidiactl")
