"""XLA's full list of HLO opcodes, as data: every one needs a course text in both languages.

Source: `HLO_OPCODE_LIST` in openxla/xla `xla/hlo/ir/hlo_opcode.h`
(https://github.com/openxla/xla/blob/main/xla/hlo/ir/hlo_opcode.h), read at commit
0725a3a9904e1c244c69f381bdd32df2fe1dac20. These are the names HLO text prints
(`kExp` prints as `exponential`). When XLA adds an opcode, add it here; the test
`tests/test_course_texts.py` then asks for its texts.
"""

from __future__ import annotations

HLO_OPCODES: tuple[str, ...] = (
    "abs", "acos", "acosh", "add", "add-dependency", "after-all",
    "all-gather", "all-gather-done", "all-gather-start",
    "all-reduce", "all-reduce-done", "all-reduce-start", "all-to-all",
    "and", "asin", "asinh", "async-done", "async-start", "async-update",
    "atan", "atan2", "atanh",
    "batch-norm-grad", "batch-norm-inference", "batch-norm-training",
    "bitcast", "bitcast-convert", "broadcast", "call", "cbrt", "ceil", "cholesky", "clamp",
    "count-leading-zeros", "collective-broadcast", "collective-permute",
    "collective-permute-done", "collective-permute-start", "collective-reduce",
    "compare", "complex", "concatenate", "conditional", "constant", "convert", "convolution",
    "copy", "copy-done", "copy-start", "cosine", "cosh", "custom-call", "divide", "domain", "dot",
    "dynamic-reshape", "dynamic-slice", "dynamic-update-slice",
    "erf", "exponential", "exponential-minus-one", "fft", "floor", "fusion", "gather",
    "get-dimension-size", "get-tuple-element", "imag", "infeed", "iota", "is-finite",
    "log", "log-plus-one", "logistic", "map", "maximum", "minimum", "mulhi", "multiply",
    "negate", "not", "opt-barrier", "or", "outfeed", "pad", "parameter", "partition-id",
    "popcnt", "power", "ragged-all-to-all", "ragged-dot", "real", "recv", "recv-done",
    "reduce", "reduce-precision", "reduce-scatter", "reduce-window", "remainder",
    "replica-id", "reshape", "reverse", "rng", "rng-bit-generator", "rng-get-and-update-state",
    "round-nearest-afz", "round-nearest-even", "rsqrt", "scaled-dot", "scan", "scatter",
    "select", "select-and-scatter", "send", "send-done", "set-dimension-size",
    "shift-left", "shift-right-arithmetic", "shift-right-logical", "shuffle", "sign", "sine",
    "sinh", "slice", "sort", "sqrt", "stochastic-convert", "subtract", "tan", "tanh", "topk",
    "transpose", "triangular-solve", "tuple", "while", "xor",
)

# Custom-call targets and fusion kinds learners meet in XLA's output (captures and
# XLA's GPU/TPU/CPU backends); each needs its own text too.
CUSTOM_CALL_TARGETS: tuple[str, ...] = (
    "AllocateBuffer", "AssumeGatherIndicesInBound",
    "__cudnn$convForward", "__cudnn$convBiasActivationForward",
    "__cublas$gemm", "__cublas$lt$matmul", "__cudnn$fmha", "cu_threefry2x32",
    "tpu_custom_call", "MoveToHost", "MoveToDevice", "Sharding", "__onednn$",
    # a GPU training step of a convolution, and the edges of per-device code (shard_map)
    "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter", "SPMDFullToShardShape", "SPMDShardToFullShape",
    # seen in the samples' captures (tests/fixtures/custom_calls_seen.json): a sliced prefetch on the TPU,
    # and the QR decomposition of Keras's orthogonal initializer (TPU: XLA's own; GPU: cuSOLVER via jaxlib)
    "ConcatBitcast", "Qr", "ProductOfElementaryHouseholderReflectors", "cusolver_geqrf", "cusolver_orgqr",
    # a TPU collective split into a start and a done (a model-parallel training step on a mesh)
    "AsyncCollectiveStart", "AsyncCollectiveDone",
    # common beyond the samples (issue 37): XLA's top-k call (XLA:CPU keeps it), JAX's pinned buffers,
    # and cuDNN's layer norm (XLA:GPU with xla_gpu_enable_cudnn_layer_norm)
    "TopK", "Pin", "Unpin", "__cudnn$norm",
)

# Targets that come in families (`__cudnn$fmhaSoftmax`, `__onednn$matmul`, ...): one text each.
CUSTOM_CALL_FAMILIES: tuple[str, ...] = ("__cudnn$fmha", "__onednn$")

# Versioned names of a target that has a text: current jaxlib registers its GPU kernels through
# XLA's FFI under an `_ffi` suffix. Listed name by name, not as a suffix rule, so that a new
# `_ffi` target without a text of its own fails the coverage test instead of borrowing one.
CUSTOM_CALL_VERSIONS: dict[str, str] = {
    "cu_threefry2x32_ffi": "cu_threefry2x32",
    "cusolver_geqrf_ffi": "cusolver_geqrf",
    "cusolver_orgqr_ffi": "cusolver_orgqr",
}


def custom_call_names(target: str) -> list[str]:
    """The names whose `custom-call:` text may explain a call to `target`, most specific first: the
    target itself, the target it is a version of (`cu_threefry2x32_ffi` -> `cu_threefry2x32`), then
    its family (`__cudnn$fmhaSoftmax` -> `__cudnn$fmha`). The explanation pane and `tensorweg explain`
    both ask this, so a name a listing shows finds the text the pane shows for it."""
    version_of = [CUSTOM_CALL_VERSIONS[target]] if target in CUSTOM_CALL_VERSIONS else []
    family = [f for f in CUSTOM_CALL_FAMILIES if target.startswith(f) and target != f]
    return [target, *version_of, *family]

FUSION_KINDS: tuple[str, ...] = ("kLoop", "kInput", "kOutput", "kCustom")

# Backend configs of kCustom fusions (`"kind":"__triton"` ...), keyed `custom-fusion:NAME`.
CUSTOM_FUSION_KINDS: tuple[str, ...] = (
    "__triton", "__triton_gemm", "__triton_nested_gemm_fusion", "__custom_fusion", "__cudnn$fusion",
    "__ynn_fusion",  # XLA:CPU's YNNPACK fusions (`fusion_config`, not `fusion_backend_config`)
)

KERNEL_KINDS: tuple[str, ...] = ("fusion", "op", "library", "copy", "emitter", "triton", "memset")

# Attributes learners read on screen, keyed `attribute:NAME` (see keys.attribute_keys).
ATTRIBUTES: tuple[str, ...] = (
    "triton_gemm_config", "precision_config", "window", "dim_labels",
    "cross_program_prefetch_index", "cudnn-scratch",
)
