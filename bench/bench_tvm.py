"""TVM capture overhead: the `tvm:cpu` worker's run against the plain TVM calls it wraps (issue 15).

Usage: python bench/bench_tvm.py [--model mnist_cnn] [--repeat 3]      (needs the `tvm` extra)
In one process (imports warmed first), each round runs, alternating:
  plain:   Keras ONNX export, `relax.frontend.onnx.from_onnx`, `relax.get_pipeline("zero")`,
           `tvm.compile`, and the assembly and LLVM IR of the result;
  capture: `explorer.capture.tvm_worker.run` on the same model (the same calls, plus linking
           the functions to layers, the static memory plan, splitting and writing the files).
Prints the medians and the ratio capture / plain (goal: at most 1.3x).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def plain(model, signature, folder: Path) -> None:
    import onnx
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    from explorer.capture import tvm_compile
    from explorer.targets import TARGETS

    path = folder / "plain.onnx"
    tvm_compile.export_onnx(model, signature, path)
    module = from_onnx(onnx.load(str(path)), shape_dict={name: shape for name, shape, _ in signature})
    module = relax.get_pipeline("zero")(module)
    library = tvm.compile(module, target=tvm_compile.target(TARGETS["tvm:cpu"].llvm_target)).mod.imports[0]
    library.inspect_source("asm"), library.inspect_source("ll")


def capture(model_file: Path, signature, folder: Path) -> None:
    from explorer.capture.protocol import ProtocolWriter
    from explorer.capture.tvm_worker import run

    request = {"model_file": str(model_file), "signature": signature, "target": "tvm:cpu",
               "out_dir": str(folder / f"out-{time.monotonic_ns()}")}
    run(request, ProtocolWriter(io.StringIO(), "tvm:cpu"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import keras

    from explorer.capture import tvm_compile

    from sample_models import SAMPLES

    folder = Path(tempfile.mkdtemp(prefix="tensorweg-bench-tvm-"))
    model = SAMPLES[args.model].build()
    model_file = folder / "model.json"
    model_file.write_text(json.dumps(keras.saving.serialize_keras_object(model)), encoding="utf-8")
    signature = [[t.name.split(":")[0], [1, *t.shape[1:]], t.dtype] for t in model.inputs]
    signature = [[name, list(shape), str(dtype)] for name, shape, dtype in signature]
    plain(tvm_compile.load_keras_model(str(model_file), False), signature, folder)  # warm imports
    plain_times, capture_times = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        plain(tvm_compile.load_keras_model(str(model_file), False), signature, folder)
        plain_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        capture(model_file, signature, folder)
        capture_times.append(time.perf_counter() - start)
    p, c = statistics.median(plain_times), statistics.median(capture_times)
    print(f"{args.model}: plain TVM calls {p:.2f} s, tvm:cpu capture {c:.2f} s, ratio {c / p:.2f}x (goal <= 1.3x)")


if __name__ == "__main__":
    main()
