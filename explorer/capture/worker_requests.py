"""What a capture worker is started with: its one-line JSON request and its environment.

The TensorFlow worker loads the model (layers, graph, the cpu target) and writes its Keras config
(`model.json`) and inputs (`signature.json`) into the staging directory; each GPU, TPU or TVM
target's worker compiles from those, without TensorFlow. The ahead-of-time worker (an ARM target)
loads the model itself, weights and all (they become constants), at the same signature. The keys each
worker reads are checked on its side (`check_request` in `tf_worker`, `jax_worker`, `tvm_worker`,
`aot_worker`). Which capture options each request carries is the rows' `workers`
(explorer.capture.option_table), each under its field's name.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.capture.model_source import ModelSource
from explorer.capture.option_table import CAPTURE_OPTIONS, Worker
from explorer.capture.staging_manifest import SIGNATURE_FILE, Signature
from explorer.model.bundle import target_dirname
from explorer.model.records import CaptureOptions
from explorer.model.serial import from_jsonable, load_json
from explorer.targets import get_target

TENSORFLOW_WORKER = "explorer.capture.tf_worker"
# Started beside the TensorFlow worker with its request, where `previews_layers` says so.
LAYERS_PREVIEW_WORKER = "explorer.capture.layers_preview_worker"
# The worker module of each row's `worker` (explorer.targets.spec.WORKERS) that compiles from model.json.
TARGET_WORKERS = {"jax": "explorer.capture.jax_worker", "tvm": "explorer.capture.tvm_worker",
                  "aot": "explorer.capture.aot_worker"}


def tensorflow_request(source: ModelSource, options: CaptureOptions, staging: Path, cpu: bool) -> dict:
    """The TensorFlow worker's request: the model, its options, and whether it compiles the cpu target."""
    return {
        "model": source.spec,
        "cwd": os.getcwd(),
        "staging_dir": str(staging),
        "targets": ["cpu"] if cpu else [],
        # Always: a GPU/TPU target added to this bundle later compiles from it, without TensorFlow.
        "architecture": True,
        **_options_request(options, Worker.TENSORFLOW),  # model.json carries --dtype on
    }


def previews_layers(source: ModelSource, options: CaptureOptions) -> bool:
    """Whether the layers preview worker runs beside the TensorFlow worker: for a built-in sample (built
    the same on either backend, no file or user code to load twice) whose layers are captured as built
    (`--dtype` and `--quantize` are applied by the TensorFlow worker alone)."""
    return source.kind == "sample" and not options.dtype and not options.quantize


def accelerator_request(source: ModelSource, options: CaptureOptions, staging: Path,
                        target: str) -> tuple[str, dict]:
    """The worker module compiling `target` once the TensorFlow worker fixed the signature (Keras-on-JAX
    for GPU/TPU, TVM, XLA's ahead-of-time compiler for ARM) and its request; makes the target's folder
    in `staging`, where it writes."""
    out_dir = staging / "targets" / target_dirname(target)
    out_dir.mkdir(parents=True, exist_ok=True)
    signature = load_json(Signature, staging / SIGNATURE_FILE)
    # The cpu row's own worker is TensorFlow's; what TensorFlow does not compile for it (a training step,
    # a mesh) is compiled by Keras-on-JAX, as for the accelerators.
    module = TARGET_WORKERS.get(get_target(target).worker, TARGET_WORKERS["jax"])
    return module, {
        # The ahead-of-time worker loads the model as the TensorFlow worker does (its weights are frozen in).
        "model": source.spec, "cwd": os.getcwd(),
        "model_file": str(staging / "model.json"),
        "signature": [[name, list(shape), dtype] for name, shape, dtype in signature],
        "target": target,
        "out_dir": str(out_dir),
        # What is compiled (explorer.capture.jax_step_capture): inference or a training step, one chip or a mesh.
        **_options_request(options, Worker.ACCELERATOR),
    }


def _options_request(options: CaptureOptions, worker: Worker) -> dict:
    """The options `worker` reads, each under its field's name (the rows' `workers`, explorer.capture.option_table)."""
    return {row.field: row.request(getattr(options, row.field)) for row in CAPTURE_OPTIONS if worker in row.workers}


def request_options(request: dict) -> CaptureOptions:
    """The options of a target worker's request (accelerator_request) as `CaptureOptions`, for its one target;
    an option the request lacks takes the field's default (a request written before it existed)."""
    data = {row.field: request[row.field] for row in CAPTURE_OPTIONS
            if Worker.ACCELERATOR in row.workers and row.field in request}
    return from_jsonable(CaptureOptions, {**data, "targets": [request["target"]]}, "request")


def worker_environment(work: Path) -> dict[str, str]:
    """The workers' environment: temporary files, Keras's home and compiler logs go into `work`, inside
    the staging directory (removed with it), never into the user's home or /tmp; no PYTHON* variable."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update({
        "TMPDIR": str(work), "TMP": str(work), "TEMP": str(work),  # tempfile, autograph, jax's dump folders
        "KERAS_HOME": str(work / "keras"),  # keras.json is written on first import
        "TPU_LOG_DIR": str(work),  # libtpu's tpu_logs
        "CUDA_CACHE_PATH": str(work / "cuda-cache"),
    })
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env
