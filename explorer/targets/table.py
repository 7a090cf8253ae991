"""The target table: one row per compile target, every figure once, each with the page it was read from.

A figure is written as its page writes it and read into base units by explorer.targets.figures
(capacities binary, rates and peaks decimal). Peaks are the vendors' per-chip dense figures.
TPU peaks are the MXU's bf16 figures: XLA:TPU runs f32 dots at default precision as bf16 passes,
and Google publishes no separate f32 figure.

Checked against the pages (docs/architecture.md, "Target facts"): where a page has been revised
since, the figure is the one the cited page gave when the row was written, and the revision is
named beside it.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.targets.figures import Figure, Source, capacity, clock, compute, count, derived, rate
from explorer.targets.gpu import CUDA_LIMITS, GpuDevice, SmLimits
from explorer.targets.spec import Chip, Interconnect, Memory, TargetSpec

# --- sources ------------------------------------------------------------------------------

_TPU_DOCS = "https://cloud.google.com/tpu/docs"
TPU_ARCHITECTURE = Source("Google Cloud TPU documentation, TPU system architecture",
                          f"{_TPU_DOCS}/system-architecture-tpu-vm")
TPU_V4 = Source("Google Cloud TPU documentation, TPU v4 system architecture", f"{_TPU_DOCS}/v4")
TPU_V5E = Source("Google Cloud TPU documentation, TPU v5e system architecture", f"{_TPU_DOCS}/v5e")
TPU_V5P = Source("Google Cloud TPU documentation, TPU v5p system architecture", f"{_TPU_DOCS}/v5p")
TPU_V6E = Source("Google Cloud TPU documentation, TPU v6e system architecture", f"{_TPU_DOCS}/v6e")
# Its table compares v4, v5e and v5p: the v4 and v5p pages give no v4 ICI and no v5p int8 figure.
TPU_V5P_LAUNCH = Source("Google Cloud blog, Introducing Cloud TPU v5p and AI Hypercomputer",
                        "https://cloud.google.com/blog/products/ai-machine-learning/"
                        "introducing-cloud-tpu-v5p-and-ai-hypercomputer")
H100_DATASHEET = Source("NVIDIA H100 Tensor Core GPU datasheet (SXM5)", "https://www.nvidia.com/en-us/data-center/h100/")
# The datasheet gives tensor-core peaks with sparsity only; NVIDIA's architecture post gives them dense.
HOPPER_IN_DEPTH = Source("NVIDIA Hopper Architecture In-Depth (H100 SXM5, dense)",
                         "https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/")
A100_DATASHEET = Source("NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB, dense)",
                        "https://www.nvidia.com/en-us/data-center/a100/")
_XLA_GPU_SPECS = "https://github.com/openxla/xla/blob/main/xla/backends/gpu/target_config/specs"
XLA_H100_SPEC = Source("XLA's GPU spec of the H100 SXM (h100_sxm.txtpb)", f"{_XLA_GPU_SPECS}/h100_sxm.txtpb")
XLA_A100_SPEC = Source("XLA's GPU spec of the A100 SXM4 40GB (a100_sxm_40.txtpb)",
                       f"{_XLA_GPU_SPECS}/a100_sxm_40.txtpb")
# ARM boards: a core design (Cortex-A76, Neoverse N1) has no clock, memory or core count of its own, so
# each row names a real board. Arm publishes no peak FLOP/s; the peaks are derived from the boards'
# cores and clock and the Software Optimization Guide's FP/ASIMD pipe count.
PI5_BRIEF = Source("Raspberry Pi 5 product brief", "https://datasheets.raspberrypi.com/rpi5/raspberry-pi-5-product-brief.pdf")
PI5_LAUNCH = Source("Raspberry Pi news, Introducing: Raspberry Pi 5! (32-bit LPDDR4X memory at 4267MT/s)",
                    "https://www.raspberrypi.com/news/introducing-raspberry-pi-5/")
A76_GUIDE = Source("Arm Cortex-A76 Software Optimization Guide (two FP/ASIMD pipelines, V0 and V1)",
                   "https://developer.arm.com/documentation/pjdoc466751330-7215/latest/")
N1_GUIDE = Source("Arm Neoverse N1 Software Optimization Guide (two FP/ASIMD pipelines, V0 and V1)",
                  "https://developer.arm.com/documentation/109896/latest/")
ARM_ARCHITECTURE = Source("Arm Architecture Reference Manual for A-profile (SIMD&FP registers V0-V31)",
                          "https://developer.arm.com/documentation/ddi0487/latest/")
GRAVITON_GUIDE = Source("AWS Graviton Technical Guide, Graviton2 column",
                        "https://github.com/aws/aws-graviton-getting-started")
GRAVITON2_REVIEW = Source("AnandTech, Amazon's Arm-based Graviton2 Against AMD and Intel (8-channel DDR4-3200)",
                          "https://www.anandtech.com/show/15578/cloud-clash-amazon-graviton2-arm-against-intel-and-amd")
_SM_LIMITS_SOURCE = ("CUDA C++ Programming Guide, Compute Capabilities: technical specifications per "
                     "compute capability; allocation units as in NVIDIA's CUDA Occupancy Calculator")

# --- GPU devices and SM limits ----------------------------------------------------------------

# Compute capability 9.0 (H100) and 8.0 (A100) differ only in the shared memory per SM.
_SM_90 = SmLimits(registers_per_sm=65536, register_allocation_unit=256, max_threads_per_sm=2048,
                  max_warps_per_sm=64, max_blocks_per_sm=32,
                  shared_memory_per_sm=228 * 1024, reserved_shared_memory_per_block=1024,
                  source=_SM_LIMITS_SOURCE)
_SM_80 = replace(_SM_90, shared_memory_per_sm=164 * 1024)

_H100_DEVICE = GpuDevice(
    fields=CUDA_LIMITS + (
        ("shared_memory_per_core", 233472),
        ("core_count", 132),
        ("fpus_per_core", 128),
        ("memory_bandwidth", 3352320000000),
        ("l2_cache_size", 52428800),
        ("clock_rate_ghz", 1.98),
        # What a real H100 80GB HBM3 reports (the spec file now has 84942979072, a later driver's figure).
        ("device_memory_size", 84929347584),
        ("shared_memory_per_block_optin", 232448),
        ("registers_per_core_limit", 65536),
        ("registers_per_block_limit", 65536),
    ),
    compute_capability=(9, 0), description="NVIDIA H100 80GB HBM3", source=XLA_H100_SPEC,
)
_A100_DEVICE = GpuDevice(
    fields=CUDA_LIMITS + (
        ("shared_memory_per_core", 167936),
        ("core_count", 108),
        ("fpus_per_core", 64),
        ("memory_bandwidth", 1555200000000),
        ("l2_cache_size", 41943040),
        ("clock_rate_ghz", 1.41),
        ("device_memory_size", 42331013120),
        ("shared_memory_per_block_optin", 166912),
    ),
    compute_capability=(8, 0), description="NVIDIA A100-SXM4-40GB", source=XLA_A100_SPEC,
)


def _gpu_units(device: GpuDevice) -> dict[str, Figure]:
    """The SM count, L2 and shared memory per SM a GPU chip quotes: XLA's device description holds
    them once, as the board reports them."""
    return {"cores": device.figure("core_count"), "l2_cache": device.figure("l2_cache_size"),
            "shared_memory_per_core": device.figure("shared_memory_per_core")}


# --- TPU chips -----------------------------------------------------------------------------

_MXU_128 = count(128, "128 x 128 multiply-accumulators", TPU_ARCHITECTURE)

_TPU_V5E = Chip(
    name="TPU v5e",
    peaks=(("bf16", compute("197 TFLOPs", TPU_V5E)), ("int8", compute("393 TOPs", TPU_V5E))),
    # Google writes "16 GB"; the HBM is 16 GiB (explorer.targets.figures: capacities are binary).
    memory=Memory("HBM2", capacity("16 GB", TPU_V5E), rate("819 GBps", TPU_V5E)),
    interconnect=Interconnect("ICI", rate("1600 Gbps", TPU_V5E)),
    cores=count(1, "one TensorCore", TPU_V5E),
    matrix_units=count(4, "four matrix-multiply units (MXUs)", TPU_V5E),
    matrix_unit_size=_MXU_128,
)
_TPU_V4 = Chip(
    name="TPU v4",
    peaks=(("bf16", compute("275 teraflops", TPU_V4)), ("int8", compute("275 teraflops", TPU_V4))),
    memory=Memory("HBM2", capacity("32 GiB", TPU_V4), rate("1200 GBps", TPU_V4)),
    interconnect=Interconnect("ICI", rate("2,400 Gbps", TPU_V5P_LAUNCH)),
    cores=count(2, "two TensorCores", TPU_V4),
    matrix_units=count(4, "four matrix-multiply units (MXUs)", TPU_V4),
    matrix_unit_size=_MXU_128,
)
_TPU_V5P = Chip(
    name="TPU v5p",
    peaks=(("bf16", compute("459 TFLOPs", TPU_V5P)), ("int8", compute("918 TOPs", TPU_V5P_LAUNCH))),
    # The page gave no TensorCore count when this row was written (its revision says 2 per chip).
    memory=Memory("HBM2e", capacity("95GB", TPU_V5P), rate("2765 GBps", TPU_V5P)),
    interconnect=Interconnect("ICI", rate("4800 Gbps", TPU_V5P)),
    matrix_units=count(4, "four Matrix Multiply Units (MXU)", TPU_V5P),
    matrix_unit_size=_MXU_128,
)
# The v6e page was revised since: 1638 GBps of HBM bandwidth and 800 GBps bidirectional ICI.
_TPU_V6E = Chip(
    name="TPU v6e",
    peaks=(("bf16", compute("918 TFLOPs", TPU_V6E)), ("int8", compute("1836 TOPs", TPU_V6E))),
    memory=Memory("HBM", capacity("32 GB", TPU_V6E), rate("1640 GBps", TPU_V6E)),
    interconnect=Interconnect("ICI", rate("3584 Gbps", TPU_V6E)),
    cores=count(1, "one TensorCore", TPU_V6E),
    matrix_units=count(2, "2 matrix-multiply units (MXU)", TPU_V6E),
    matrix_unit_size=count(256, "256x256", TPU_V6E),
)

# --- GPU chips -----------------------------------------------------------------------------

_H100 = Chip(
    name="H100 SXM",
    peaks=(("f32", compute("67 teraFLOPS", H100_DATASHEET)), ("tf32", compute("494.7 TFLOPS", HOPPER_IN_DEPTH)),
           ("bf16", compute("989.4 TFLOPS", HOPPER_IN_DEPTH)), ("f16", compute("989.4 TFLOPS", HOPPER_IN_DEPTH))),
    memory=Memory("HBM3", capacity("80GB", H100_DATASHEET), rate("3.35TB/s", H100_DATASHEET)),
    interconnect=Interconnect("NVLink", rate("900GB/s", H100_DATASHEET)),
    **_gpu_units(_H100_DEVICE),
)
_A100 = Chip(
    name="A100 SXM4 40GB",
    peaks=(("f32", compute("19.5 TFLOPS", A100_DATASHEET)), ("tf32", compute("156 TFLOPS", A100_DATASHEET)),
           ("bf16", compute("312 TFLOPS", A100_DATASHEET)), ("f16", compute("312 TFLOPS", A100_DATASHEET))),
    memory=Memory("HBM2", capacity("40GB", A100_DATASHEET), rate("1,555GB/s", A100_DATASHEET)),
    interconnect=Interconnect("NVLink", rate("600GB/s", A100_DATASHEET)),
    **_gpu_units(_A100_DEVICE),
)

# --- ARM boards (compile-only CPUs) ----------------------------------------------------------

# What one 128-bit NEON instruction does per lane: FMLA multiplies and adds 4 f32 lanes; SDOT
# multiplies 16 int8 pairs and adds them into 4 s32 lanes (16 multiply-adds). Two operations each.
_F32_LANES = 4
_SDOT_PRODUCTS = 16


def _neon_peak(cores: Figure, core_clock: Figure, pipes: Figure, lanes: int, what: str, unit: str) -> Figure:
    """cores x clock x pipes x lanes x 2: the arithmetic a derived peak shows, from the row's own figures."""
    value = cores.value * core_clock.value * pipes.value * lanes * 2
    scale, prefix = (1e12, "T") if value >= 1e12 else (1e9, "G")
    arithmetic = (f"{int(cores.value)} cores x {core_clock.published} x {int(pipes.value)} FP/ASIMD pipes x "
                  f"{lanes} {what} x 2 = {value / scale:g} {prefix}{unit}")
    return derived(value, arithmetic, pipes.source)


_PI5_CORES = count(4, "quad-core 64-bit Arm Cortex-A76", PI5_BRIEF)
_PI5_CLOCK = clock("2.4GHz", PI5_BRIEF)
_A76_PIPES = count(2, "two FP/ASIMD pipelines (V0, V1)", A76_GUIDE)
_PI5 = Chip(
    name="Raspberry Pi 5 (BCM2712)",
    peaks=(("f32", _neon_peak(_PI5_CORES, _PI5_CLOCK, _A76_PIPES, _F32_LANES, "f32 lanes (FMLA)", "FLOP/s")),
           ("int8", _neon_peak(_PI5_CORES, _PI5_CLOCK, _A76_PIPES, _SDOT_PRODUCTS, "int8 products (SDOT)", "OPS"))),
    # Sold with 2, 4, 8 or 16 GB: no one capacity. 4267 MT/s on a 32-bit bus moves 4 bytes per transfer.
    memory=Memory("LPDDR4X-4267", None,
                  derived(4267e6 * 4, "4267 MT/s x 32-bit bus (4 bytes) = 17.068 GB/s", PI5_LAUNCH)),
    cores=_PI5_CORES,
    vector_width=count(128, "128-bit SIMD&FP registers", ARM_ARCHITECTURE),
    clock=_PI5_CLOCK,
)
_GRAVITON2_CORES = count(64, "64", GRAVITON_GUIDE)
_GRAVITON2_CLOCK = clock("2500MHz", GRAVITON_GUIDE)
_N1_PIPES = count(2, "FP/ASIMD pipelines V0 and V1", N1_GUIDE)
_GRAVITON2 = Chip(
    name="AWS Graviton2",
    peaks=(("f32", _neon_peak(_GRAVITON2_CORES, _GRAVITON2_CLOCK, _N1_PIPES, _F32_LANES, "f32 lanes (FMLA)",
                              "FLOP/s")),
           ("int8", _neon_peak(_GRAVITON2_CORES, _GRAVITON2_CLOCK, _N1_PIPES, _SDOT_PRODUCTS,
                               "int8 products (SDOT)", "OPS"))),
    # An instance's memory depends on its size: no one capacity. 8 channels of 64 bits (8 bytes).
    memory=Memory("DDR4-3200 (8 channels)", None,
                  derived(8 * 3200e6 * 8, "8 channels (8x DDR4, AWS) x 3200 MT/s x 8 bytes = 204.8 GB/s",
                          GRAVITON2_REVIEW)),
    cores=_GRAVITON2_CORES,
    vector_width=count(128, "2x Neon 128bit vectors", GRAVITON_GUIDE),
    clock=_GRAVITON2_CLOCK,
)

# What the compilers for these targets need beyond the `compilers` extra.
TVM_MODULES = ("tvm", "onnx", "tf2onnx")
TVM_INSTALL_HINT = 'TVM is not installed; install it with: pip install -e ".[tvm]"'
AOT_MODULES = ("tensorflow.python._pywrap_tfcompile",)
AOT_INSTALL_HINT = ("this TensorFlow has no ahead-of-time compiler (tensorflow/python/_pywrap_tfcompile); "
                    "ARM targets need a TensorFlow built with XLA, as the wheels on PyPI are")
_A76_LLVM = (("kind", "llvm"), ("mtriple", "aarch64-linux-gnu"), ("mcpu", "cortex-a76"))
_N1_LLVM = (("kind", "llvm"), ("mtriple", "aarch64-linux-gnu"), ("mcpu", "neoverse-n1"))

# --- the table -------------------------------------------------------------------------------

TARGETS: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        TargetSpec(name="cpu", kind="cpu", display_name="This machine's CPU (XLA:CPU)", on_this_machine=True,
                   worker="tensorflow"),
        # The article's second compiler: the same model through ONNX into Apache TVM,
        # compiled for this machine's x86 (AVX-512) by TVM's LLVM backend.
        TargetSpec(name="tvm:cpu", kind="cpu", display_name="This machine's CPU (Apache TVM)", compiler="tvm",
                   on_this_machine=True, llvm_target=(("kind", "llvm"), ("mcpu", "skylake-avx512")),
                   needs_modules=TVM_MODULES, install_hint=TVM_INSTALL_HINT, worker="tvm"),
        # Where a trained model runs: ARM boards, compiled ahead of time by XLA's own CPU compiler
        # (tfcompile, in TensorFlow's wheel) on this x86 machine, without the board.
        TargetSpec(name="arm:cortex-a76", kind="cpu", display_name="Raspberry Pi 5, Arm Cortex-A76 (XLA ahead of time)",
                   chip=_PI5, llvm_target=_A76_LLVM, needs_modules=AOT_MODULES, install_hint=AOT_INSTALL_HINT,
                   worker="aot"),
        TargetSpec(name="arm:neoverse-n1", kind="cpu",
                   display_name="AWS Graviton2, Arm Neoverse N1 (XLA ahead of time)",
                   chip=_GRAVITON2, llvm_target=_N1_LLVM, needs_modules=AOT_MODULES, install_hint=AOT_INSTALL_HINT,
                   worker="aot"),
        # The same board through TVM's LLVM backend for aarch64.
        TargetSpec(name="tvm:arm", kind="cpu", display_name="Raspberry Pi 5, Arm Cortex-A76 (Apache TVM)",
                   compiler="tvm", chip=_PI5, llvm_target=_A76_LLVM, needs_modules=TVM_MODULES,
                   install_hint=TVM_INSTALL_HINT, worker="tvm"),
        TargetSpec(name="gpu:h100", kind="gpu", display_name="NVIDIA H100 SXM 80GB", chip=_H100, topology="h100",
                   gpu_device=_H100_DEVICE, sm_limits=_SM_90),
        TargetSpec(name="gpu:a100", kind="gpu", display_name="NVIDIA A100 SXM4 40GB", chip=_A100, topology="a100",
                   gpu_device=_A100_DEVICE, sm_limits=_SM_80),
        TargetSpec(name="gpu:local", kind="gpu", display_name="The GPU in this machine (CUDA)", on_this_machine=True),
        TargetSpec(name="tpu:v5e", kind="tpu", display_name="Google Cloud TPU v5e (1 chip)", chip=_TPU_V5E,
                   topology="v5e:1x1"),
        TargetSpec(name="tpu:v4", kind="tpu", display_name="Google Cloud TPU v4 (1 chip)", chip=_TPU_V4,
                   topology="v4:1x1x1"),
        TargetSpec(name="tpu:v5p", kind="tpu", display_name="Google Cloud TPU v5p (1 chip)", chip=_TPU_V5P,
                   topology="v5p:1x1x1"),
        TargetSpec(name="tpu:v6e", kind="tpu", display_name="Google Cloud TPU v6e Trillium (1 chip)", chip=_TPU_V6E,
                   topology="v6e:1x1"),
    )
}

DEFAULT_TARGETS: tuple[str, ...] = ("cpu", "gpu:h100", "tpu:v5e")
