"""Result shapes of instructions written without one, as XLA's parser infers them.

Hand-written HLO (XLA's own tests) may leave out an instruction's result shape:
`c = compare(a, b), direction=LT`. XLA's parser then asks its ShapeInference.
This covers the simple cases of it (elementwise ops, compare, select, clamp,
tuple, get-tuple-element); for the rest the parser reports a ParseError asking
for the shape, rather than guessing.
"""

from __future__ import annotations

from explorer.hlo.model import Shape

# Unary ops whose result is their operand's shape.
_SAME_AS_OPERAND = frozenset({
    "abs", "ceil", "floor", "negate", "sign", "not", "exponential", "exponential-minus-one",
    "log", "log-plus-one", "logistic", "sqrt", "cbrt", "rsqrt", "tanh", "tan", "sine", "cosine",
    "erf", "round-nearest-afz", "round-nearest-even", "count-leading-zeros", "popcnt", "copy",
    "opt-barrier",
})
# Binary ops over two operands of the same shape (or one of them a scalar).
_ELEMENTWISE_BINARY = frozenset({
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder", "and",
    "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "atan2",
    "complex", "compare",
})
_COMPLEX_OF = {"f32": "c64", "f64": "c128"}
_REAL_OF = {"c64": "f32", "c128": "f64"}
# XLA's CanInferShape: the opcodes it types without a written shape. Any other
# (fusion, custom-call, constant, parameter, convert...) needs one in XLA too.
XLA_INFERS = _SAME_AS_OPERAND | _ELEMENTWISE_BINARY | frozenset({
    "add-dependency", "after-all", "batch-norm-grad", "batch-norm-inference", "batch-norm-training",
    "broadcast", "call", "cholesky", "clamp", "concatenate", "conditional", "convolution", "domain",
    "dot", "fft", "gather", "get-dimension-size", "set-dimension-size", "get-tuple-element", "imag",
    "is-finite", "map", "pad", "partition-id", "ragged-dot", "real", "reduce", "replica-id",
    "reverse", "scatter", "select", "reduce-window", "select-and-scatter", "sort", "transpose",
    "triangular-solve", "tuple", "while", "topk", "sinh", "cosh", "acos", "acosh", "asin", "asinh",
    "atanh",
})
INFERRED_OPCODES = "elementwise ops, compare, select, clamp, tuple and get-tuple-element"


def infer_shape(opcode: str, operands: list[Shape], attributes: list[tuple[str, str]]) -> Shape | None:
    """The shape XLA would infer for `opcode` over `operands`, or None where this does not know it."""
    if opcode == "tuple":
        return Shape("tuple", tuple_shapes=tuple(operands))
    if opcode == "get-tuple-element":
        if len(operands) == 1 and operands[0].is_tuple:
            index = dict(attributes).get("index", "")
            if index.isdigit() and int(index) < len(operands[0].tuple_shapes):
                return operands[0].tuple_shapes[int(index)]
        return None
    if any(s.is_tuple for s in operands):
        return None
    if opcode in _SAME_AS_OPERAND and len(operands) == 1:
        return operands[0]
    if opcode in ("is-finite", "real", "imag") and len(operands) == 1:
        (operand,) = operands
        kind = "pred" if opcode == "is-finite" else _REAL_OF.get(operand.element_type, "")
        return Shape(kind, operand.dims, operand.dynamic, operand.layout) if kind else None
    if opcode in ("select", "clamp") and len(operands) == 3:
        return operands[1]
    if opcode in _ELEMENTWISE_BINARY and len(operands) == 2:
        lhs, rhs = operands
        result = lhs if lhs.dims == rhs.dims or not rhs.dims else rhs if not lhs.dims else None
        if result is None:
            return None
        kind = {"compare": "pred", "complex": _COMPLEX_OF.get(lhs.element_type, "")}.get(opcode, lhs.element_type)
        return Shape(kind, result.dims, result.dynamic, result.layout) if kind else None
    return None
