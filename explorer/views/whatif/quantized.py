"""The int8 variant (`--vary quantize=none,int8`): which layers Keras quantized and which stayed float, the
weight bytes each saved, and what the target's compiler made of each integer dot.

Read from the two bundles only: the layers' dtype policies and weight bytes (layers.json: a quantized
Dense is `int8_from_float32`), and on the target the integer `dot`s of the quantized variant, as traced
(the `hlo` level: `s32[1,10] dot(s8[1,1352], s8[1352,10])`) and after XLA's passes (the optimized
module: operands still s8, or widened to s32 first), with the integer multiply instructions its
kernel's listing holds, counted. The int8 dot-product instructions of the target's instruction set
(x86's VNNI `vpdpbusd`, Arm's `sdot`) are reported as found or as absent from that listing: never
claimed without it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from explorer.capture import listing
from explorer.hlo.model import HloComputation, HloInstruction, HloModule
from explorer.model.bundle import Bundle
from explorer.model.memo import derived
from explorer.targets import TARGETS
from explorer.views import trace
from explorer.views.items import shape_text

# Integer multiplies an int8 dot may become, per instruction set (mnemonics as the listings write them).
INTEGER_MULTIPLIES = {
    listing.X86_64: ("vpdpbusd", "vpdpbusds", "vpdpwssd", "vpdpwssds", "vpmaddubsw", "vpmaddwd", "vpmulld",
                     "vpmullw", "vpmuldq", "imul"),
    listing.AARCH64: ("sdot", "udot", "usdot", "smmla", "smull", "smull2", "smlal", "smlal2", "mla", "mul", "madd"),
}
# The instruction that multiplies int8 pairs and adds them into 32-bit lanes in one step.
INT8_DOT_INSTRUCTIONS = {listing.X86_64: ("vpdpbusd",), listing.AARCH64: ("sdot",)}
_INTEGERS = frozenset({"s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"})


@dataclass(frozen=True)
class LayerPrecision:
    """One layer in both variants: its dtype policy and weight bytes (quantized: `int8_from_float32`)."""

    layer: str
    class_name: str
    policy_before: str
    policy_after: str
    weight_bytes_before: int
    weight_bytes_after: int

    @property
    def quantized(self) -> bool:
        return self.policy_after != self.policy_before and "int8" in self.policy_after


@dataclass(frozen=True)
class IntegerDot:
    """One integer dot of the quantized variant on the target.

    traced: the dot in the module before optimisation; optimized: after XLA's passes ("" when XLA left no
    dot of that layer), inside `fusion` when fused; widened: the optimized dot's operands are no longer s8;
    constant: the shape of a weight operand XLA folded into a constant of the optimized program (weights
    frozen ahead of time), "" otherwise;
    instructions: the integer multiplies its kernel's listing holds, (mnemonic, count);
    int8_dot_found / int8_dot_absent: the ISA's int8 dot-product instruction, in the listing or not.
    """

    layer: str
    traced: str
    optimized: str
    fusion: str
    widened: bool
    constant: str
    constant_bytes: int
    kernel: str
    instructions: tuple[tuple[str, int], ...]
    int8_dot_found: tuple[str, ...]
    int8_dot_absent: tuple[str, ...]


@dataclass(frozen=True)
class Quantization:
    mode: str  # the quantized variant's `--quantize` (int8)
    layers: tuple[LayerPrecision, ...]
    dots: tuple[IntegerDot, ...]

    @property
    def weight_bytes(self) -> tuple[int, int]:
        return (sum(p.weight_bytes_before for p in self.layers), sum(p.weight_bytes_after for p in self.layers))


def quantization(before: Bundle, after: Bundle, target: str) -> Quantization | None:
    """The int8 side of a diff whose second variant is quantized and whose first is not; None otherwise."""
    mode = after.manifest.options.quantize
    if not mode or before.manifest.options.quantize:
        return None
    layers = tuple(LayerPrecision(a.name, a.class_name, a.dtype_policy, b.dtype_policy, a.weight_bytes, b.weight_bytes)
                   for a, b in zip(before.layers, after.layers, strict=True) if a.weight_bytes or b.weight_bytes)
    return Quantization(mode, layers, integer_dots(after, target))


def integer_dots(bundle: Bundle, target: str) -> tuple[IntegerDot, ...]:
    """The target's dots that read an integer operand before optimisation, each with what it became."""
    traced_module = bundle.hlo_module(target, optimized=False)
    optimized_module = bundle.hlo_module(target, optimized=True)
    if traced_module is None or optimized_module is None:
        return ()
    spec = TARGETS.get(target)
    isa = spec.isa if spec is not None else ""
    optimized = _dots_by_layer(bundle, optimized_module, "optimized-hlo", target)
    found = []
    for computation, dot in _dots(traced_module):
        operands = _operand_types(computation, dot)
        if not operands & {"s8", "u8"}:
            continue
        layer = trace.layer_of(bundle, "hlo", dot.name, target)
        after = optimized.get(layer, [])
        top, (after_computation, after_dot) = after[0] if after else ("", (None, None))
        record = next((k for k in bundle.kernels(target) if top and top in k.hlo), None)
        counts = _mnemonics(record.asm, isa) if record is not None else Counter()
        multiplies = tuple((m, counts[m]) for m in INTEGER_MULTIPLIES.get(isa, ()) if counts[m])
        dedicated = INT8_DOT_INSTRUCTIONS.get(isa, ())
        found.append(IntegerDot(
            layer=layer, traced=_dot_text(computation, dot),
            # The computation and its dot are both there (what it became) or both None (nothing did).
            optimized=_dot_text(after_computation, after_dot)
            if after_computation is not None and after_dot is not None else "",
            fusion=top if after_dot is not None and top != after_dot.name else "",
            widened=after_computation is not None and after_dot is not None
            and not _operand_types(after_computation, after_dot) & {"s8", "u8"},
            **_constant_operand(after_computation, after_dot),
            kernel=record.name if record is not None else "", instructions=multiplies,
            int8_dot_found=tuple(m for m in dedicated if counts[m]),
            int8_dot_absent=tuple(m for m in dedicated if record is not None and record.asm and not counts[m])))
    return tuple(found)


def _dots(module: HloModule) -> list[tuple[HloComputation, HloInstruction]]:
    return [(computation, instruction) for computation, instruction in module.all_instructions()
            if instruction.opcode == "dot" and instruction.shape.element_type in _INTEGERS]


def _dots_by_layer(bundle: Bundle, module: HloModule, level: str,
                   target: str) -> dict[str, list[tuple[str, tuple[HloComputation, HloInstruction]]]]:
    """layer -> [(the top-level instruction holding an integer dot, (its computation, the dot))]."""
    callers = derived(module, "fusion callers", lambda: {
        name: instruction.name for _c, instruction in module.all_instructions()
        if instruction.opcode == "fusion" for name in instruction.called_computations})
    found: dict[str, list] = {}
    for computation, dot in _dots(module):
        top = callers.get(computation.name, dot.name)
        layer = trace.layer_of(bundle, level, top, target)
        found.setdefault(layer, []).append((top, (computation, dot)))
    return found


def _operand_types(computation: HloComputation, instruction: HloInstruction) -> set[str]:
    by_name = {i.name: i for i in computation.instructions}
    return {by_name[o].shape.element_type for o in instruction.operands if o in by_name}


def _constant_operand(computation: HloComputation | None, dot: HloInstruction | None) -> dict:
    """The dot's constant operand (`s32[1352,10]`: the weights, frozen and widened) and its bytes; none: "", 0."""
    by_name = {i.name: i for i in computation.instructions} if computation is not None else {}
    constants = [by_name[o] for o in dot.operands if o in by_name and by_name[o].opcode == "constant"] if dot else []
    if not constants:
        return {"constant": "", "constant_bytes": 0}
    return {"constant": shape_text(constants[0].shape), "constant_bytes": constants[0].shape.byte_size}


def _dot_text(computation: HloComputation, dot: HloInstruction) -> str:
    """`MatMul.4 = s32[1,10] dot(s8[1,1352], s8[1352,10])`: the dot with its operands' shapes."""
    by_name = {i.name: i for i in computation.instructions}
    operands = ", ".join(shape_text(by_name[o].shape) if o in by_name else o for o in dot.operands)
    return f"{dot.name} = {shape_text(dot.shape)} dot({operands})"


def _mnemonics(asm: str, isa: str) -> Counter:
    return Counter(line.mnemonic for text in asm.splitlines() if (line := listing.read_line(text, isa)) is not None)
