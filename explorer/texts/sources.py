"""The documented sources course texts may cite: every address in a text's `source:` line
(and body) must be one of these, or lie under one of the prefixes (ending in `/`).

docs/course-sources.md lists the same entries with what was checked against each;
tests/test_course_texts.py keeps the three in step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from explorer.texts.content_files import LANGUAGES, load_language
from explorer.texts.glossary import glossary

# (what it is, address or address prefix)
SOURCES: tuple[tuple[str, str], ...] = (
    # XLA documentation
    ("XLA architecture", "https://openxla.org/xla/architecture"),
    ("XLA GPU architecture overview", "https://openxla.org/xla/gpu_architecture"),
    ("XLA operation semantics", "https://openxla.org/xla/operation_semantics"),
    ("XLA tiled layout", "https://openxla.org/xla/tiled_layout"),
    ("XLA shapes and layout", "https://openxla.org/xla/shapes"),
    ("XLA tools and debug dumps", "https://openxla.org/xla/tools"),
    ("StableHLO specification", "https://openxla.org/stablehlo/spec"),
    # XLA source files (openxla/xla, main branch)
    ("XLA HLO opcode list", "https://github.com/openxla/xla/blob/main/xla/hlo/ir/hlo_opcode.h"),
    ("XLA HLO instruction classes", "https://github.com/openxla/xla/blob/main/xla/hlo/ir/hlo_instructions.h"),
    ("XLA HloInstruction (FusionKind)", "https://github.com/openxla/xla/blob/main/xla/hlo/ir/hlo_instruction.h"),
    ("XLA HloInstruction (HLO text printing)",
     "https://github.com/openxla/xla/blob/main/xla/hlo/ir/hlo_instruction.cc"),
    ("XLA layout.h (memory spaces)", "https://github.com/openxla/xla/blob/main/xla/layout.h"),
    ("XLA layout assignment", "https://github.com/openxla/xla/blob/main/xla/service/layout_assignment.h"),
    ("XLA buffer assignment", "https://github.com/openxla/xla/blob/main/xla/service/buffer_assignment.h"),
    ("XLA memory space assignment",
     "https://github.com/openxla/xla/blob/main/xla/service/memory_space_assignment/memory_space_assignment.h"),
    ("XLA memory space assignment, sliced prefetch",
     "https://github.com/openxla/xla/blob/main/xla/service/memory_space_assignment/slice.h"),
    ("XLA QR expander", "https://github.com/openxla/xla/blob/main/xla/hlo/transforms/expanders/qr_expander.cc"),
    ("XLA SPMD partitioner", "https://github.com/openxla/xla/blob/main/xla/service/spmd/spmd_partitioner.cc"),
    ("XLA autotuning.proto", "https://github.com/openxla/xla/blob/main/xla/autotuning.proto"),
    ("XLA:CPU runtime thunks", "https://github.com/openxla/xla/tree/main/xla/backends/cpu/runtime"),
    ("XLA:CPU thunk emitter", "https://github.com/openxla/xla/blob/main/xla/service/cpu/thunk_emitter.cc"),
    ("XLA:CPU instruction fusion", "https://github.com/openxla/xla/blob/main/xla/service/cpu/cpu_instruction_fusion.cc"),
    ("XLA:CPU backend configs", "https://github.com/openxla/xla/blob/main/xla/service/cpu/backend_config.proto"),
    ("XLA:CPU YNNPACK matcher", "https://github.com/openxla/xla/blob/main/xla/backends/cpu/transforms/ynn_matcher.h"),
    ("XLA:CPU TopK thunk", "https://github.com/openxla/xla/blob/main/xla/backends/cpu/runtime/topk_thunk.h"),
    ("XLA TopK rewriter", "https://github.com/openxla/xla/blob/main/xla/service/topk_rewriter.h"),
    ("XLA:CPU ir_emission_utils", "https://github.com/openxla/xla/blob/main/xla/service/cpu/ir_emission_utils.cc"),
    ("XLA:CPU oneDNN rewriter", "https://github.com/openxla/xla/blob/main/xla/service/cpu/onednn_ops_rewriter.cc"),
    ("XLA:GPU NVPTX compiler", "https://github.com/openxla/xla/blob/main/xla/service/gpu/nvptx_compiler.cc"),
    ("XLA:GPU custom-call targets", "https://github.com/openxla/xla/blob/main/xla/service/gpu/cublas_cudnn.cc"),
    ("XLA:GPU backend configs", "https://github.com/openxla/xla/blob/main/xla/service/gpu/backend_configs.proto"),
    ("XLA:GPU convolution algorithm picker",
     "https://github.com/openxla/xla/blob/main/xla/service/gpu/autotuning/conv_algorithm_picker.h"),
    ("XLA:GPU copy thunk", "https://github.com/openxla/xla/blob/main/xla/backends/gpu/runtime/copy_thunk.h"),
    ("XLA:GPU memset thunk", "https://github.com/openxla/xla/blob/main/xla/backends/gpu/runtime/memset_thunk.h"),
    ("XLA:GPU thunk emitter", "https://github.com/openxla/xla/blob/main/xla/service/gpu/thunk_emitter.cc"),
    ("XLA:GPU cuDNN norm rewriter",
     "https://github.com/openxla/xla/blob/main/xla/service/gpu/transforms/cudnn_norm_rewriter.h"),
    # JAX
    ("JAX ahead-of-time lowering", "https://docs.jax.dev/en/latest/aot.html"),
    ("JAX lax.Precision", "https://docs.jax.dev/en/latest/_autosummary/jax.lax.Precision.html"),
    ("JAX memories and host offloading", "https://docs.jax.dev/en/latest/notebooks/host-offloading.html"),
    ("JAX Pallas GPU reference", "https://docs.jax.dev/en/latest/pallas/gpu/reference.html"),
    ("JAX Pallas, TPU and its memory spaces", "https://docs.jax.dev/en/latest/pallas/tpu/pipelining.html"),
    ("JAX Pallas TPU quickstart", "https://docs.jax.dev/en/latest/pallas/tpu/quickstart.html"),
    ("JAX cuDNN fused attention",
     "https://github.com/jax-ml/jax/blob/main/jax/_src/cudnn/fused_attention_stablehlo.py"),
    ("JAX Threefry PRNG", "https://github.com/jax-ml/jax/blob/main/jax/_src/random/threefry2x32.py"),
    ("JAX rbg PRNG", "https://github.com/jax-ml/jax/blob/main/jax/_src/random/rbg.py"),
    ("JAX configuration options", "https://github.com/jax-ml/jax/blob/main/jax/_src/config.py"),
    ("JAX state primitives (pin, unpin)", "https://github.com/jax-ml/jax/blob/main/jax/_src/state/primitives.py"),
    ("JAX linear algebra (lax.linalg lowerings)", "https://github.com/jax-ml/jax/blob/main/jax/_src/lax/linalg.py"),
    ("JAX GPU solver kernels (jaxlib)", "https://github.com/jax-ml/jax/blob/main/jaxlib/gpu/solver.cc"),
    ("JAX distributed arrays and automatic parallelization",
     "https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html"),
    ("JAX gradient checkpointing (jax.checkpoint)", "https://docs.jax.dev/en/latest/gradient-checkpointing.html"),
    ("JAX FAQ (buffer donation)", "https://docs.jax.dev/en/latest/faq.html"),
    # TensorFlow and Keras
    ("TensorFlow raw ops", "https://www.tensorflow.org/api_docs/python/tf/raw_ops/"),
    ("TensorFlow guide, Introduction to graphs", "https://www.tensorflow.org/guide/intro_to_graphs"),
    ("TensorFlow guide, Graph optimization with Grappler", "https://www.tensorflow.org/guide/graph_optimization"),
    ("Keras layers API", "https://keras.io/api/layers/"),
    ("Keras initializers", "https://keras.io/api/layers/initializers/"),
    ("Keras optimizers API", "https://keras.io/api/optimizers/"),
    ("Keras distribution API", "https://keras.io/api/distribution/"),
    # Chips
    ("Google Cloud TPU system architecture", "https://cloud.google.com/tpu/docs/system-architecture-tpu-vm"),
    ("Google Cloud TPU v4", "https://cloud.google.com/tpu/docs/v4"),
    ("Google Cloud TPU v5e", "https://cloud.google.com/tpu/docs/v5e"),
    ("Google Cloud TPU v5p", "https://cloud.google.com/tpu/docs/v5p"),
    ("Google Cloud TPU v6e", "https://cloud.google.com/tpu/docs/v6e"),
    ("NVIDIA H100 datasheet", "https://www.nvidia.com/en-us/data-center/h100/"),
    ("NVIDIA A100 datasheet", "https://www.nvidia.com/en-us/data-center/a100/"),
    ("CUDA C++ Programming Guide", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#hardware-implementation"),
    ("CUDA C++ Programming Guide, compute capabilities",
     "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities"),
    ("CUDA C++ Best Practices Guide", "https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/"),
    ("CUDA Binary Utilities (cuobjdump, nvdisasm, SASS instruction set)",
     "https://docs.nvidia.com/cuda/cuda-binary-utilities/"),
    ("NVIDIA CUDA Compiler Driver NVCC (ptxas options)", "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/"),
    ("PTX ISA", "https://docs.nvidia.com/cuda/parallel-thread-execution/"),
    ("Intel 64 and IA-32 Software Developer's Manual",
     "https://www.intel.com/content/www/us/en/developer/articles/technical/intel-sdm.html"),
    # Libraries and compilers
    # The Mosaic TPU passes left JAX's repository after jax-v0.8.1 (now inside libtpu): their last public version.
    ("Mosaic TPU memref layout inference (jax-v0.8.1)",
     "https://github.com/jax-ml/jax/blob/jax-v0.8.1/jaxlib/mosaic/dialect/tpu/transforms/infer_memref_layout.cc"),
    ("NVIDIA cuDNN documentation", "https://docs.nvidia.com/deeplearning/cudnn/"),
    ("NVIDIA cuBLAS documentation", "https://docs.nvidia.com/cuda/cublas/"),
    ("NVIDIA cuSOLVER documentation", "https://docs.nvidia.com/cuda/cusolver/"),
    ("Triton language documentation", "https://triton-lang.org/"),
    ("oneDNN documentation", "https://uxlfoundation.github.io/oneDNN/"),
    ("YNNPACK", "https://github.com/google/XNNPACK/blob/master/ynnpack/README.md"),
    # Apache TVM (the `tvm:cpu` target)
    ("Apache TVM documentation", "https://tvm.apache.org/docs/"),
    ("TVM Relax FuseOps pass", "https://github.com/apache/tvm/blob/main/src/relax/transform/fuse_ops.cc"),
    ("TVM Relax pipelines", "https://github.com/apache/tvm/blob/main/python/tvm/relax/pipeline.py"),
    ("TVM Relax StaticPlanBlockMemory pass",
     "https://github.com/apache/tvm/blob/main/src/relax/transform/static_plan_block_memory.cc"),
)


def is_documented(address: str) -> bool:
    """True when `address` is a documented source or lies under a documented prefix."""
    return any(address == known or (known.endswith("/") and address.startswith(known)) for _, known in SOURCES)

# The what-if lab's narration (explorer/texts/content/*/whatif/): the roofline model's paper.
SOURCES += (
    ("Williams, Waterman, Patterson: Roofline (CACM 52(4), 2009)", "https://doi.org/10.1145/1498765.1498785"),
)

# Compiler passes (the filmstrip's narration, explorer/texts/content/*/pass/). libtpu's
# passes are not public: their texts cite the dump documentation and say what captures show.
SOURCES += (
    ("XLA HLO simplifier passes", "https://github.com/openxla/xla/blob/main/xla/hlo/transforms/simplifiers/"),
    ("XLA HLO transforms", "https://github.com/openxla/xla/blob/main/xla/hlo/transforms/"),
    ("XLA:GPU passes", "https://github.com/openxla/xla/blob/main/xla/service/gpu/transforms/"),
    ("XLA:CPU passes", "https://github.com/openxla/xla/blob/main/xla/service/cpu/"),
    ("XLA service passes", "https://github.com/openxla/xla/blob/main/xla/service/"),
)

# Grappler, the TensorFlow graph's film (explorer/texts/content/*/grappler/): the guide, and the
# optimizers' sources (meta_optimizer.cc gives their order).
SOURCES += (
    ("TensorFlow Grappler optimizers", "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/grappler/optimizers/"),
)

# ARM targets (XLA's ahead-of-time compiler, explorer/texts/content/*/isa|compile|kernel/*@arm) and the
# int8 variant (quant/, whatif/quantize): Arm's architecture manual and the core's optimization guide,
# TensorFlow's tfcompile, Keras's quantization code.
SOURCES += (
    ("Arm Architecture Reference Manual for A-profile", "https://developer.arm.com/documentation/ddi0487/latest/"),
    ("Arm Cortex-A76 Software Optimization Guide",
     "https://developer.arm.com/documentation/pjdoc466751330-7215/latest/"),
    ("TensorFlow saved_model_aot_compile.py",
     "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/tools/saved_model_aot_compile.py"),
    ("TensorFlow ahead-of-time compiler (tfcompile)",
     "https://github.com/tensorflow/tensorflow/tree/master/tensorflow/compiler/aot"),
    ("Keras Model.quantize", "https://github.com/keras-team/keras/blob/master/keras/src/models/model.py"),
    ("Keras Dense (int8 call)", "https://github.com/keras-team/keras/blob/master/keras/src/layers/core/dense.py"),
)

# The upstream revision each cited repository's files were read at, where an address says `main` or
# `master` (an address naming a tag or commit, such as Mosaic's `jax-v0.8.1`, is read at that one).
# tests/test_cited_sources.py checks the cited files the installed packages carry (jax, keras,
# TensorFlow's and TVM's Python); scripts/check_cited_sources.py checks every cited path in a clone.
UPSTREAM_REVISIONS: dict[str, str] = {
    "openxla/xla": "5a9e73cbd92530cac2ac36f4736a774b2412afe2",  # jaxlib 0.10.2's XLA (third_party/xla/revision.bzl)
    "jax-ml/jax": "jax-v0.10.2",
    "tensorflow/tensorflow": "v2.21.0",
    "apache/tvm": "5d4dc8721307cf9677becacf0395c19be130e206",
    "google/XNNPACK": "09ee7303db3e793c9a1953cf67d443aed6ca0574",
    "keras-team/keras": "v3.15.1",  # the installed Keras, whose files tests/test_cited_sources.py reads
}
_BRANCHES = ("main", "master")
_GITHUB = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(blob|tree)/([^/\s]+)/([^\s;,)`\"]*)")


@dataclass(frozen=True)
class CitedPath:
    """A file or folder (`path` ending in `/`) of a GitHub repository that a course text cites."""

    repo: str
    revision: str  # where to read it: the address's own tag or commit, else UPSTREAM_REVISIONS[repo]
    path: str
    address: str


def cited_path(address: str) -> CitedPath | None:
    """The repository path an address names (None for an address outside GitHub)."""
    match = _GITHUB.match(address)
    if match is None:
        return None
    repo, kind, revision, path = match.groups()
    if revision in _BRANCHES:
        revision = UPSTREAM_REVISIONS.get(repo, revision)
    path = path.rstrip(".")
    if kind == "tree" and not path.endswith("/"):  # GitHub's address of a folder
        path += "/"
    return CitedPath(repo, revision, path, address)


def cited_addresses() -> list[str]:
    """Every address the course cites: the documented sources and each text's and glossary entry's."""
    found = [address for _, address in SOURCES]
    for lang in LANGUAGES:
        found += [a for text in load_language(lang).values() for a in _ADDRESS.findall(text.source + " " + text.body)]
        found += [a for entry in glossary(lang) for a in _ADDRESS.findall(entry.definition)]
    return sorted(set(found))


_ADDRESS = re.compile(r"https?://[^\s;,)`\"]+")


# Repository folders an installed package carries as files (its Python sources): (repo, folder, package).
_INSTALLED = (("jax-ml/jax", "jax/", "jax"), ("keras-team/keras", "keras/", "keras"),
              ("tensorflow/tensorflow", "tensorflow/python/", "tensorflow/python"),
              ("apache/tvm", "python/tvm/", "tvm"))


def installed_copy(cited: CitedPath, site_packages: Path) -> Path | None:
    """Where the installed packages hold the cited file (None: no installed package carries it, e.g. C++
    sources, or the address names another revision than the one installed)."""
    for repo, folder, package in _INSTALLED:
        if cited.repo == repo and cited.path.startswith(folder) and cited.revision == UPSTREAM_REVISIONS.get(repo):
            return site_packages / package / cited.path[len(folder):]
    return None
