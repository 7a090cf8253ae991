"""Keras on JAX, compiled for a GPU or TPU that is not there (compile-only devices).

Runs only inside the JAX worker process: the environment (KERAS_BACKEND=jax,
JAX_PLATFORMS, XLA_FLAGS with the dump directory) must be set before this
module's functions first import jax. See /work/shared/reference/compilers.md.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.capture.model_inputs import structured_inputs
from explorer.capture.tf_layers import called_method, iter_layers
from explorer.model.records import CostAnalysis
from explorer.targets import TargetSpec, gpu_target_config_text

# The traced function's name: HLO op_names read `jit(fwd)/<layer>/<op>` and the
# dumped module is `jit_fwd`.
FUNCTION_NAME = "fwd"
MODULE_NAME = f"jit_{FUNCTION_NAME}"
SCOPE_PREFIX = f"jit({FUNCTION_NAME})"


@dataclass
class Lowering:
    """The traced and lowered model (mutable: holds live JAX objects)."""

    lowered: Any
    platform: str
    scopes: dict[str, str]  # jax name scope -> Keras layer name


def device_for(spec: TargetSpec) -> tuple[Any, str]:
    """(device, lowering platform) for a target; compile-only unless `gpu:local`."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from jax.experimental import topologies  # noqa: PLC0415 (the compiler loads in the capture worker only)

    if spec.kind == "gpu" and spec.on_this_machine:
        return jax.devices("cuda")[0], "cuda"
    if spec.kind == "tpu":
        topology = topologies.get_topology_desc(topology_name=spec.topology, platform="tpu")
        return topology.devices[0], "tpu"
    if spec.kind == "gpu":
        topology = topologies.get_topology_desc(
            spec.topology, "cuda", target_config=gpu_target_config_text(spec), topology="1x1x1"
        )
        return topology.devices[0], "cuda"
    raise ValueError(f"{spec.name} is not compiled by the JAX worker")


def load_model(model_file: str, unsafe: bool) -> Any:
    """The model's architecture, without weights: compiling needs shapes, not values.

    `model_file` is a Keras config as JSON (`model.json`, what the TF worker
    writes) or a `.keras` file (its `config.json` is read). The variables are
    created uninitialised (a StatelessScope that does not initialise them on
    exit): initialising ResNet50's took 9.8 s of a 10 s load, for values the
    compiler never sees.
    """
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    config = _model_config(Path(model_file))
    with keras.StatelessScope(initialize_variables=False):
        return keras.saving.deserialize_keras_object(config, safe_mode=not unsafe)


def _model_config(path: Path) -> dict:
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("config.json"))


def _record_layer_scopes(model: Any, scopes: dict[str, str]) -> None:
    """Wrap each listed layer's `call` to note the JAX name stack it runs under.

    Keras's JAX backend opens `jax.named_scope(layer.name)` around `call`, so
    the name stack there is exactly the prefix HLO op_names carry for that
    layer (nested models included), without guessing from names. Only the
    layers of layers.json (`iter_layers`: nested models flattened, as the TF
    worker records them): a layer's own sub-layers (Bidirectional's
    `forward_lstm`, MultiHeadAttention's `query`) run inside its scope and so
    belong to it, the same on every target.
    """
    from jax._src import source_info_util  # noqa: PLC0415 (the compiler loads in the capture worker only)

    for _path, layer in iter_layers(model):
        method = called_method(layer)  # `quantized_call` for an int8 layer (--quantize)
        original = getattr(layer, method)

        def call(*args, _original=original, _layer=layer, **kwargs):
            stack = str(source_info_util.current_name_stack())
            if stack:
                scopes.setdefault(f"{SCOPE_PREFIX}/{stack}", _layer.name)
            return _original(*args, **kwargs)

        setattr(layer, method, call)


def lower(model: Any, signature: list, spec: TargetSpec) -> Lowering:
    """Trace `model.stateless_call` on abstract arguments placed on the target."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)
    from jax.sharding import SingleDeviceSharding  # noqa: PLC0415 (the compiler loads in the capture worker only)

    device, platform = device_for(spec)
    sharding = SingleDeviceSharding(device)

    def abstract(shape, dtype):
        return jax.ShapeDtypeStruct(tuple(shape), dtype, sharding=sharding)

    trainable = [abstract(v.shape, v.dtype) for v in model.trainable_variables]
    non_trainable = [abstract(v.shape, v.dtype) for v in model.non_trainable_variables]
    inputs = [abstract(shape, dtype) for _name, shape, dtype in signature]
    x = structured_inputs(model, inputs)

    def fwd(trainable, non_trainable, x):
        outputs, _ = model.stateless_call(trainable, non_trainable, x, training=False)
        return outputs

    assert fwd.__name__ == FUNCTION_NAME
    scopes: dict[str, str] = {}
    _record_layer_scopes(model, scopes)
    traced = jax.jit(fwd).trace(trainable, non_trainable, x)
    lowered = traced.lower(lowering_platforms=(platform,))
    return Lowering(lowered=lowered, platform=platform, scopes=scopes)


def hlo_text(lowering: Lowering) -> str:
    """HLO before optimisation, with op_name metadata (the link to layers)."""
    return lowering.lowered.as_text(dialect="hlo", debug_info=True)


def memory_figures(compiled: Any) -> tuple[tuple[str, int], ...]:
    """`compiled.memory_analysis()` as (name, bytes) pairs; () when not reported."""
    stats = compiled.memory_analysis()
    if stats is None:
        return ()
    names = (
        "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
        "temp_size_in_bytes", "generated_code_size_in_bytes",
    )
    return tuple((n, int(getattr(stats, n))) for n in names if hasattr(stats, n))


def cost(compiled: Any) -> CostAnalysis | None:
    """`compiled.cost_analysis()`; None where XLA gives none (compile-only GPU)."""
    try:
        raw = compiled.cost_analysis()
    except Exception:  # some backends raise Unimplemented
        return None
    if isinstance(raw, (list, tuple)):  # older JAX: one dict per computation
        raw = raw[0] if raw else None
    if not raw:
        return None
    known = {"flops", "bytes accessed", "transcendentals"}
    return CostAnalysis(
        flops=float(raw.get("flops", 0.0)),
        bytes_accessed=float(raw.get("bytes accessed", 0.0)),
        transcendentals=float(raw.get("transcendentals", 0.0)),
        extras=tuple(sorted((k, float(v)) for k, v in raw.items() if k not in known)),
    )
