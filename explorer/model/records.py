"""Captured data for every level except HLO itself (see `explorer.hlo.model`).

All records are frozen dataclasses that round-trip through JSON
(`explorer.model.serial`), so the capture workers write them and the UI reads them
without importing any compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

# --- Python source ---------------------------------------------------------


@dataclass(frozen=True)
class SourceLine:
    """One Python line recorded by a capture worker (`explorer.capture.source_lines`).

    file: relative to its package root (site-packages) or to the user's module folder;
        any other file is `<path>/<file name>`, never absolute.
    text: the line as it read at capture time, stripped ("" when it could not be read).
    """

    file: str
    line: int
    function: str = ""
    text: str = ""


# --- Level 1: Keras layers -------------------------------------------------


@dataclass(frozen=True)
class LayerRecord:
    """One Keras layer; nested models are flattened and `path` keeps the nesting.

    name: the layer's own name (unique within the model, used as the key).
    path: `outer_model/inner_model/layer` for nested layers, else the name.
    inbound: names of the layers whose outputs feed this one (graph edges).
    flops: estimated floating point operations for one forward pass at the
        captured batch size, or None where no well-defined estimate exists.
    """

    name: str
    path: str
    class_name: str
    input_shapes: tuple[tuple[int | None, ...], ...]
    output_shapes: tuple[tuple[int | None, ...], ...]
    dtype_policy: str
    trainable_params: int
    non_trainable_params: int
    weight_bytes: int
    activation_bytes: int
    flops: int | None = None
    inbound: tuple[str, ...] = ()
    # A `module:function` model: where the user's function called the layer (outermost first;
    # files relative to the module's folder); () for every other kind of model and older bundles.
    called_at: tuple[SourceLine, ...] = ()

    @property
    def params(self) -> int:
        return self.trainable_params + self.non_trainable_params


# --- Level 2: TensorFlow graph ---------------------------------------------


@dataclass(frozen=True)
class TensorSpecRecord:
    """A model input's or output's shape (None for an unknown size or rank) and dtype."""

    shape: tuple[int | None, ...] | None  # None: unknown rank
    dtype: str


@dataclass(frozen=True)
class GraphOp:
    """One op of the traced (or Grappler-optimised) inference graph.

    layer: the Keras layer this op belongs to ("" when none, e.g. inputs).
    attributes: key attributes as display strings (data_format, strides, ...).
    kernel_devices: device types with a registered kernel for `op` (CPU, GPU,
        XLA_CPU_JIT, ...).
    source: the Python lines that created the op while TensorFlow traced it, from the layer's
        `call` down to the last line outside TensorFlow (outermost first); only on the traced
        graph's ops of a layer that compute (older bundles: ()).
    """

    name: str
    op: str
    inputs: tuple[str, ...]
    outputs: tuple[TensorSpecRecord, ...]
    layer: str = ""
    attributes: tuple[tuple[str, str], ...] = ()
    kernel_devices: tuple[str, ...] = ()
    source: tuple[SourceLine, ...] = ()


@dataclass(frozen=True)
class GrapplerSummary:
    """What Grappler changed between the traced and the optimised graph."""

    ops_before: int
    ops_after: int
    removed: tuple[str, ...] = ()  # op names gone after optimisation
    added: tuple[str, ...] = ()  # op names that only exist after (folded/fused)
    fused: tuple[str, ...] = ()  # names of ops whose type is a fused kernel
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GraphLevel:
    """Level 2: the traced graph's ops, and Grappler's optimised graph where it was captured."""

    ops: tuple[GraphOp, ...]
    optimized_ops: tuple[GraphOp, ...] = ()
    grappler: GrapplerSummary | None = None


# --- Level 4 (memory): buffer assignment -----------------------------------


@dataclass(frozen=True)
class AssignedValue:
    """A value (instruction output, or part of a tuple) placed in an allocation."""

    instruction: str
    shape_index: str  # e.g. "{}" or "{0}"
    offset: int
    size: int
    shape: str = ""


@dataclass(frozen=True)
class Allocation:
    """One buffer allocation from XLA's buffer assignment.

    kind: as XLA prints it, summarised: "parameter", "output", "constant",
        "thread-local", "temp", "preallocated-temp", "maybe-live-out" (several
        may apply; `flags` keeps them all).
    """

    index: int
    size: int
    kind: str
    flags: tuple[str, ...] = ()
    parameter_number: int | None = None
    values: tuple[AssignedValue, ...] = ()


@dataclass(frozen=True)
class LiveRange:
    """When a value is live, in program order (instruction positions)."""

    value: str
    start: int
    end: int


@dataclass(frozen=True)
class MemoryLevel:
    """A target's buffer assignment: XLA's allocations, the peak, the live ranges and its report."""

    allocations: tuple[Allocation, ...]
    peak_bytes: int
    live_ranges: tuple[LiveRange, ...] = ()
    report: str = ""  # XLA's memory usage report text, normalised
    # jax `compiled.memory_analysis()` figures where captured (GPU/TPU).
    analysis: tuple[tuple[str, int], ...] = ()
    # Where `peak_bytes` and `live_ranges` come from: "xla" (XLA's own
    # HloLiveRange output) or "derived" (computed by explorer.model.buffer_assignment
    # from the optimized HLO's program order); "" when unknown.
    peak_source: str = ""
    live_ranges_source: str = ""


# --- Level 5: kernels ------------------------------------------------------


@dataclass(frozen=True)
class LaunchShape:
    """A GPU kernel launch: grid and block dimensions, shared memory."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_memory_bytes: int = 0


@dataclass(frozen=True)
class PtxasReport:
    """What `ptxas -v` says about one GPU kernel compiled for a real architecture.

    arch: the `-arch` it was compiled for (`sm_90a`), taken from the PTX's `.target`.
    registers: registers per thread (ptxas decides; at most 255).
    spill_store_bytes, spill_load_bytes: bytes per thread spilled to local memory and read back.
    stack_frame_bytes: per-thread stack (local memory) frame.
    shared_memory_bytes: static shared memory per block (`smem`); the launch adds dynamic shared memory.
    constant_memory_bytes: bytes of the kernel's parameter/constant bank (`cmem[0]`).
    barriers: named barriers the kernel uses.
    """

    arch: str
    registers: int
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    stack_frame_bytes: int = 0
    shared_memory_bytes: int = 0
    constant_memory_bytes: int = 0
    barriers: int = 0


@dataclass(frozen=True)
class KernelRecord:
    """One emitted kernel (or runtime library call) of one target.

    hlo: names of the optimized-HLO instructions (usually one fusion) it implements.
    kind: "fusion", "library" (a call into a runtime library: Eigen, oneDNN,
        cuDNN, cuBLAS), "triton", "emitter" (e.g. XLA:CPU's dot emitter), ...
    vector_width_bits: widest SIMD register used (128 xmm, 256 ymm, 512 zmm).
    library_calls: symbols of runtime routines it calls.
    """

    name: str
    hlo: tuple[str, ...]
    kind: str = "fusion"
    llvm_ir: str = ""
    llvm_ir_optimized: str = ""
    asm: str = ""
    ptx: str = ""
    vector_width_bits: int = 0
    vector_registers: tuple[str, ...] = ()
    library_calls: tuple[str, ...] = ()
    launch: LaunchShape | None = None
    # GPU: the machine code (SASS) ptxas made of `ptx` for the target's real
    # architecture, normalised (addresses kept, encodings dropped), and its
    # `ptxas -v` report; `sass_note` says why there is none (tools missing, ptxas failed).
    sass: str = ""
    ptxas: PtxasReport | None = None
    sass_note: str = ""
    # What the reader should know that the fields cannot say (e.g. TPU records
    # are program steps: XLA:TPU emits no inspectable machine code).
    notes: str = ""


@dataclass(frozen=True)
class CostAnalysis:
    """XLA's cost analysis of the optimized module, as it reports it (`extras`: its other keys)."""

    flops: float = 0.0
    bytes_accessed: float = 0.0
    transcendentals: float = 0.0
    extras: tuple[tuple[str, float], ...] = ()


# --- Manifest --------------------------------------------------------------


@dataclass(frozen=True)
class LevelStatus:
    """Per level and target: "ok", "failed" (with XLA's or TF's message),
    "unavailable" (e.g. libtpu not installed) or "pending"."""

    status: str
    error: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class ModelIdentity:
    """Which model a bundle holds: as the user named it, its kind, its Keras name, its file's hash."""

    spec: str  # what the user passed, normalised (sample name, file name)
    kind: str  # "sample", "keras", "h5", "savedmodel", "function"
    name: str  # the Keras model's name
    sha256: str = ""


# The largest input captured, in elements per input (batch included): the cpu level
# runs the model once on zeros, so a bigger input would only exhaust memory.
MAX_INPUT_ELEMENTS = 1 << 28


# What is compiled: one inference call, or one training step (forward, loss, backward,
# optimizer update). The names are the CLI's `--mode`, `--optimizer` and `--shard` values.
MODES = ("inference", "train")
OPTIMIZERS = ("adam", "sgd")
SHARDINGS = ("data", "model")
# `--dtype`: a Keras dtype policy applied to every layer of the model (keras.DTypePolicy names);
# "" keeps each layer's own policy.
DTYPES = ("float32", "bfloat16", "mixed_bfloat16", "float16", "mixed_float16")
# `--quantize`: the modes of Keras's `model.quantize` a capture offers (the int8 a deployment runs).
QUANTIZATIONS = ("int8",)


@dataclass(frozen=True)
class CaptureOptions:
    """What a capture compiles; everything but `targets` is part of the cache key.

    mode: one of MODES. optimizer: one of OPTIMIZERS (train mode only, else "").
    remat: recompute activations in the backward pass instead of keeping them (train only).
    mesh: "" (one chip) or the device grid, e.g. "2x2"; shard: how the work is
    divided over it (one of SHARDINGS; "" without a mesh).
    """

    targets: tuple[str, ...] = ("cpu",)
    batch: int = 1
    input_shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    unsafe: bool = False
    passes: bool = False  # per-pass HLO snapshots (the filmstrip); part of the cache key
    mode: str = "inference"
    optimizer: str = ""
    mesh: str = ""
    shard: str = ""
    remat: bool = False  # train mode: the forward pass recomputed in the backward (jax.checkpoint)
    # --layout-map FILE (shard "model"): the file's rules, (regex, mesh axis or None per dimension),
    # and its name for messages; the rules, not the path, make a different file a different bundle.
    layout_map: tuple[tuple[str, tuple[str | None, ...]], ...] = ()
    layout_map_file: str = ""
    # The what-if variants (explorer.capture.variants): a dtype policy for every layer ("" = the
    # model's own), remat of the leaf layers whose name matches (train only), and curated XLA flags
    # as (name, value) pairs, sorted by name.
    dtype: str = ""
    remat_layers: str = ""
    xla_flags: tuple[tuple[str, str], ...] = ()
    # Train mode: the step's weights, state and optimizer state donated (jax.jit donate_argnums), so
    # XLA may write the new values over the old; False keeps both copies live (--no-donate).
    donate: bool = True
    # The int8 variant a deployment runs: Keras's `model.quantize(mode)` before the compile ("" = as trained).
    quantize: str = ""

    def without_targets(self) -> CaptureOptions:
        """What decides how the model compiles, whatever the target: a bundle grows by targets
        only while this stays the same (the cache key and `-o DIR` compare it)."""
        return replace(self, targets=())


@dataclass(frozen=True)
class Manifest:
    """`manifest.json`: the model, the capture's options and tools, each level's status, the inputs."""

    schema_version: int
    model: ModelIdentity
    options: CaptureOptions
    tools: tuple[tuple[str, str], ...]
    # (target, level) -> status; target "" for the target-independent levels
    levels: tuple[tuple[str, str, LevelStatus], ...] = ()
    inputs: tuple[tuple[str, tuple[int, ...], str], ...] = field(default=())

    def status(self, level: str, target: str = "") -> LevelStatus:
        for t, lvl, st in self.levels:
            if t == target and lvl == level:
                return st
        return LevelStatus("pending")
