"""What a compiled training step holds that an inference call does not.

Pure: reads the optimized HLO text and the step layout the JAX worker writes
(`targets/<t>/step.json`, a `StepLayout`). Keras-on-JAX names every op by the
transformation that made it: `jvp(dense)` is the forward pass (differentiated),
`transpose(jvp(dense))` the backward pass, `adam/...` the optimizer update.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.hlo.scan import (
    array_bytes,
    arrays,
    entry_instructions,
    input_output_aliases,
    leading_array,
    op_name,
    parameter_number,
    tuple_index,
)

STEP_FILE = "step.json"
TRAIN_FUNCTION = "train_step"
LOSS_SCOPE = "loss"

# Argument and output roles, in the order the training step takes and returns them.
WEIGHTS = "weights"
STATE = "non-trainable state"
OPTIMIZER_STATE = "optimizer state"
INPUTS = "inputs"
LABELS = "labels"
LOSS = "loss"
# Buffers found inside the step.
GRADIENTS = "gradients"
SAVED_ACTIVATIONS = "saved activations"
# The course text for each class (explorer/texts/content/*/training/).
ROLE_KEYS = {GRADIENTS: "training:gradients", SAVED_ACTIVATIONS: "training:saved-activations",
             OPTIMIZER_STATE: "training:optimizer-state"}


@dataclass(frozen=True)
class ArgumentGroup:
    """Consecutive entry parameters (or output tuple elements) with one role.

    first: the first parameter number (output index). names: one per element
    (a variable's path, an input's name). shardings: one PartitionSpec text per
    element on a mesh, else ().
    """

    role: str
    first: int
    names: tuple[str, ...]
    shardings: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepLayout:
    """How the compiled function's arguments and results map to the model (written by the JAX worker)."""

    mode: str
    optimizer: str
    compiler: str  # which compiler produced it: "XLA:TPU (JAX)", ...
    arguments: tuple[ArgumentGroup, ...]
    outputs: tuple[ArgumentGroup, ...] = ()
    donated: tuple[int, ...] = ()  # parameter numbers handed to the step to reuse
    # memory_analysis() of the same model's inference call on the same devices (train mode).
    inference_analysis: tuple[tuple[str, int], ...] = ()
    mesh: str = ""
    shard: str = ""
    devices: int = 1
    # --remat: memory_analysis() and (flops with, flops without) of the same step keeping its activations.
    remat: bool = False
    without_remat_analysis: tuple[tuple[str, int], ...] = ()
    flops: tuple[float, float] = (0.0, 0.0)
    layout_map: str = ""  # --layout-map: the file's name (the weights split by its Keras LayoutMap)


@dataclass(frozen=True)
class VariablePaths:
    """A step's Keras variables in argument order: `trainable[i]` is `trainable[i]` here
    (`dense/kernel`), and so for `non_trainable[i]`. The cross-index credits a weight to its
    layer by them: a split weight's per-device size in the optimized module cannot say whose it is."""

    trainable: tuple[str, ...]
    non_trainable: tuple[str, ...]


def variable_paths(layout: StepLayout | None) -> VariablePaths | None:
    if layout is None:
        return None
    groups = {group.role: group.names for group in layout.arguments}
    return VariablePaths(groups.get(WEIGHTS, ()), groups.get(STATE, ()))


# --- op names: which layer, which pass ----------------------------------------------



@dataclass(frozen=True)
class OpPhase:
    """Where an op of a training step comes from: the layer (scope path) and the pass."""

    scope: str  # the layer's scope path ("dense", "outer/dense"), "" for none
    phase: str  # "forward", "backward", "loss", "loss, backward", "optimizer update", ""

    def label(self) -> str:
        """`dense, backward`; the phase alone where there is no layer."""
        return f"{self.scope}, {self.phase}" if self.scope and self.phase else self.phase or self.scope


def op_phase(op_name: str, optimizer: str = "") -> OpPhase:
    """Parse `jit(train_step)/transpose(jvp(dense))/dot_general` into ("dense", "backward").

    Fused instructions carry several names joined by `;`: the first decides. Under
    `jax.checkpoint` the layer follows the transformation:
    `transpose(jvp(jvp()))/checkpoint/dense/dot_general` is dense's backward pass too.
    """
    name = op_name.split(";", 1)[0]
    if name.startswith("jit("):
        name = name.split("/", 1)[1] if "/" in name else ""
    first, _, rest = name.partition("/")
    if first.startswith(_TRANSFORMS) and first.endswith(")"):
        backward = first.startswith("transpose(")
        inner = first
        while inner.startswith(_TRANSFORMS) and inner.endswith(")"):
            inner = inner[inner.index("(") + 1:-1]
        # Nested jits (`jit(relu)`) are how an activation was written, and `checkpoint` how the
        # step was traced: neither is a layer.
        parts = [p for p in (inner, *rest.split("/")[:-1])
                 if p and not p.startswith("jit(") and p not in _NOT_LAYERS]
        scope = "/".join(parts)
        if not scope or scope.split("/", 1)[0] == LOSS_SCOPE:
            return OpPhase("", "loss, backward" if backward else "loss")
        return OpPhase(scope, "backward" if backward else "forward")
    if optimizer and name.startswith(f"{optimizer}/"):
        return OpPhase("", "optimizer update")
    return OpPhase("", "")


_TRANSFORMS = ("transpose(", "jvp(")
_NOT_LAYERS = frozenset({"checkpoint", "remat", "rematted_computation"})


def gradient_of(phase: OpPhase, shape: str, weights: dict[str, str]) -> str:
    """`kernel` when a backward result of a layer has the shape of that layer's kernel (its gradient).

    weights: variable path (`dense/kernel`) -> `f32[64,128]`.
    """
    if phase.phase != "backward" or not phase.scope:
        return ""
    for path, weight_shape in weights.items():
        layer, _, variable = path.rpartition("/")
        if weight_shape == shape and (phase.scope == layer or phase.scope.endswith(f"/{layer}")):
            return variable
    return ""


def wrapped_scopes(prefix: str, scope: str) -> tuple[str, ...]:
    """The op_name prefixes of one layer's forward and backward ops in a training step
    (with `--remat` the backward pass names the layer after `checkpoint`)."""
    return (f"{prefix}/jvp({scope})", f"{prefix}/transpose(jvp({scope}))",
            f"{prefix}/jvp(jvp())/checkpoint/{scope}", f"{prefix}/transpose(jvp(jvp()))/checkpoint/{scope}")


# --- buffers --------------------------------------------------------------------------

_NOT_BUFFERS = frozenset({"parameter", "constant", "get-tuple-element", "tuple", "bitcast"})


@dataclass(frozen=True)
class BufferClass:
    """The buffers of one role in a training step (weights, gradients, ...): their bytes and count."""

    role: str
    bytes: int
    count: int
    examples: tuple[str, ...] = ()  # a few instruction or variable names


@dataclass(frozen=True)
class StepMemory:
    """What one compiled step keeps in memory, by role, per device."""

    classes: tuple[BufferClass, ...]
    aliases: tuple[tuple[str, int], ...]  # (output index, donated parameter number)
    peak_bytes: int  # memory_analysis: arguments + outputs + temporaries - aliased
    inference_peak_bytes: int  # the same for the inference call (0 when not compiled)
    # Weights whose gradient no buffer holds: XLA computed it inside the update's fusion.
    fused_gradients: int = 0
    members: tuple[tuple[str, str], ...] = ()  # (entry instruction, role)

    def bytes_of(self, role: str) -> int:
        return sum(c.bytes for c in self.classes if c.role == role)


def peak_of(analysis: tuple[tuple[str, int], ...]) -> int:
    """The bytes a step needs at once from memory_analysis: arguments, outputs and temporaries,
    counting a donated argument that the output reuses once."""
    figures = dict(analysis)
    return (figures.get("argument_size_in_bytes", 0) + figures.get("output_size_in_bytes", 0)
            + figures.get("temp_size_in_bytes", 0) - figures.get("alias_size_in_bytes", 0))


def step_memory(layout: StepLayout, optimized_hlo: str, analysis: tuple[tuple[str, int], ...]) -> StepMemory:
    """Classify the step's buffers: arguments by the layout's roles; inside the step, gradients
    (backward results shaped like a weight) and saved activations (forward results the backward
    pass reads)."""
    instructions = entry_instructions(optimized_hlo)
    tally = _Tally()
    weight_shapes, phases = _arguments(layout, instructions, tally)
    saved = _gradients_and_saved(instructions, phases, weight_shapes, tally)
    sizes = {name: shape for name, shape, *_ in instructions}
    for operand in sorted(saved):
        tally.add(SAVED_ACTIVATIONS, array_bytes(sizes[operand]), operand)
    weights = sum(len(g.names) for g in layout.arguments if g.role == WEIGHTS)
    return StepMemory(
        classes=tally.classes((WEIGHTS, STATE, OPTIMIZER_STATE, INPUTS, LABELS, GRADIENTS, SAVED_ACTIVATIONS)),
        aliases=input_output_aliases(optimized_hlo),
        peak_bytes=peak_of(analysis),
        inference_peak_bytes=peak_of(layout.inference_analysis),
        fused_gradients=max(weights - tally.count(GRADIENTS), 0) if layout.mode == "train" else 0,
        members=tuple(tally.members.items()),
    )


class _Tally:
    """Per buffer class its bytes, count and first three examples; per buffer (by name) its class."""

    def __init__(self) -> None:
        self._totals: dict[str, list] = {}  # role -> [bytes, count, examples]
        self.members: dict[str, str] = {}

    def add(self, role: str, size: int, example: str, instruction: str = "") -> None:
        self.members.setdefault(instruction or example, role)
        entry = self._totals.setdefault(role, [0, 0, []])
        entry[0] += size
        entry[1] += 1
        if len(entry[2]) < 3:
            entry[2].append(example)

    def count(self, role: str) -> int:
        return self._totals.get(role, [0, 0, []])[1]

    def classes(self, order: tuple[str, ...]) -> tuple[BufferClass, ...]:
        totals = [(role, *self._totals[role]) for role in order if role in self._totals]
        return tuple(BufferClass(role, size, count, tuple(examples)) for role, size, count, examples in totals)


def _arguments(layout: StepLayout, instructions, tally: _Tally) -> tuple[set[str], dict[str, OpPhase]]:
    """Tally the entry parameters by the layout's roles; return the weights' shapes and every other
    instruction's phase (forward, loss, backward, optimizer) from its op_name."""
    role_of = {group.first + offset: (group.role, name)
               for group in layout.arguments for offset, name in enumerate(group.names)}
    weight_shapes: set[str] = set()
    phases: dict[str, OpPhase] = {}
    for name, shape, opcode, _operands, line in instructions:
        if opcode == "parameter":
            role, label = role_of.get(parameter_number(line), ("", name))
            if role:
                tally.add(role, array_bytes(shape), label, name)
            if role == WEIGHTS:
                weight_shapes.add(leading_array(shape))
            continue
        phases[name] = op_phase(op_name(line), layout.optimizer)
    return weight_shapes, phases


def _gradients_and_saved(instructions, phases: dict[str, OpPhase], weight_shapes: set[str],
                         tally: _Tally) -> set[str]:
    """Tally the gradients (backward results shaped like a weight); return the saved activations
    (forward and loss results a backward instruction reads)."""
    element_phase = {}
    for name, _shape, opcode, operands, line in instructions:
        if opcode == "get-tuple-element" and operands and (index := tuple_index(line)) >= 0:
            element_phase[(operands[0], index)] = phases[name].phase
    saved: set[str] = set()
    for name, shape, opcode, operands, _line in instructions:
        phase = phases.get(name)
        if phase is None or opcode in _NOT_BUFFERS:
            continue
        # A fusion's tuple result may hold several values: each element is what its reader
        # (get-tuple-element) is named after, else what the fusion is (its first op's name).
        for index, array in enumerate(arrays(shape)):
            if array in weight_shapes and element_phase.get((name, index), phase.phase).endswith("backward"):
                tally.add(GRADIENTS, array_bytes(array), name)
        if phase.phase.endswith("backward"):
            saved.update(operand for operand in operands
                         if (before := phases.get(operand)) is not None and before.phase in ("forward", "loss"))
    return saved
