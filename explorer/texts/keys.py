"""Which explanation keys describe a captured item (most specific first).

Screens pass these lists to `explorer.texts.lookup.explain`; the coverage
test runs them over real captures, so a new kind of item without a text shows
up as a failing test rather than as a bare level text in the UI.
"""

from __future__ import annotations

import json

from explorer.hlo.model import HloInstruction, Shape
from explorer.model.records import Allocation, GraphOp, KernelRecord, LayerRecord
from explorer.texts.lookup import memory_space_key
from explorer.texts.xla_opcodes import custom_call_names


def layer_keys(layer: LayerRecord) -> list[str]:
    return [f"layer:{layer.class_name}"]


def graph_op_keys(op: GraphOp) -> list[str]:
    return [f"op:{op.op}"]


def instruction_keys(instruction: HloInstruction) -> list[str]:
    """Most specific first: a kCustom fusion's backend kind (`custom-fusion:__triton`), a
    custom call's exact target, the target it is a version of (`cu_threefry2x32_ffi` ->
    `custom-call:cu_threefry2x32`), then its family (`__cudnn$fmha...` -> `custom-call:__cudnn$fmha`)."""
    if instruction.opcode == "fusion" and instruction.fusion_kind:
        kind = custom_fusion_kind(instruction)
        specific = [f"custom-fusion:{kind}"] if kind else []
        return [*specific, f"fusion:{instruction.fusion_kind}", "hlo:fusion"]
    if instruction.opcode == "custom-call" and instruction.custom_call_target:
        names = custom_call_names(instruction.custom_call_target)
        return [*(f"custom-call:{name}" for name in names), "hlo:custom-call"]
    return [f"hlo:{instruction.opcode}"]


# Where a backend config names a kCustom fusion's kind: XLA:GPU's `fusion_backend_config`
# (`"kind":"__triton"`), XLA:CPU's `fusion_config` (`"kind":"__ynn_fusion"`, backend_config.proto in
# xla/service/cpu).
_FUSION_CONFIGS = ("fusion_backend_config", "fusion_config")


def custom_fusion_kind(instruction: HloInstruction) -> str:
    """The kind a fusion's backend config names (`__triton` on the GPU, `__ynn_fusion` on the CPU), ""
    when there is none."""
    config = _backend_config(instruction)
    for field in _FUSION_CONFIGS:
        fusion = config.get(field) if isinstance(config, dict) else None
        kind = fusion.get("kind") if isinstance(fusion, dict) else None
        if isinstance(kind, str) and kind:
            return kind
    return ""


# HLO attributes (as `key=` in HLO text) with a text of their own, keyed `attribute:KEY`.
_TEXT_ATTRIBUTES = ("window", "dim_labels", "cross_program_prefetch_index")
# Fields of a backend config (JSON) with a text of their own.
_CONFIG_FIELDS = ("triton_gemm_config", "precision_config")


def attribute_keys(instruction: HloInstruction) -> list[str]:
    """`attribute:NAME` for each attribute of the instruction that a learner reads on screen and
    that has a text: HLO attributes (`window=`, `dim_labels=`, `cross_program_prefetch_index=`,
    `operand_precision=`), backend-config fields (`triton_gemm_config`, `precision_config`), and
    the scratch buffer a cuDNN call returns beside its result (`attribute:cudnn-scratch`)."""
    found = [f"attribute:{name}" for name, _ in instruction.attributes if name in _TEXT_ATTRIBUTES]
    if instruction.attribute("operand_precision"):
        found.append("attribute:precision_config")
    config = _backend_config(instruction)
    for field in _CONFIG_FIELDS:
        if _has_field(config, field):
            found.append(f"attribute:{field}")
    if _returns_cudnn_scratch(instruction):
        found.append("attribute:cudnn-scratch")
    return list(dict.fromkeys(found))


def _backend_config(instruction: HloInstruction) -> object:
    try:
        return json.loads(instruction.backend_config) if instruction.backend_config else {}
    except ValueError:  # TPU and CPU configs are not always JSON; they then have no known fields
        return {}


def _has_field(config: object, field: str) -> bool:
    if isinstance(config, dict):
        return field in config or any(_has_field(value, field) for value in config.values())
    if isinstance(config, list):
        return any(_has_field(value, field) for value in config)
    return False


def _returns_cudnn_scratch(instruction: HloInstruction) -> bool:
    """cuDNN custom calls return (result..., u8[n] scratch): the workspace XLA reserves for cuDNN."""
    shape = instruction.shape
    return (instruction.custom_call_target.startswith("__cudnn$") and shape.is_tuple
            and bool(shape.tuple_shapes) and shape.tuple_shapes[-1].element_type == "u8")


def kernel_keys(kernel: KernelRecord) -> list[str]:
    return [f"kernel:{kernel.kind}"]


def listing_keys(kernel: KernelRecord, isa: str, ahead_of_time: bool) -> list[str]:
    """The texts a kernel's machine code calls for beyond its kind: on AArch64 the instruction set and what
    its NEON registers and lanes are, and for a target compiled ahead of time how that differs from the
    host's just-in-time compile."""
    keys = []
    if isa == "aarch64" and kernel.asm:
        keys += ["isa:aarch64", "isa:neon"]
    if ahead_of_time:
        keys.append("compile:aot")
    return keys


# Allocation flags that have a text; others XLA prints (e.g. TPU's "page 0") are left
# unexplained rather than guessed at.
ALLOCATION_KINDS = ("parameter", "output", "constant", "thread-local", "temp",
                    "preallocated-temp", "maybe-live-out")


def allocation_keys(allocation: Allocation, target: str = "") -> list[str]:
    """The allocation's kind first, then its other known flags (e.g. maybe-live-out),
    then its memory space when XLA printed one (`color 1` on TPU is VMEM)."""
    keys = [f"allocation:{allocation.kind}"]
    for flag in allocation.flags:
        if flag in ALLOCATION_KINDS and f"allocation:{flag}" not in keys:
            keys.append(f"allocation:{flag}")
        elif flag.startswith("color ") and flag[6:].isdigit():
            keys.append(memory_space_key(target, int(flag[6:])))
    return keys


def memory_space_keys(shape: Shape, target: str) -> list[str]:
    """One key per distinct `S(n)` memory space in the shape (tuple parts included)."""
    spaces: list[int] = []
    for part in _array_shapes(shape):
        space = part.layout.memory_space if part.layout else 0
        if space not in spaces:
            spaces.append(space)
    return [memory_space_key(target, space) for space in spaces]


def layout_keys(shape: Shape) -> list[str]:
    """`layout:tiles` for tiled layouts (then padding matters), else minor-to-major."""
    tiled = any(part.layout and part.layout.tiles for part in _array_shapes(shape))
    return ["layout:tiles", "layout:padding"] if tiled else ["layout:minor-to-major"]


def _array_shapes(shape: Shape) -> list[Shape]:
    if shape.is_tuple:
        return [leaf for part in shape.tuple_shapes for leaf in _array_shapes(part)]
    return [shape]
