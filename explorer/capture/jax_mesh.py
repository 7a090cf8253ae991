"""Compile-only device meshes: a TPU slice or a GPU box, and how each argument is divided over it.

Runs only inside the JAX worker (see explorer.capture.jax_compile). The mesh is
built directly: `jax.make_mesh` in jax 0.10 defaults to explicit axes and raised
ShardingTypeError for these compiles.
"""

from __future__ import annotations

from typing import Any

from explorer.capture.layout_map import assign
from explorer.model.sharding import MESH_AXES, axis_sizes, device_count
from explorer.targets import TargetSpec, gpu_target_config_text


def mesh_devices(spec: TargetSpec, dims: tuple[int, ...]) -> tuple[list[Any], str]:
    """(compile-only devices, lowering platform) for a slice of `dims` chips of the target's kind."""
    from jax.experimental import topologies  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if spec.kind == "tpu":
        generation, chip = spec.topology.split(":")
        grid = list(dims)
        while len(grid) < len(chip.split("x")):  # v4 and v5p slices are 3-D: 2x2 is 2x2x1
            grid.append(1)
        topology = topologies.get_topology_desc(topology_name=f"{generation}:{'x'.join(map(str, grid))}",
                                                platform="tpu")
        return list(topology.devices), "tpu"
    if spec.kind == "gpu" and not spec.on_this_machine:
        # One host with all GPUs on it (slices x hosts x devices per host): XLA's compile-only
        # CUDA client accepts it and partitions over NVLink peers.
        topology = topologies.get_topology_desc(spec.topology, "cuda", target_config=gpu_target_config_text(spec),
                                                topology=f"1x1x{device_count(dims)}")
        return list(topology.devices), "cuda"
    raise ValueError(f"{spec.name} cannot be compiled for a mesh")


def build_mesh(spec: TargetSpec, dims: tuple[int, ...]) -> tuple[Any, str]:
    import numpy as np  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from jax.sharding import Mesh  # noqa: PLC0415 (the compiler loads in the capture worker only)

    devices, platform = mesh_devices(spec, dims)
    if len(devices) != device_count(dims):
        raise ValueError(f"the {spec.name} topology has {len(devices)} devices, not {device_count(dims)}")
    return Mesh(np.array(devices).reshape(axis_sizes(dims)), MESH_AXES), platform


def batch_spec(shard: str, rank: int) -> Any:
    """Inputs and labels: the batch split over every device (data) or over the data axis (model)."""
    from jax.sharding import PartitionSpec as P  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if rank == 0:
        return P()
    return P(MESH_AXES if shard == "data" else MESH_AXES[0], *([None] * (rank - 1)))


def weight_spec(shard: str, shape: tuple[int, ...], model_size: int) -> Any:
    """Weights and their optimizer state: replicated (data), or the last dimension split over
    the model axis where it divides evenly (model: each chip holds a slice of every kernel)."""
    from jax.sharding import PartitionSpec as P  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if shard != "model" or not shape:
        return P()
    for dim in reversed(range(len(shape))):
        if shape[dim] % model_size == 0 and shape[dim] >= model_size:
            return P(*([None] * dim), MESH_AXES[1], *([None] * (len(shape) - dim - 1)))
    return P()


def spec_text(spec: Any) -> str:
    """A PartitionSpec as the learner reads it: `P('data', None)`."""
    return "P(" + ", ".join(repr(part) for part in spec) + ")"


class KerasLayout:
    """--layout-map: a real `keras.distribution.ModelParallel` with the file's `LayoutMap` over the
    compile-only mesh decides each argument's spec. The rules are checked against the model's
    weights first (explorer.capture.layout_map.assign), so a bad key is one line naming the file."""

    def __init__(self, mesh: Any, options: Any, model: Any) -> None:
        import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

        sizes = dict(zip(mesh.axis_names, mesh.devices.shape, strict=True))
        weights = [(v.path, tuple(v.shape)) for v in model.weights]
        assign(options.layout_map_file, options.layout_map, weights, sizes)
        device_mesh = keras.distribution.DeviceMesh(mesh.devices.shape, list(mesh.axis_names), devices=mesh.devices)
        layout_map = keras.distribution.LayoutMap(device_mesh)
        for pattern, axes in options.layout_map:
            layout_map[pattern] = tuple(axes)
        self.distribution = keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name=MESH_AXES[0])
        self.weights = {v.path: v for v in model.weights}
        # An optimizer's slot (`adam/dense_kernel_momentum`) lies like its weight, as Keras's
        # `add_variable_from_reference` places it.
        self.slots = {v.path.replace("/", "_"): v for v in model.trainable_variables}

    def spec(self, shape: tuple[int, ...], batch: bool, path: str) -> Any:
        from jax.sharding import PartitionSpec as P  # noqa: PLC0415 (the compiler loads in the capture worker only)

        if batch:
            return P(*self.distribution.get_data_layout(shape).axes)
        variable = self.weights[path] if path in self.weights else self._reference(path, shape)
        if variable is None:
            return P()
        return P(*self.distribution.get_variable_layout(variable).axes)

    def _reference(self, path: str, shape: tuple[int, ...]) -> Any:
        slot = path.rpartition("/")[2]
        for prefix, variable in self.slots.items():
            if slot.startswith(prefix + "_") and tuple(variable.shape) == tuple(shape):
                return variable
        return None
