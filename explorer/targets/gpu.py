"""What a compile-only CUDA GPU is made of: XLA's device description of a board, and one SM's limits.

The device description is what the JAX worker hands XLA instead of a real GPU
(`GpuTargetConfigProto`); its fields are XLA's own record of the board as CUDA reports it
(XLA ships one per board under xla/backends/gpu/target_config/specs/), so they are copied
from that file and cited to it, not to the datasheet: CUDA reports the memory the driver
exposes (79.1 GiB of an "80GB" H100) and the bandwidth from the memory clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.targets.figures import Figure, Source


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


@dataclass(frozen=True)
class GpuDevice:
    """A board as XLA describes it to a compile-only CUDA client.

    fields: `GpuTargetConfigProto.gpu_device_info` fields, in the spec file's order.
    compute_capability: CUDA compute capability (major, minor).
    description: the name CUDA reports for the board (XLA matches on it for some per-device tuning).
    """

    fields: tuple[tuple[str, int | float], ...]
    compute_capability: tuple[int, int]
    description: str
    source: Source

    def figure(self, field: str) -> Figure:
        """One field as a cited figure (`core_count: 132`, from XLA's spec file)."""
        value = dict(self.fields)[field]
        return Figure(value, f"{field}: {value}", self.source)


# Device description fields shared by the data-centre GPUs (CUDA limits, in every spec file).
CUDA_LIMITS: tuple[tuple[str, int | float], ...] = (
    ("threads_per_block_limit", 1024),
    ("threads_per_warp", 32),
    ("shared_memory_per_block", 49152),
    ("threads_per_core_limit", 2048),
    ("block_dim_limit_x", 2147483647),
    ("block_dim_limit_y", 65535),
    ("block_dim_limit_z", 65535),
)
# The cuDNN version XLA assumes when choosing fused convolution custom calls.
_DNN_VERSION = "dnn_version_info { major: 9 minor: 7 }"


def config_text(name: str, device: GpuDevice | None) -> str:
    """A `GpuTargetConfigProto` in protobuf text format for the compile-only GPU `name`."""
    if device is None:
        raise TensorwegError(f"{name} has no GPU device description")
    lines = ["gpu_device_info {"]
    for field, value in device.fields:
        lines.append(f"  {field}: {value}")
    major, minor = device.compute_capability
    lines.append(f"  cuda_compute_capability {{ major: {major} minor: {minor} }}")
    lines.append("}")
    lines.append('platform_name: "CUDA"')
    lines.append(_DNN_VERSION)
    lines.append(f'device_description_str: "{device.description}"')
    return "\n".join(lines) + "\n"
