"""Which explanation keys describe a captured item (most specific first).

Screens pass these lists to `explorer.course.lookup.explain`; the coverage
test runs them over real captures, so a new kind of item without a text shows
up as a failing test rather than as a bare level text in the UI.
"""

from __future__ import annotations

from explorer.course.lookup import memory_space_key
from explorer.hlo.model import HloInstruction, Shape
from explorer.records import Allocation, GraphOp, KernelRecord, LayerRecord


def layer_keys(layer: LayerRecord) -> list[str]:
    return [f"layer:{layer.class_name}"]


def graph_op_keys(op: GraphOp) -> list[str]:
    return [f"op:{op.op}"]


def instruction_keys(instruction: HloInstruction) -> list[str]:
    if instruction.opcode == "fusion" and instruction.fusion_kind:
        return [f"fusion:{instruction.fusion_kind}", "hlo:fusion"]
    if instruction.opcode == "custom-call" and instruction.custom_call_target:
        return [f"custom-call:{instruction.custom_call_target}", "hlo:custom-call"]
    return [f"hlo:{instruction.opcode}"]


def kernel_keys(kernel: KernelRecord) -> list[str]:
    return [f"kernel:{kernel.kind}"]


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
