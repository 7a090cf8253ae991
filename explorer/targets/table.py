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

from explorer.targets.figures import Figure, Source, capacity, compute, count, rate
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

# --- the table -------------------------------------------------------------------------------

TARGETS: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        TargetSpec(name="cpu", kind="cpu", display_name="This machine's CPU (XLA:CPU)", on_this_machine=True),
        # The article's second compiler: the same model through ONNX into Apache TVM,
        # compiled for this machine's x86 (AVX-512) by TVM's LLVM backend.
        TargetSpec(name="tvm:cpu", kind="cpu", display_name="This machine's CPU (Apache TVM)", compiler="tvm",
                   on_this_machine=True, llvm_target=(("kind", "llvm"), ("mcpu", "skylake-avx512"))),
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
