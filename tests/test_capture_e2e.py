"""End to end: the real TensorFlow and XLA compilers, through the CLI and the orchestrator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from explorer.capture.events import LevelCaptured, LevelStarted
from explorer.capture.orchestrator import CaptureCancelled, capture
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

pytestmark = pytest.mark.e2e

SAMPLES = ("mnist_cnn", "mlp", "lstm", "tiny_transformer", "resnet_block", "depthwise")
CPU = CaptureOptions(targets=("cpu",))


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=900)


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_captures_all_cpu_levels(sample, tmp_path):
    events = []
    path = capture(sample, CPU, out_dir=tmp_path / "bundle", on_event=events.append)
    bundle = Bundle.open(path)
    for level in ("layers", "graph"):
        assert bundle.status(level).status == "ok", bundle.status(level)
    for level in ("hlo", "optimized-hlo", "kernels", "memory"):
        assert bundle.status(level, "cpu").status == "ok", (level, bundle.status(level, "cpu"))
    assert bundle.layers and bundle.graph.ops
    optimized = bundle.hlo_module("cpu", optimized=True)
    assert optimized is not None and optimized.entry is not None
    assert bundle.kernels("cpu"), "XLA:CPU emitted no kernel?"
    assert bundle.memory("cpu").allocations
    started = {(e.level, e.target) for e in events if isinstance(e, LevelStarted)}
    assert ("layers", "") in started and ("hlo", "cpu") in started
    # Nothing in a bundle may carry an absolute path or a run-specific hash.
    for file in path.rglob("*"):
        if file.is_file() and file.suffix in (".txt", ".json", ".log"):
            text = file.read_text(errors="replace")
            assert str(tmp_path) not in text and os.path.expanduser("~") + "/" not in text, file
            assert "config_proto_" not in text, file


def test_capture_cli_prints_progress_then_bundle_path_and_caches(tmp_path):
    env_cache = {**os.environ, "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "mlp", "--targets", "cpu"],
                           capture_output=True, text=True, env=env_cache, timeout=900)
    assert first.returncode == 0, first.stderr
    bundle_path = Path(first.stdout.strip().splitlines()[-1])
    assert (bundle_path / "manifest.json").is_file()
    assert "captured  hlo [cpu]" in first.stderr
    assert "tensorflow" not in first.stderr.lower() or "warning" not in first.stderr.lower()
    second = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "mlp", "--targets", "cpu"],
                            capture_output=True, text=True, env=env_cache, timeout=900)
    assert second.returncode == 0
    assert second.stdout.strip().splitlines()[-1] == str(bundle_path)
    assert "cached" in second.stderr and "capturing" not in second.stderr


def test_inspect_json_carries_the_documented_fields(tmp_path):
    bundle = capture("mnist_cnn", CPU, out_dir=tmp_path / "b")
    docs = {}
    for level in ("layers", "graph", "hlo", "optimized-hlo", "kernels", "memory"):
        result = run_cli("inspect", str(bundle), "--level", level, "--json")
        assert result.returncode == 0, result.stderr
        docs[level] = json.loads(result.stdout)
    layer = next(row for row in docs["layers"]["layers"] if row["class"] == "Conv2D")
    assert {"name", "class", "output_shape", "params", "weight_bytes"} <= layer.keys()
    assert layer["params"] == 3 * 3 * 1 * layer["output_shape"][-1] + layer["output_shape"][-1]
    conv_ops = [o for o in docs["graph"]["ops"] if o["op"] == "Conv2D"]
    assert conv_ops and conv_ops[0]["layer"] == layer["name"]
    for level in ("hlo", "optimized-hlo"):
        instructions = docs[level]["instructions"]
        assert all({"name", "opcode", "shape", "computation", "layer"} <= i.keys() for i in instructions)
        convolutions = [i for i in instructions if i["opcode"] == "convolution"]
        assert convolutions and convolutions[0]["layer"] == layer["name"]
    assert any("fusion_kind" in i for i in docs["optimized-hlo"]["instructions"])
    kernels = docs["kernels"]["kernels"]
    assert all({"name", "hlo", "layer", "llvm_ir", "asm"} <= k.keys() for k in kernels)
    assert any(k["asm"] for k in kernels)
    memory = docs["memory"]
    assert memory["peak_bytes"] > 0
    assert all({"index", "size", "kind", "values"} <= a.keys() for a in memory["allocations"])
    text = run_cli("inspect", str(bundle), "--level", "layers")
    assert text.returncode == 0 and layer["name"] in text.stdout


def test_cancelled_capture_leaves_nothing_behind(tmp_path):
    cancel = threading.Event()

    def cancel_when_started(event):
        if isinstance(event, LevelStarted):
            cancel.set()

    with pytest.raises(CaptureCancelled):
        capture("mnist_cnn", CPU, out_dir=tmp_path / "b", on_event=cancel_when_started, cancel=cancel)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content, fragment",
    [(os.urandom(4096), "x.keras"), (b"", "x.keras")],
    ids=["random-bytes", "empty"],
)
def test_corrupt_model_file_is_one_line_error(tmp_path, content, fragment):
    model = tmp_path / "x.keras"
    model.write_bytes(content)
    result = run_cli("capture", str(model), "--targets", "cpu", "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: ") and fragment in lines[-1], result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["x.keras"]


def test_lambda_layer_needs_unsafe(tmp_path):
    script = tmp_path / "make_lambda.py"
    model = tmp_path / "lam.keras"
    script.write_text(
        "import keras\n"
        "inp = keras.Input((4,))\n"
        "out = keras.layers.Lambda(lambda t: t * 2.0, name='doubler')(inp)\n"
        f"keras.Model(inp, out).save({str(model)!r})\n"
    )
    subprocess.run([sys.executable, str(script)], check=True, capture_output=True, timeout=300)
    refused = run_cli("capture", str(model), "--targets", "cpu", "-o", str(tmp_path / "out"))
    assert refused.returncode == 2
    assert "doubler" in refused.stderr and "--unsafe" in refused.stderr
    allowed = run_cli("capture", str(model), "--targets", "cpu", "--unsafe", "-o", str(tmp_path / "out"))
    assert allowed.returncode == 0, allowed.stderr
    assert "warning" in allowed.stderr


def test_module_function_model(tmp_path):
    (tmp_path / "mymodels.py").write_text(
        "import keras\n"
        "def build():\n"
        "    inp = keras.Input((8,))\n"
        "    return keras.Model(inp, keras.layers.Dense(3, name='head')(inp), name='mine')\n"
    )
    result = run_cli("inspect", "mymodels:build", "--level", "layers", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    names = [layer["name"] for layer in json.loads(result.stdout)["layers"]]
    assert "head" in names


def test_model_xla_cannot_compile_fails_in_one_line_naming_the_op_and_caches_nothing(tmp_path):
    """A string op has no XLA kernel: the only target asked for compiled nothing, so the capture is
    refused with XLA's own reason (the op it could not compile) and nothing is cached (issue 23:
    a capture whose every requested target failed is never cached)."""
    (tmp_path / "strmodels.py").write_text(
        "import keras, tensorflow as tf\n"
        "class AsString(keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        return tf.strings.to_number(tf.strings.as_string(x))\n"
        "def build():\n"
        "    inp = keras.Input((4,))\n"
        "    return keras.Model(inp, AsString(name='as_string')(inp))\n"
    )
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(TensorwegError, match="every level of cpu failed, nothing was cached") as failure:
            capture("strmodels:build", CPU, out_dir=tmp_path / "b")
    finally:
        os.chdir(cwd)
    assert "AsString" in str(failure.value)  # XLA's reason: the op without an XLA kernel
    assert not (tmp_path / "b").exists()


def test_unknown_bundle_schema_is_refused(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"schema_version": 999}))
    with pytest.raises(TensorwegError, match="schema"):
        Bundle.open(tmp_path)


def test_staging_is_a_readable_bundle_while_levels_arrive(tmp_path):
    """Each LevelCaptured event can be read right away from the staging directory (the UI does)."""
    seen = {}

    def read_staging(event):
        if isinstance(event, LevelCaptured):
            staging = Bundle.open(Path(event.staging_dir))
            seen[(event.level, event.target)] = staging.status(event.level, event.target).status
            if event.level == "layers":
                seen["layers_count"] = len(staging.layers)

    path = capture("mlp", CPU, out_dir=tmp_path / "b", on_event=read_staging)
    assert seen[("layers", "")] == "ok" and seen["layers_count"] > 0
    assert (path / "model.json").is_file(), "a GPU/TPU target added later compiles from it, without TensorFlow"
    assert seen[("optimized-hlo", "cpu")] == "ok"


def test_a_killed_capture_is_cleaned_up_by_the_next(tmp_path):
    """A capture killed outright (terminal gone) leaves a staging folder; the next capture removes it."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    abandoned = tmp_path / f".staging-{dead.stdout.strip()}-abc123"
    abandoned.mkdir()
    (abandoned / "layers.json").write_text("[]")
    capture("mlp", CPU, out_dir=tmp_path / "b")
    assert not abandoned.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]
