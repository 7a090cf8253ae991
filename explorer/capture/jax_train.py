"""Keras on JAX: a training step, or a call divided over a mesh, compiled for devices that are not there.

Runs only inside the JAX worker process (see explorer.capture.jax_compile). A
training step is forward, loss, backward and the optimizer update, traced from
`model.stateless_call` and the Keras optimizer's `stateless_apply`, with the
weights and optimizer state donated (the step may write the new values over the
old). The loss is the mean squared error against labels shaped like the
outputs: any model has one, and the memory and work it adds are the same as a
task's loss would add.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from explorer.capture.jax_compile import FUNCTION_NAME, SCOPE_PREFIX, Lowering, _record_layer_scopes, device_for
from explorer.capture.jax_mesh import KerasLayout, batch_spec, build_mesh, spec_text, weight_spec
from explorer.capture.model_inputs import structured_inputs
from explorer.errors import TensorwegError
from explorer.model.records import CaptureOptions
from explorer.model.sharding import axis_sizes, mesh_shape
from explorer.model.training import (
    INPUTS,
    LABELS,
    LOSS,
    LOSS_SCOPE,
    OPTIMIZER_STATE,
    STATE,
    TRAIN_FUNCTION,
    WEIGHTS,
    ArgumentGroup,
    StepLayout,
    op_phase,
    wrapped_scopes,
)
from explorer.targets import TargetSpec

TRAIN_MODULE = f"jit_{TRAIN_FUNCTION}"
TRAIN_PREFIX = f"jit({TRAIN_FUNCTION})"


def make_optimizer(name: str, model: Any) -> Any:
    """A Keras optimizer built for the model's trainable variables (its state has their shapes)."""
    import keras  # noqa: PLC0415 (the compiler loads in the capture worker only)

    optimizer = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD}[name]()
    optimizer.build(model.trainable_variables)
    return optimizer


def check_trainable(model: Any) -> None:
    """A training step of a model without trainable weights (none at all, or every layer frozen) would
    compute a loss and update nothing: refused as bad input (the worker's `fatal`, one line, nothing
    cached) rather than captured as a step that trains nothing without a word."""
    if model.trainable_variables:
        return
    frozen = " (every layer is frozen: trainable=False)" if model.weights else ""
    raise TensorwegError(f"nothing to train: the model has no trainable weights{frozen}; "
                         "capture it without --mode train")


class Placement:
    """Where every abstract argument lives: one device, or a NamedSharding over a mesh."""

    def __init__(self, spec: TargetSpec, options: CaptureOptions, model: Any = None) -> None:
        self.shard = options.shard
        self.layout_map = None  # --layout-map: a keras.distribution.ModelParallel decides each spec
        if options.mesh:
            dims = mesh_shape(options.mesh)
            self.mesh, self.platform = build_mesh(spec, dims)
            self.model_size = axis_sizes(dims)[1]
            self.devices = self.mesh.devices.size
            if options.layout_map:
                self.layout_map = KerasLayout(self.mesh, options, model)
        else:
            from jax.sharding import SingleDeviceSharding  # noqa: PLC0415 (the compiler loads in the capture worker only)

            device, self.platform = device_for(spec) if spec.kind != "cpu" else _cpu_device()
            self.single = SingleDeviceSharding(device)
            self.mesh = None
            self.devices = 1

    def abstract(self, shape, dtype, batch: bool, path: str = "") -> tuple[Any, str]:
        """(ShapeDtypeStruct, PartitionSpec text or "") for one argument (`path`: a variable's)."""
        import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)

        shape = tuple(shape)
        if self.mesh is None:
            return jax.ShapeDtypeStruct(shape, dtype, sharding=self.single), ""
        from jax.sharding import NamedSharding  # noqa: PLC0415 (the compiler loads in the capture worker only)

        if self.layout_map is not None:
            spec = self.layout_map.spec(shape, batch, path)
        else:
            spec = batch_spec(self.shard, len(shape)) if batch else weight_spec(self.shard, shape, self.model_size)
        return jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(self.mesh, spec)), spec_text(spec)


def _cpu_device() -> tuple[Any, str]:
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    return jax.devices("cpu")[0], "cpu"


def compiler_name(spec: TargetSpec) -> str:
    return {"cpu": "XLA:CPU (Keras on JAX)", "gpu": "XLA:GPU (Keras on JAX)",
            "tpu": "XLA:TPU (Keras on JAX)"}[spec.kind]


def lower_step(model: Any, signature: list, spec: TargetSpec, options: CaptureOptions,
               mode: str | None = None) -> tuple[Lowering, StepLayout]:
    """Trace the inference call or the training step on abstract, placed arguments."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    mode = mode or options.mode
    if mode == "train":
        check_trainable(model)
    placement = Placement(spec, options, model)

    def group(role: str, first: int, names: list[str], structs: list[tuple[Any, str]]) -> ArgumentGroup:
        shardings = tuple(text for _struct, text in structs) if placement.mesh is not None else ()
        return ArgumentGroup(role, first, tuple(names), shardings)

    trainable = [placement.abstract(v.shape, v.dtype, False, v.path) for v in model.trainable_variables]
    non_trainable = [placement.abstract(v.shape, v.dtype, False, v.path) for v in model.non_trainable_variables]
    inputs = [placement.abstract(shape, dtype, True) for _name, shape, dtype in signature]
    groups = [group(WEIGHTS, 0, [v.path for v in model.trainable_variables], trainable),
              group(STATE, len(trainable), [v.path for v in model.non_trainable_variables], non_trainable)]
    first = len(trainable) + len(non_trainable)
    scopes: dict[str, str] = {}
    _record_layer_scopes(model, scopes)
    args_t = [s for s, _ in trainable]
    args_n = [s for s, _ in non_trainable]
    x = structured_inputs(model, [s for s, _ in inputs])

    if mode == "inference":
        def fwd(trainable, non_trainable, x):
            outputs, _ = model.stateless_call(trainable, non_trainable, x, training=False)
            return outputs

        assert fwd.__name__ == FUNCTION_NAME
        groups.append(group(INPUTS, first, [name for name, *_ in signature], inputs))
        traced = jax.jit(fwd, keep_unused=True).trace(args_t, args_n, x)
        layout = StepLayout(mode=mode, optimizer="", compiler=compiler_name(spec), arguments=tuple(groups),
                            mesh=options.mesh, shard=options.shard, devices=placement.devices,
                            layout_map=options.layout_map_file)
        lowered = traced.lower(lowering_platforms=(placement.platform,))
        return Lowering(lowered=lowered, platform=placement.platform, scopes=scopes), layout

    optimizer = make_optimizer(options.optimizer or "adam", model)
    state = [placement.abstract(v.shape, v.dtype, False, v.path) for v in optimizer.variables]
    groups.append(group(OPTIMIZER_STATE, first, [v.path for v in optimizer.variables], state))
    first += len(state)
    groups.append(group(INPUTS, first, [name for name, *_ in signature], inputs))
    first += len(inputs)

    def forward_only(trainable, non_trainable, x):
        outputs, _ = model.stateless_call(trainable, non_trainable, x, training=True)
        return outputs

    output_specs = jax.tree_util.tree_leaves(jax.eval_shape(forward_only, args_t, args_n, x))
    labels = [placement.abstract(o.shape, o.dtype, True) for o in output_specs]
    groups.append(group(LABELS, first, [f"label {i}" for i in range(len(labels))], labels))

    def train_step(trainable, non_trainable, optimizer_state, x, labels):
        def loss_of(trainable, non_trainable):
            outputs, non_trainable = model.stateless_call(trainable, non_trainable, x, training=True)
            with jax.named_scope(LOSS_SCOPE):
                loss = sum(jax.numpy.mean(jax.numpy.square(o - t))
                           for o, t in zip(jax.tree_util.tree_leaves(outputs), labels, strict=True))
            return loss, non_trainable

        (loss, non_trainable), grads = jax.value_and_grad(loss_of, has_aux=True)(trainable, non_trainable)
        trainable, optimizer_state = optimizer.stateless_apply(optimizer_state, grads, trainable)
        return loss, trainable, non_trainable, optimizer_state

    assert train_step.__name__ == TRAIN_FUNCTION
    # Weights, state and optimizer state (arguments 0-2) donated unless --no-donate.
    step = jax.jit(train_step, donate_argnums=(0, 1, 2) if options.donate else (), keep_unused=True)
    with checkpoint_each_layer(model, options.remat, options.remat_layers):
        traced = step.trace(args_t, args_n, [s for s, _ in state], x, [s for s, _ in labels])
    lowered = traced.lower(lowering_platforms=(placement.platform,))
    outputs = (ArgumentGroup(LOSS, 0, ("loss",)),
               ArgumentGroup(WEIGHTS, 1, groups[0].names),
               ArgumentGroup(STATE, 1 + len(trainable), groups[1].names),
               ArgumentGroup(OPTIMIZER_STATE, 1 + len(trainable) + len(non_trainable), groups[2].names))
    layout = StepLayout(
        mode=mode, optimizer=options.optimizer or "adam", compiler=compiler_name(spec),
        arguments=tuple(groups), outputs=outputs,
        donated=tuple(range(len(trainable) + len(non_trainable) + len(state))) if options.donate else (),
        mesh=options.mesh, shard=options.shard, devices=placement.devices, remat=options.remat,
        layout_map=options.layout_map_file,
    )
    return Lowering(lowered=lowered, platform=placement.platform, scopes=train_scopes(scopes)), layout


@contextmanager
def checkpoint_each_layer(model: Any, active: bool, only: str = "") -> Iterator[None]:
    """--remat: while tracing, each layer keeps only its input for the backward pass and recomputes
    the rest (`jax.checkpoint` around every leaf layer's `call`), the usual per-layer remat. The
    calls are restored afterwards: the same model is traced again without it for the comparison.
    only: `--remat-layers REGEX`, the leaf layers whose name it finds (re.search); "" = every one."""
    import jax  # noqa: PLC0415 (the compiler loads in the capture worker only)

    wrapped = []
    chosen = re.compile(only) if only else None
    for layer in model._flatten_layers(include_self=False, recursive=True) if active else ():
        if list(layer._flatten_layers(include_self=False)):
            continue  # a nested model: its own layers are wrapped
        if chosen is not None and not chosen.search(layer.name):
            continue
        original = layer.call

        def call(*args, _original=original, **kwargs):
            return jax.checkpoint(lambda *arrays: _original(*arrays, **kwargs))(*args)

        layer.call = call
        wrapped.append((layer, original))
    try:
        yield
    finally:
        for layer, original in wrapped:
            layer.call = original


def train_scopes(recorded: dict[str, str]) -> dict[str, str]:
    """The recorded layer scopes as a training step's op_names carry them: `jit(train_step)/jvp(dense)`
    for the forward pass and `jit(train_step)/transpose(jvp(dense))` for the backward pass."""
    scopes = {}
    for scope, layer in recorded.items():
        inner = scope[len(SCOPE_PREFIX) + 1:] if scope.startswith(f"{SCOPE_PREFIX}/") else scope
        inner = op_phase(inner + "/op").scope or inner  # traced under jvp: `jvp(dense)` is dense's scope
        scopes[f"{TRAIN_PREFIX}/{inner}"] = layer
        for wrapped in wrapped_scopes(TRAIN_PREFIX, inner):
            scopes[wrapped] = layer
    return scopes
