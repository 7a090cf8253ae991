"""A stand-in for the capture workers: the real protocol, no compiler, behaviour from $TENSORWEG_FAKE_WORKER.

Run as `python -I fake_worker.py <module>` (tests point `orchestrator.worker_command` here).
Behaviours: ok, sigkill (killed after the layers level), exit_early (ends 0 after layers),
remove_staging (deletes the staging folder after layers), all_fail (every level fails with a
TensorFlow-style preamble), hang (waits after layers, its pid in $TENSORWEG_FAKE_PIDS),
fatal (bad input), noisy (stray stdout lines), slow_ok (like ok, a little slower),
path_error (the graph level fails with absolute paths in its message),
hostile_error (the graph level fails with terminal escapes in its message, as a layer name can carry),
accelerator_sigkill (the GPU/TPU worker is killed, the TensorFlow worker finishes),
crash (an uncaught exception after the layers level: a traceback, exit status 1),
slow_accelerator (each GPU/TPU level takes a moment: racing growers overlap),
accelerator_hang (the GPU/TPU worker waits after its first level: a grow in progress),
accelerator_all_fail (every level of the GPU/TPU target fails, as TVM fails an LSTM's),
accelerator_fatal (the GPU/TPU worker refuses the model as bad input, as for a training step with
nothing to train, while the TensorFlow worker is still busy with its graph level),
no_space_abort (the TensorFlow worker aborts like XLA when its dump finds the disk full),
no_space_level (the cpu levels fail with Python's full-disk error),
no_space_logged (XLA logs a dump it could not write and every level still finishes).
The layers preview worker's stand-in does nothing unless asked: preview_first (its layers.json, one
record named `previewed`, comes while the TensorFlow worker waits for it, which then writes its own),
preview_killed (it is killed before reporting anything), preview_then_layers_fail (its layers come
first, then the TensorFlow worker's layers level fails), preview_listed (it only leaves its pid);
with a preview_ behaviour its pid lands in $TENSORWEG_FAKE_PIDS too.
"""

import json
import os
import signal
import sys
import time
from pathlib import Path

from explorer.capture.protocol import ProtocolWriter, one_line, read_request, take_over_stdout

TARGET_LEVELS = ("hlo", "optimized-hlo", "kernels", "memory")
TARGET_FILES = {"hlo": "hlo.txt", "optimized-hlo": "optimized_hlo.txt", "kernels": "kernels.json",
                "memory": "memory.json"}
# What each stand-in level file holds: the smallest content its real reader accepts
# (the HLO levels are read from their text, so they get a real, tiny module).
_MODULE = "HloModule stand_in\n\nENTRY main {\n  ROOT x = f32[4]{0} parameter(0)\n}\n"
LEVEL_TEXT = {"hlo": _MODULE, "optimized-hlo": _MODULE, "kernels": "[]",
              "memory": '{"allocations": [], "peak_bytes": 0}'}
TF_PREAMBLE = ("in user code:\n\n    File \"<path>/model.py\", line 3, in call\n        return x\n\n"
               "    ValueError: Exception encountered when calling Functional.call().\n\n"
               "    Input 0 of layer \"dense\" is incompatible with the layer: expected axis -1 to have value 4\n\n"
               "    Arguments received by Functional.call():\n      • inputs=tf.Tensor(shape=(1, 3))\n")
XLA_NO_SPACE = ("E0000 00:00:1796196461.799018   17091 dump.cc:253] Could not write XLA debug data to "
                "<path>/module_0001.a_inference.mlir: RESOURCE_EXHAUSTED: <path>/module_0001.a_inference.mlir; "
                "No space left on device\n")
PYTHON_NO_SPACE = "OSError: [Errno 28] No space left on device: '/cache/.staging-1-x/targets/cpu/.kernels.json.tmp'"
TVM_LOOP = ("ONNX export or TVM import failed: OpNotImplemented: The following operators are not supported "
            "for frontend ONNX: Loop")
NOTHING_TO_TRAIN = "nothing to train: the model has no trainable weights; capture it without --mode train"
HOSTILE_ERROR = ("layer 'd\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x07\x9b31m\u202ecod' "
                 "is incompatible")


PREVIEWED = [{"name": "previewed", "path": "previewed", "class_name": "Dense", "input_shapes": [[1, 4]],
              "output_shapes": [[1, 2]], "dtype_policy": "float32", "trainable_params": 10,
              "non_trainable_params": 0, "weight_bytes": 40, "activation_bytes": 8}]


def main() -> int:
    behaviour = os.environ.get("TENSORWEG_FAKE_WORKER", "ok")
    if sys.argv[1].endswith("layers_preview_worker"):
        return preview(behaviour)
    pids = os.environ.get("TENSORWEG_FAKE_PIDS")
    if pids:
        Path(pids, f"{os.getpid()}.pid").write_text(sys.argv[1])
    protocol = ProtocolWriter(take_over_stdout())
    request = read_request()
    if behaviour == "fatal":
        protocol.fatal("unknown model 'nothing': not a file")
        return 2
    if sys.argv[1].endswith("jax_worker"):
        return accelerator(request, protocol, behaviour)
    staging = Path(request["staging_dir"])
    layers_level(request, staging, protocol)
    if behaviour == "exit_early":
        return 0
    misbehave_after_layers(behaviour, staging, protocol)
    if request.get("architecture"):
        (staging / "model.json").write_text("{}")
    if not graph_level(behaviour, staging, protocol):
        return 0
    if "cpu" in request.get("targets", []):
        cpu_levels(behaviour, staging, protocol)
    return 0


def preview(behaviour: str) -> int:
    """The layers preview worker's stand-in (the real one writes layers.json only as a new file)."""
    if not behaviour.startswith("preview_"):
        return 0
    Path(os.environ["TENSORWEG_FAKE_PIDS"], f"{os.getpid()}.pid").write_text(sys.argv[1])
    if behaviour == "preview_listed":
        return 0
    protocol = ProtocolWriter(take_over_stdout())
    request = read_request()
    if behaviour == "preview_killed":
        os.kill(os.getpid(), signal.SIGKILL)
    protocol.level_started("layers")
    write(Path(request["staging_dir"]) / "layers.json", json.dumps(PREVIEWED))
    protocol.level_done("layers")
    return 0


def layers_level(request: dict, staging: Path, protocol: ProtocolWriter) -> None:
    """What the TensorFlow worker writes first, plus the facts the tests check about how it was started."""
    facts = {"isolated": sys.flags.isolated, "cwd": os.getcwd(), "tmpdir": os.environ.get("TMPDIR"),
             "keras_home": os.environ.get("KERAS_HOME"), "tpu_log_dir": os.environ.get("TPU_LOG_DIR"),
             "request": request}
    (staging / "worker_facts.json").write_text(json.dumps(facts))
    (staging / "identity.json").write_text(json.dumps({"spec": "mlp", "kind": "sample", "name": "fake"}))
    (staging / "signature.json").write_text(json.dumps([["x", [1, 4], "float32"]]))
    protocol.level_started("layers")
    behaviour = os.environ.get("TENSORWEG_FAKE_WORKER", "ok")
    if behaviour in ("preview_first", "preview_then_layers_fail"):  # TensorFlow is still loading
        while not (staging / "layers.json").is_file():
            time.sleep(0.01)
        time.sleep(0.3)  # the preview's rows are read before these come
    if behaviour == "preview_then_layers_fail":
        protocol.level_failed("layers", "the stand-in's layers broke")
        return
    write(staging / "layers.json", "[]")
    protocol.level_done("layers")


def misbehave_after_layers(behaviour: str, staging: Path, protocol: ProtocolWriter) -> None:
    if behaviour == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if behaviour == "crash":
        raise RuntimeError("the stand-in broke")
    if behaviour == "remove_staging":
        import shutil

        shutil.rmtree(staging)
    if behaviour == "hang":
        time.sleep(600)
    if behaviour == "noisy":
        os.write(protocol.stream.fileno(), b"a stray line from C++\n")
    if behaviour in ("no_space_abort", "no_space_logged"):
        sys.stderr.write(XLA_NO_SPACE)
        sys.stderr.flush()
    if behaviour == "no_space_abort":
        os.abort()


def graph_level(behaviour: str, staging: Path, protocol: ProtocolWriter) -> bool:
    """The graph level as `behaviour` asks; False when every level failed (the worker ends there)."""
    protocol.level_started("graph")
    if behaviour == "hostile_error":  # CSI 2J is what `one_line` strips itself; the rest reaches the orchestrator
        protocol.level_failed("graph", HOSTILE_ERROR)
    elif behaviour == "path_error":
        protocol.level_failed("graph", f"cannot read {staging}/targets/x.json from "
                                       "/usr/lib/python3/site-packages/keras/src/ops.py")
    elif behaviour == "accelerator_fatal":
        time.sleep(30)  # the orchestrator stops this worker as soon as the accelerator's fatal arrives
        Path(os.environ["TENSORWEG_FAKE_PIDS"], "graph-finished").write_text("")
        write(staging / "graph.json", '{"ops": []}')
        protocol.level_done("graph")
    elif behaviour == "all_fail":
        protocol.level_failed("graph", "tracing the model failed: " + one_line(TF_PREAMBLE))  # as tf_worker
        for level in TARGET_LEVELS:
            protocol.level_failed(level, TF_PREAMBLE, "cpu")
        return False
    else:
        write(staging / "graph.json", '{"ops": []}')
        protocol.level_done("graph")
    return True


def cpu_levels(behaviour: str, staging: Path, protocol: ProtocolWriter) -> None:
    cpu = staging / "targets" / "cpu"
    cpu.mkdir(parents=True, exist_ok=True)
    for level in TARGET_LEVELS:
        protocol.level_started(level, "cpu")
        if behaviour == "slow_ok":
            time.sleep(0.2)
        if behaviour == "no_space_level":
            protocol.level_failed(level, PYTHON_NO_SPACE, "cpu")
            continue
        write(cpu / TARGET_FILES[level], LEVEL_TEXT[level])
        protocol.level_done(level, "cpu")


def accelerator(request: dict, protocol: ProtocolWriter, behaviour: str) -> int:
    out_dir = Path(request["out_dir"])
    protocol.target = request["target"]
    if behaviour == "accelerator_sigkill":
        protocol.level_started("hlo")
        os.kill(os.getpid(), signal.SIGKILL)
    if behaviour == "accelerator_fatal":
        protocol.level_started("hlo")
        protocol.fatal(NOTHING_TO_TRAIN)
        return 2
    if behaviour == "accelerator_all_fail":
        for level in TARGET_LEVELS:
            protocol.level_failed(level, TVM_LOOP)
        return 0
    for level in TARGET_LEVELS:
        protocol.level_started(level)
        if behaviour == "slow_accelerator":
            time.sleep(0.3)
        if behaviour == "accelerator_hang" and level == "optimized-hlo":
            time.sleep(600)
        write(out_dir / TARGET_FILES[level], LEVEL_TEXT[level])
        protocol.level_done(level)
    return 0


def write(path: Path, text: str) -> None:
    path.write_text(text)


if __name__ == "__main__":
    try:
        code = main()
    except Exception:
        import traceback

        traceback.print_exc()
        code = 1
    sys.stderr.flush()
    os._exit(code)
