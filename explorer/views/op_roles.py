"""What a TensorFlow op (or a layer) does for its layer, read from its type: one reading shared by
the drawn graph's legend (its colours) and Enter (which of a layer's ops it lands on).

Roles: `input` (data comes in), `constant` (a value or a weight read: the plumbing around the
work), `work` (the heavy computation: a convolution, a matrix multiply, a pooling), `other`.
A loop (`While`, TensorFlow's recurrent layers run their steps in one) holds its layer's work.
"""

from __future__ import annotations

INPUT_OPS = frozenset({"InputLayer", "Placeholder", "_Arg"})
CONSTANT_OPS = frozenset({"Const", "ReadVariableOp", "VarHandleOp", "Identity"})
# Types holding a layer's steps: a recurrent layer's time loop, a conditional's branches.
LOOP_OPS = frozenset({"While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase"})
_WORK_WORDS = ("Conv", "MatMul", "Dense", "Einsum", "Pool", "Softmax", "LSTM", "GRU", "Attention", "BatchMatMul")
# The same in XLA's opcodes (`TargetProgram.work`'s vocabulary): a loop or a conditional holds the work.
LOOP_WORK = frozenset({"while", "conditional"})


def op_role(kind: str) -> str:
    """The legend's role of a TensorFlow op type or a Keras layer class."""
    if kind in INPUT_OPS:
        return "input"
    if kind in CONSTANT_OPS:
        return "constant"
    return "work" if any(word in kind for word in _WORK_WORDS) else "other"


def op_rank(kind: str) -> int:
    """How much of its layer's work an op of this type does, for Enter to land on the most:
    2 a loop holding the steps, 1 heavy work, 0 anything else, -1 input or constant plumbing."""
    if kind in LOOP_OPS:
        return 2
    role = op_role(kind)
    return {"work": 1, "other": 0}.get(role, -1)
