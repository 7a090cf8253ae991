"""Compile-only device meshes: a TPU slice or a GPU box, and how each argument is divided over it.

Runs only inside the JAX worker (see explorer.capture.jax_compile). The mesh is
built directly: `jax.make_mesh` in jax 0.10 defaults to explicit axes and raised
ShardingTypeError for these compiles.
"""

from __future__ import annotations

from typing import Any

from explorer.sharding import MESH_AXES, axis_sizes, device_count
from explorer.targets import TargetSpec, gpu_target_config_text


def mesh_devices(spec: TargetSpec, dims: tuple[int, ...]) -> tuple[list[Any], str]:
    """(compile-only devices, lowering platform) for a slice of `dims` chips of the target's kind."""
    from jax.experimental import topologies

    if spec.kind == "tpu":
        generation, chip = spec.topology.split(":")
        grid = list(dims)
        while len(grid) < len(chip.split("x")):  # v4 and v5p slices are 3-D: 2x2 is 2x2x1
            grid.append(1)
        topology = topologies.get_topology_desc(topology_name=f"{generation}:{'x'.join(map(str, grid))}",
                                                platform="tpu")
        return list(topology.devices), "tpu"
    if spec.kind == "gpu" and spec.name != "gpu:local":
        # One host with all GPUs on it (slices x hosts x devices per host): XLA's compile-only
        # CUDA client accepts it and partitions over NVLink peers.
        topology = topologies.get_topology_desc(spec.topology, "cuda", target_config=gpu_target_config_text(spec),
                                                topology=f"1x1x{device_count(dims)}")
        return list(topology.devices), "cuda"
    raise ValueError(f"{spec.name} cannot be compiled for a mesh")


def build_mesh(spec: TargetSpec, dims: tuple[int, ...]) -> tuple[Any, str]:
    import numpy as np
    from jax.sharding import Mesh

    devices, platform = mesh_devices(spec, dims)
    if len(devices) != device_count(dims):
        raise ValueError(f"the {spec.name} topology has {len(devices)} devices, not {device_count(dims)}")
    return Mesh(np.array(devices).reshape(axis_sizes(dims)), MESH_AXES), platform


def batch_spec(shard: str, rank: int) -> Any:
    """Inputs and labels: the batch split over every device (data) or over the data axis (model)."""
    from jax.sharding import PartitionSpec as P

    if rank == 0:
        return P()
    return P(MESH_AXES if shard == "data" else MESH_AXES[0], *([None] * (rank - 1)))


def weight_spec(shard: str, shape: tuple[int, ...], model_size: int) -> Any:
    """Weights and their optimizer state: replicated (data), or the last dimension split over
    the model axis where it divides evenly (model: each chip holds a slice of every kernel)."""
    from jax.sharding import PartitionSpec as P

    if shard != "model" or not shape:
        return P()
    for dim in reversed(range(len(shape))):
        if shape[dim] % model_size == 0 and shape[dim] >= model_size:
            return P(*([None] * dim), MESH_AXES[1], *([None] * (len(shape) - dim - 1)))
    return P()


def spec_text(spec: Any) -> str:
    """A PartitionSpec as the learner reads it: `P('data', None)`."""
    return "P(" + ", ".join(repr(part) for part in spec) + ")"
