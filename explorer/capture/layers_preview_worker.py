"""The layers preview worker: a sample's layers level on Keras-on-JAX, while TensorFlow still loads.

Run as `python -m explorer.capture.layers_preview_worker` with the TensorFlow worker's request on
stdin (`worker_requests.tensorflow_request`: model, cwd, staging_dir, batch, input_shapes), beside
the TensorFlow worker, which reports every level as always: its layers.json replaces this one
(`explorer.capture.jax_layers` says what is the same and what comes later).

It writes layers.json only as a new file (`explorer.atomic_file`, no overwrite), so one the
TensorFlow worker wrote first is never replaced by it, and reports one `level_done` for layers.
Anything that goes wrong is logged and reported as nothing at all: the orchestrator treats this
worker as optional (`capture_run.CaptureRun`), and the TensorFlow worker says what the level is.
TensorFlow is kept out of this process (Keras's `set_random_seed` would import it to seed it).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

from explorer.capture.protocol import ProtocolWriter, read_request, take_over_stdout

LAYERS_FILE = "layers.json"


def prepare_environment() -> None:
    """Before JAX or Keras load: the JAX backend on the CPU, and no TensorFlow at all."""
    os.environ["KERAS_BACKEND"] = "jax"
    os.environ["JAX_PLATFORMS"] = "cpu"
    sys.modules["tensorflow"] = None  # type: ignore[assignment]  # `import tensorflow` raises ImportError


def run(request: dict, protocol: ProtocolWriter) -> int:
    prepare_environment()
    from explorer.atomic_file import write_whole  # noqa: PLC0415 (after the environment: nothing of Keras before it)
    from explorer.capture.jax_layers import previewed_layer_records  # noqa: PLC0415 (as write_whole)
    from explorer.errors import TensorwegError  # noqa: PLC0415 (as write_whole)
    from explorer.model.serial import to_jsonable  # noqa: PLC0415 (as write_whole)

    protocol.level_started("layers")
    shapes = {name: tuple(dims) for name, dims in (request.get("input_shapes") or {}).items()}
    try:
        records = previewed_layer_records(str(request["model"]), request.get("cwd"),
                                          int(request.get("batch", 1)), shapes)
        text = json.dumps(to_jsonable(records), separators=(",", ":"))
        write_whole(Path(request["staging_dir"]) / LAYERS_FILE, text, overwrite=False)
    except TensorwegError as error:  # bad input (the TensorFlow worker says it), or its layers.json came first
        print(f"tensorweg: no layers preview: {error}", file=sys.stderr)
        return 0
    protocol.level_done("layers")
    return 0


def main() -> int:
    protocol = ProtocolWriter(take_over_stdout())
    try:
        return run(read_request(), protocol)
    except Exception:  # never more than a line in the log: the TensorFlow worker reports the level
        print("tensorweg: the layers preview failed:", file=sys.stderr)
        traceback.print_exc()
        return 0


if __name__ == "__main__":
    from explorer.capture.exit import exit_now

    exit_now(main())
