"""ARM capture overhead: the ahead-of-time worker for `arm:cortex-a76` against the plain AOT calls it wraps (issue 38).

Usage: python bench/bench_arm.py [--model mnist_cnn] [--target arm:cortex-a76] [--repeat 3]
Each round runs two fresh processes, alternating (XLA reads its flags once per process, so neither can
reuse the other's):
  plain:   import TensorFlow, build the model, trace it at the fixed signature, freeze it
           (`convert_variables_to_constants_v2`), write the tf2xla config and call `_pywrap_tfcompile.Compile`
           for the row's triple and CPU, with XLA's dump on (the files the capture reads);
  capture: `python -I -m explorer.capture.aot_worker` with the request the orchestrator sends (the same
           calls, plus reading the dump: HLO, buffer assignment, live ranges, the object disassembled and
           split per kernel, every file written, the protocol's events).
Prints the medians and the ratio capture / plain (goal: at most 1.3x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The plain calls, as saved_model_cli's aot_compile_cpu makes them (without its SavedModel round trip).
PLAIN = r'''
import os, sys
dump, model_name, target = sys.argv[1], sys.argv[2], sys.argv[3]
os.environ["XLA_FLAGS"] = (f"--xla_dump_to={dump} --xla_dump_hlo_as_text --xla_cpu_multi_thread_eigen=false "
                           "--xla_cpu_experimental_ynn_fusion_type=")
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["KERAS_BACKEND"] = "tensorflow"
import tensorflow as tf
from tensorflow.compiler.tf2xla import tf2xla_pb2
from tensorflow.python import _pywrap_tfcompile
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
from explorer.targets import TARGETS
from sample_models import SAMPLES
model = SAMPLES[model_name].build()
specs = [tf.TensorSpec([1, *t.shape[1:]], t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
concrete = tf.function(lambda *x: model(x[0] if len(x) == 1 else list(x), training=False),
                       jit_compile=True).get_concrete_function(*specs)
frozen = convert_variables_to_constants_v2(concrete)
config = tf2xla_pb2.Config()
for t in frozen.inputs:
    config.feed.append(tf2xla_pb2.Feed(id=tf2xla_pb2.TensorId(node_name=t.op.name, output_index=t.value_index),
                                       name="feed_" + t.op.name, type=t.dtype.as_datatype_enum,
                                       shape=t.shape.as_proto()))
for i, t in enumerate(frozen.outputs):
    config.fetch.append(tf2xla_pb2.Fetch(id=tf2xla_pb2.TensorId(node_name=t.op.name, output_index=t.value_index),
                                         name=f"fetch_{i}", type=t.dtype.as_datatype_enum, shape=t.shape.as_proto()))
out = os.path.dirname(dump)
open(os.path.join(out, "g.pb"), "wb").write(frozen.graph.as_graph_def().SerializeToString())
open(os.path.join(out, "c.pbtxt"), "w").write(str(config))
spec = TARGETS[target]
_pywrap_tfcompile.Compile(graph=os.path.join(out, "g.pb"), config=os.path.join(out, "c.pbtxt"), cpp_class="Model",
                          target_triple=spec.llvm("mtriple"), target_cpu=spec.llvm("mcpu"), target_features="",
                          entry_point="entry", out_function_object=os.path.join(out, "m.o"),
                          out_header=os.path.join(out, "m.h"), out_metadata_object=os.path.join(out, "m_meta.o"),
                          out_constant_buffers_object=os.path.join(out, "m_const.o"), gen_name_to_index=True,
                          gen_program_shape=False)
'''


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def plain(model: str, target: str, folder: Path) -> float:
    work = Path(tempfile.mkdtemp(dir=folder))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", PLAIN, str(work / "dump"), model, target], cwd=ROOT, check=True,
                   env={**_environment(), "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - start


def capture(model: str, target: str, signature: list, folder: Path) -> float:
    work = Path(tempfile.mkdtemp(dir=folder))
    request = {"model": model, "cwd": str(ROOT), "signature": signature, "target": target,
               "out_dir": str(work / "targets" / target.replace(":", "-")), "exit_with_parent": False}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-I", "-m", "explorer.capture.aot_worker"], cwd=work,
                            input=json.dumps(request) + "\n", capture_output=True, text=True, check=True,
                            env={**_environment(), "TMPDIR": str(work)})
    elapsed = time.perf_counter() - start
    done = [json.loads(line) for line in result.stdout.splitlines() if '"level_done"' in line]
    assert len(done) == 4, result.stdout  # every level of the target, or the comparison means nothing
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mnist_cnn")
    parser.add_argument("--target", default="arm:cortex-a76")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    signature = {"mnist_cnn": [["image", [1, 28, 28, 1], "float32"]], "mlp": [["features", [1, 64], "float32"]]}
    if args.model not in signature:
        parser.error(f"--model: one of {', '.join(signature)}")
    folder = Path(tempfile.mkdtemp(prefix="tensorweg-bench-arm-"))
    plain(args.model, args.target, folder)  # warm the disk cache of the wheels
    plain_times, capture_times = [], []
    for _ in range(args.repeat):
        plain_times.append(plain(args.model, args.target, folder))
        capture_times.append(capture(args.model, args.target, signature[args.model], folder))
    p, c = statistics.median(plain_times), statistics.median(capture_times)
    print(f"{args.model} for {args.target}: plain AOT calls {p:.2f} s, capture worker {c:.2f} s "
          f"(median of {args.repeat}); ratio {c / p:.2f}x (goal <= 1.3x)")


if __name__ == "__main__":
    main()
