"""The HLO data model: what the parser produces and every level reads.

Frozen dataclasses only; no behaviour beyond small derived properties, so the
same objects can be written to a bundle as JSON and read back by the UI.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.hlo.element_bits import ELEMENT_BITS  # here too: Shape sizes its arrays with it


@dataclass(frozen=True)
class Tile:
    """One tile of a tiled layout, e.g. `(8,128)`; `-1`-style combine dims kept as written."""

    dims: tuple[int, ...]


@dataclass(frozen=True)
class Layout:
    """An array layout: `{1,0:T(8,128)(2,1)S(1)}`.

    minor_to_major: dimension numbers, fastest-varying first.
    tiles: the tiling, outermost tile first, as written.
    memory_space: the `S(n)` value (0 = default device memory; on TPU 1 = VMEM).
    extras: any other layout attributes kept verbatim (e.g. `E(8)`, `P(...)`).
    """

    minor_to_major: tuple[int, ...]
    tiles: tuple[Tile, ...] = ()
    memory_space: int = 0
    extras: tuple[str, ...] = ()


@dataclass(frozen=True)
class Shape:
    """An HLO shape: an array, a tuple of shapes, a token or opaque.

    For arrays, `dims` are the sizes and `dynamic` marks `<=` bounded dims.
    For tuples, `element_type == "tuple"` and `tuple_shapes` holds the parts.
    For buffers (`b(f32[16])`), `element_type == "buffer"` and `tuple_shapes`
    holds the one array the buffer holds.
    """

    element_type: str
    dims: tuple[int, ...] = ()
    dynamic: tuple[bool, ...] = ()
    layout: Layout | None = None
    tuple_shapes: tuple[Shape, ...] = ()

    @property
    def is_tuple(self) -> bool:
        return self.element_type == "tuple"

    @property
    def is_buffer(self) -> bool:
        return self.element_type == "buffer"

    @property
    def element_count(self) -> int:
        count = 1
        for d in self.dims:
            count *= d
        return count

    @property
    def byte_size(self) -> int:
        """Bytes of the array data without padding (sum over parts for tuples)."""
        if self.is_tuple or self.is_buffer:
            return sum(s.byte_size for s in self.tuple_shapes)
        bits = ELEMENT_BITS.get(self.element_type, 0)
        return (self.element_count * bits + 7) // 8


@dataclass(frozen=True)
class Metadata:
    """The `metadata={...}` of an instruction: where it came from."""

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0
    extras: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HloInstruction:
    """One instruction of an HLO computation.

    operands: names of operand instructions (without `%`).
    called_computations: names of computations this instruction calls
        (fusion `calls=`, `to_apply=`, while `condition=`/`body=`, branches...).
    attributes: every other `key=value` attribute, verbatim, in order.
    backend_config: the raw `backend_config` value (JSON text on GPU/TPU), or "".
    custom_call_target: for `custom-call`, the target name, else "".
    fusion_kind: for `fusion`, e.g. `kLoop`, `kInput`, `kOutput`, `kCustom`, else "".
    line: 1-based line in the module text where the instruction is written.
    """

    name: str
    opcode: str
    shape: Shape
    operands: tuple[str, ...] = ()
    called_computations: tuple[str, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()
    metadata: Metadata = field(default_factory=Metadata)
    backend_config: str = ""
    custom_call_target: str = ""
    fusion_kind: str = ""
    is_root: bool = False
    line: int = 0

    def attribute(self, key: str, default: str = "") -> str:
        for k, v in self.attributes:
            if k == key:
                return v
        return default


@dataclass(frozen=True)
class HloComputation:
    """A named computation; `is_entry` for the module's entry computation.

    The entry is the one marked `ENTRY`, or, as XLA reads a module without
    the keyword, the last computation. A body written inline as an attribute
    value (`to_apply={...}`) becomes a computation of its own named `_`,
    `_.1`, ... as XLA names it. `execution_thread` is XLA's `}, execution_thread="host"`.
    """

    name: str
    instructions: tuple[HloInstruction, ...]
    is_entry: bool = False
    is_fusion: bool = False  # called by a fusion instruction (set by the parser)
    line: int = 0
    execution_thread: str = "main"

    @property
    def root(self) -> HloInstruction | None:
        for instruction in self.instructions:
            if instruction.is_root:
                return instruction
        return self.instructions[-1] if self.instructions else None

    def readers(self) -> dict[str, tuple[str, ...]]:
        """Instruction -> the instructions of this computation that read its result, in program order
        (each once, however many of its operands name it). Built on each call: cache it by identity."""
        table: dict[str, list[str]] = {}
        for instruction in self.instructions:
            for operand in dict.fromkeys(instruction.operands):
                table.setdefault(operand, []).append(instruction.name)
        return {name: tuple(names) for name, names in table.items()}


@dataclass(frozen=True)
class HloModule:
    """A parsed HLO module (text as XLA prints it)."""

    name: str
    computations: tuple[HloComputation, ...]
    entry_computation_layout: str = ""
    attributes: tuple[tuple[str, str], ...] = ()

    @property
    def entry(self) -> HloComputation | None:
        for computation in self.computations:
            if computation.is_entry:
                return computation
        return None

    def computation(self, name: str) -> HloComputation | None:
        for computation in self.computations:
            if computation.name == name:
                return computation
        return None

    def all_instructions(self):
        """Yield (computation, instruction) over the whole module in text order."""
        for computation in self.computations:
            for instruction in computation.instructions:
                yield computation, instruction
