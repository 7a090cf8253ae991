"""The TensorFlow capture worker's front half: loading, the layers level, the graph level, the process.

Models are built here with the real Keras and saved to tmp_path in every
supported format; nothing is hard-coded as compiler output. Expected values
come from the models themselves (their weights, traced shapes) or from
documented formulas.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture.tf_graph import graph_level_and_film, layer_for_op, trace_model
from explorer.capture.tf_layers import iter_layers, layer_records
from explorer.capture.tf_loading import input_signature, load_model
from explorer.errors import TensorwegError
from explorer.model.graph_file import load_graph_level
from explorer.model.records import LayerRecord, ModelIdentity
from explorer.model.serial import load_json

# Loading models runs Keras on TensorFlow: the whole file belongs to the e2e lane.
pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


def _small_model(name="small"):
    import keras

    keras.utils.set_random_seed(7)
    inputs = keras.Input((6,), name="x")
    hidden = keras.layers.Dense(5, activation="relu", name="hidden")(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name="head")(hidden), name=name)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """One small model in every format the loader accepts, plus the bad cases."""
    import keras
    import tensorflow as tf

    root = tmp_path_factory.mktemp("models")
    model = _small_model()
    model.save(root / "small.keras")
    model.save(root / "small.h5")
    model.export(str(root / "exported"), verbose=False)
    serve = tf.function(lambda x: {"scores": model(x)}).get_concrete_function(
        tf.TensorSpec([None, 6], tf.float32, name="x"))
    tf.saved_model.save(model, str(root / "tf_saved"), signatures=serve)

    inputs = keras.Input((4,), name="x")
    lam = keras.Model(inputs, keras.layers.Lambda(lambda t: t * 2.0, name="doubler")(inputs))
    lam.save(root / "lambda.keras")
    lam.save(root / "lambda.h5")

    class PlusOne(keras.layers.Layer):  # deliberately not registered
        def call(self, x):
            return x + 1.0

    custom = keras.Model(inputs, PlusOne(name="plus_one")(inputs))
    custom.save(root / "custom.keras")
    custom.save(root / "custom.h5")

    (root / "random.keras").write_bytes(os.urandom(2048))
    (root / "empty.h5").write_bytes(b"")
    (root / "not_a_savedmodel").mkdir()
    (root / "not_a_savedmodel" / "notes.txt").write_text("hello")
    return root


# --- loading ---------------------------------------------------------------------


@pytest.mark.parametrize("file_name, kind", [("small.keras", "keras"), ("small.h5", "h5")])
def test_model_files_load_with_identity_over_their_bytes(saved, file_name, kind):
    path = saved / file_name
    model, identity = load_model(str(path), unsafe=False)
    assert identity == ModelIdentity(file_name, kind, "small", hashlib.sha256(path.read_bytes()).hexdigest())
    assert [layer.name for layer in model.layers] == ["x", "hidden", "head"]
    assert input_signature(model, 3, {}) == [("x", (3, 6), "float32")]


@pytest.mark.parametrize("directory", ["exported", "tf_saved"])
def test_saved_models_are_wrapped_around_their_serving_signature(saved, directory):
    model, identity = load_model(str(saved / directory), unsafe=False)
    assert identity.kind == "savedmodel" and identity.spec == directory
    assert len(identity.sha256) == 64
    signature = input_signature(model, 2, {})
    assert signature == [("x", (2, 6), "float32")]
    records = layer_records(model, signature)
    # No Keras layers survive in a SavedModel: the input plus one layer for the signature.
    assert [r.class_name for r in records] == ["InputLayer", "SavedModelSignatureLayer"]
    wrapper = records[1]
    assert wrapper.output_shapes == ((2, 2),)
    assert wrapper.trainable_params == 6 * 5 + 5 + 5 * 2 + 2


def test_saved_model_identity_changes_with_any_file(saved, tmp_path):
    import shutil

    copy = tmp_path / "exported"
    shutil.copytree(saved / "exported", copy)
    _, before = load_model(str(copy), unsafe=False)
    (copy / "assets").mkdir(exist_ok=True)
    (copy / "assets" / "extra.txt").write_text("x")
    _, after = load_model(str(copy), unsafe=False)
    assert before.sha256 != after.sha256


@pytest.mark.parametrize("file_name", ["lambda.keras", "lambda.h5"])
def test_lambda_layer_refused_in_safe_mode_and_loaded_when_unsafe(saved, file_name):
    with pytest.raises(TensorwegError) as refused:
        load_model(str(saved / file_name), unsafe=False)
    message = str(refused.value)
    assert "doubler" in message and "--unsafe" in message and "\n" not in message
    model, _ = load_model(str(saved / file_name), unsafe=True)
    assert "doubler" in [layer.name for layer in model.layers]


@pytest.mark.parametrize("file_name", ["custom.keras", "custom.h5"])
def test_unregistered_custom_layer_is_named(saved, file_name):
    with pytest.raises(TensorwegError, match="custom layer class 'PlusOne'"):
        load_model(str(saved / file_name), unsafe=False)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("random.keras", "random.keras is not a Keras model file"),
        ("empty.h5", "empty.h5 is not a Keras model file"),
        ("missing.keras", "no such file or directory"),
        ("not_a_savedmodel", "not a SavedModel"),
    ],
)
def test_bad_paths_are_one_line_errors(saved, spec, fragment):
    with pytest.raises(TensorwegError) as error:
        load_model(str(saved / spec), unsafe=False)
    assert fragment in str(error.value) and "\n" not in str(error.value)
    assert str(saved) not in str(error.value) or spec == "missing.keras"


def test_unknown_sample_lists_the_samples():
    from sample_models import SAMPLES

    with pytest.raises(TensorwegError) as error:
        load_model("no_such_sample", unsafe=False)
    assert all(name in str(error.value) for name in SAMPLES)


def test_sample_identity_covers_name_and_source():
    import sample_models

    model, identity = load_model("mlp", unsafe=False)
    expected = hashlib.sha256(b"mlp" + Path(sample_models.__file__).read_bytes()).hexdigest()
    assert identity == ModelIdentity("mlp", "sample", model.name, expected)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "user_models.py").write_text(
        "import keras\n"
        "def build():\n"
        "    inp = keras.Input((3,), name='features')\n"
        "    return keras.Model(inp, keras.layers.Dense(2, name='head')(inp), name='mine')\n"
        "def not_a_model():\n"
        "    return 42\n"
        "def broken():\n"
        "    raise RuntimeError('boom')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "user_models", raising=False)  # each test imports its own copy
    return tmp_path / "user_models.py"


def test_module_function_loads_and_hashes_the_module_file(user_module):
    model, identity = load_model("user_models:build", unsafe=False)
    assert model.name == "mine"
    assert identity == ModelIdentity("user_models:build", "function", "mine",
                                     hashlib.sha256(user_module.read_bytes()).hexdigest())


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("no_such_module_xyz:build", "cannot import module 'no_such_module_xyz'"),
        ("user_models:missing", "has no function 'missing'"),
        ("user_models:not_a_model", "returned int, not a keras.Model"),
        ("user_models:broken", "broken() raised RuntimeError: boom"),
    ],
)
def test_bad_module_function_is_one_line_error(user_module, spec, fragment):
    with pytest.raises(TensorwegError) as error:
        load_model(spec, unsafe=False)
    assert fragment in str(error.value) and "\n" not in str(error.value)


# --- input signature -----------------------------------------------------------


def _model_with_free_dims():
    import keras

    tokens = keras.Input((None,), dtype="int32", name="tokens")
    image = keras.Input((None, None, 3), name="image")
    pooled = keras.layers.GlobalAveragePooling2D(name="pool")(image)
    embedded = keras.layers.GlobalAveragePooling1D(name="mean")(keras.layers.Embedding(10, 3, name="emb")(tokens))
    return keras.Model([tokens, image], keras.layers.Add(name="add")([pooled, embedded]), name="free")


def test_input_shapes_fill_free_dims_and_integer_inputs_keep_their_dtype():
    model = _model_with_free_dims()
    signature = input_signature(model, 4, {"tokens": (12,), "image": (8, 8, 3)})
    assert signature == [("tokens", (4, 12), "int32"), ("image", (4, 8, 8, 3), "float32")]


@pytest.mark.parametrize(
    "shapes, fragment",
    [
        ({"tokens": (12,)}, "input 'image'"),  # a None remains
        ({"tokens": (12, 3, 5), "image": (8, 8, 3)}, "input 'tokens'"),  # wrong rank (with or without batch)
        ({"tokens": (12,), "image": (8, 8, 4)}, "dim 3 is fixed to 3"),  # contradicts the model
        ({"tokens": (12,), "image": (8, 8, 3), "other": (1,)}, "no model input named other"),
    ],
)
def test_bad_input_shapes_name_the_input(shapes, fragment):
    with pytest.raises(TensorwegError) as error:
        input_signature(_model_with_free_dims(), 1, shapes)
    assert fragment in str(error.value)


# --- layers level ---------------------------------------------------------------


def test_mnist_layers_have_traced_shapes_sizes_edges_and_documented_flops():
    model, _ = load_model("mnist_cnn", unsafe=False)
    records = {r.name: r for r in layer_records(model, input_signature(model, 2, {}))}
    conv, dense = records["conv2d"], records["dense"]
    kernel_h, kernel_w, in_channels, filters = tuple(model.get_layer("conv2d").kernel.shape)
    assert conv.input_shapes == ((2, 28, 28, 1),)
    batch, out_h, out_w, out_c = conv.output_shapes[0]
    assert (batch, out_c) == (2, filters)
    assert conv.trainable_params == kernel_h * kernel_w * in_channels * filters + filters
    assert conv.weight_bytes == 4 * conv.trainable_params
    assert conv.activation_bytes == 4 * batch * out_h * out_w * out_c
    assert conv.flops == 2 * batch * out_h * out_w * out_c * kernel_h * kernel_w * in_channels
    assert dense.flops == 2 * 2 * dense.input_shapes[0][1] * dense.output_shapes[0][1]
    assert records["flatten"].flops is None
    assert conv.inbound == ("image",) and dense.inbound == ("flatten",)
    assert conv.dtype_policy == "float32"


def test_batch_norm_counts_non_trainable_params():
    model, _ = load_model("resnet_block", unsafe=False)
    records = {r.name: r for r in layer_records(model, input_signature(model, 1, {}))}
    bn = records["bn_a"]
    channels = bn.output_shapes[0][-1]
    assert (bn.trainable_params, bn.non_trainable_params) == (2 * channels, 2 * channels)
    assert bn.flops == 2 * 16 * 16 * channels
    assert set(records["residual"].inbound) == {"image", "bn_b"}


def test_nested_models_are_flattened_with_their_path():
    import keras

    inner = _small_model("inner")
    outer_input = keras.Input((6,), name="outer_x")
    outer = keras.Model(outer_input, keras.layers.Dense(1, name="final")(inner(outer_input)), name="outer")
    records = layer_records(outer, input_signature(outer, 1, {}))
    paths = [r.path for r in records]
    assert paths == ["outer_x", "inner", "inner/x", "inner/hidden", "inner/head", "final"]
    hidden = next(r for r in records if r.path == "inner/hidden")
    assert hidden.output_shapes == ((1, 5),)


def test_recording_leaves_the_layers_unchanged():
    model, _ = load_model("mlp", unsafe=False)
    trace_model(model, input_signature(model, 1, {}))
    assert all("call" not in layer.__dict__ for _, layer in iter_layers(model))


# --- graph level -----------------------------------------------------------------


def test_layer_for_op_takes_the_longest_scope_at_a_slash_boundary():
    scopes = {"m_1/conv2d_1": "conv2d", "m_1/conv2d_10": "conv2d_9", "m_1/outer_1/dense_1": "dense"}
    assert layer_for_op("m_1/conv2d_1/convolution", scopes) == "conv2d"
    assert layer_for_op("m_1/conv2d_10/convolution", scopes) == "conv2d_9"
    assert layer_for_op("m_1/conv2d_1", scopes) == "conv2d"
    assert layer_for_op("m_1/outer_1/dense_1/MatMul", scopes) == "dense"
    assert layer_for_op("m_1/outer_1/other/MatMul", scopes) == ""
    assert layer_for_op("Identity", scopes) == ""


def test_graph_ops_are_attributed_by_recorded_scope_and_grappler_shrinks_the_graph():
    model, _ = load_model("mnist_cnn", unsafe=False)
    traced = trace_model(model, input_signature(model, 1, {}))
    # Keras re-traces under suffixed scopes; the map knows the real layer behind each.
    assert set(traced.scope_map.values()) == {"conv2d", "max_pooling2d", "flatten", "dense"}
    level, _ = graph_level_and_film(traced.concrete, traced.scope_map, per_optimizer=False)
    conv = next(op for op in level.ops if op.op == "Conv2D")
    assert conv.layer == "conv2d"
    attributes = dict(conv.attributes)
    assert attributes["data_format"] == "NHWC" and attributes["padding"] == "VALID"
    assert "CPU" in conv.kernel_devices
    assert conv.outputs[0].shape == (1, 26, 26, 8)
    matmul = next(op for op in level.ops if op.op == "MatMul")
    assert matmul.layer == "dense" and "transpose_a" in dict(matmul.attributes)
    summary = level.grappler
    assert summary is not None and level.optimized_ops
    assert summary.ops_after == len(level.optimized_ops) < summary.ops_before
    assert summary.removed
    assert any(op.op == "Conv2D" and op.layer == "conv2d" for op in level.optimized_ops)


def test_graph_of_a_saved_model_traces_through_its_signature(saved):
    model, _ = load_model(str(saved / "tf_saved"), unsafe=False)
    traced = trace_model(model, input_signature(model, 1, {}))
    level, _ = graph_level_and_film(traced.concrete, traced.scope_map, per_optimizer=False)
    assert any(op.layer == "serving_default" for op in level.ops)
    # Grappler inlines the loaded function: the real MatMuls appear there.
    assert any(op.op == "MatMul" for op in level.optimized_ops)


# --- the worker process -------------------------------------------------------------


def _run_worker(request: dict, timeout: int = 600) -> tuple[subprocess.CompletedProcess, list[dict]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "explorer.capture.tf_worker"], input=json.dumps(request),
                            capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    # stdout is the protocol only: every line must be a JSON event.
    events = [json.loads(line) for line in result.stdout.splitlines()]
    return result, events


def test_worker_refuses_bad_input_with_one_fatal_event(tmp_path):
    result, events = _run_worker({"model": "no_such_sample", "staging_dir": str(tmp_path / "s")})
    assert result.returncode == 2
    assert len(events) == 1 and events[0]["event"] == "fatal"
    assert "unknown model 'no_such_sample'" in events[0]["error"]
    assert not (tmp_path / "s").exists()


@pytest.mark.e2e
def test_worker_captures_mnist_and_links_conv_ops_to_their_layer(tmp_path):
    staging = tmp_path / "staging"
    result, events = _run_worker({"model": "mnist_cnn", "unsafe": False, "batch": 2, "input_shapes": {},
                                  "staging_dir": str(staging), "targets": ["cpu"]})
    assert result.returncode == 0, result.stderr[-3000:]
    assert [e["event"] for e in events if e.get("level") == "layers"] == ["level_started", "level_done"]
    done = {(e["level"], e.get("target", "")) for e in events if e["event"] == "level_done"}
    assert {("layers", ""), ("graph", ""), ("hlo", "cpu"), ("optimized-hlo", "cpu")} <= done
    for name in ("identity.json", "signature.json", "model.json", "layers.json", "graph.json", "scopes.json",
                 "targets/cpu/hlo.txt", "targets/cpu/optimized_hlo.txt"):
        assert (staging / name).is_file(), name
    assert not (staging / "xla_dump_cpu").exists(), "the raw dump (run-specific names) must not stay"

    assert json.loads((staging / "signature.json").read_text()) == [["image", [2, 28, 28, 1], "float32"]]
    assert load_json(ModelIdentity, staging / "identity.json").name == "mnist_cnn"
    layers = load_json(list[LayerRecord], staging / "layers.json")
    assert next(r for r in layers if r.name == "conv2d").output_shapes[0][0] == 2
    graph = load_graph_level(staging / "graph.json")
    conv_ops = [op for op in graph.ops if op.op == "Conv2D"]
    assert conv_ops and all(op.layer == "conv2d" for op in conv_ops)

    scopes = json.loads((staging / "scopes.json").read_text())
    hlo = (staging / "targets" / "cpu" / "hlo.txt").read_text()
    conv_lines = [line for line in hlo.splitlines() if " convolution(" in line]
    assert conv_lines
    for line in conv_lines:
        op_name = line.split('op_name="', 1)[1].split('"', 1)[0]
        assert layer_for_op(op_name, scopes["cpu"]) == "conv2d", op_name
    assert str(tmp_path) not in hlo and "config_proto_" not in hlo


@pytest.mark.e2e
def test_worker_keeps_layers_and_graph_when_xla_cannot_compile(tmp_path):
    (tmp_path / "string_models.py").write_text(
        "import keras, tensorflow as tf\n"
        "class AsString(keras.layers.Layer):\n"
        "    def call(self, x):\n"
        "        return tf.strings.to_number(tf.strings.as_string(x))\n"
        "def build():\n"
        "    inp = keras.Input((4,), name='x')\n"
        "    return keras.Model(inp, AsString(name='as_string')(inp))\n"
    )
    env_path = f"{tmp_path}{os.pathsep}{ROOT}"
    request = {"model": "string_models:build", "staging_dir": str(tmp_path / "s"), "targets": ["cpu"]}
    result = subprocess.run([sys.executable, "-m", "explorer.capture.tf_worker"], input=json.dumps(request),
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": env_path},
                            timeout=600)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 0, result.stderr[-3000:]
    status = {(e["level"], e["event"]) for e in events if "level" in e}
    assert ("layers", "level_done") in status and ("graph", "level_done") in status
    hlo_failure = next(e for e in events if e["event"] == "level_failed" and e["level"] == "hlo")
    assert hlo_failure["error"] and "\n" not in hlo_failure["error"]
    assert (tmp_path / "s" / "graph.json").is_file()


def test_module_function_records_where_the_function_called_each_layer(user_module):
    """The passport's first line (issue 27): while the user's function builds the model, each layer
    it calls is stamped with the user's line, relative to the module's folder; the traced graph's
    ops carry the Keras lines that made them, and no path is absolute."""
    import keras

    model, _ = load_model("user_models:build", unsafe=False)
    assert keras.layers.Layer.__call__.__name__ == "__call__"  # Keras's own, restored
    signature = input_signature(model, 1, {})
    traced = trace_model(model, signature)
    records = {r.name: r for r in layer_records(model, signature, traced.calls)}
    (line,) = records["head"].called_at
    source = user_module.read_text(encoding="utf-8").splitlines()
    assert (line.file, line.function, line.text) == ("user_models.py", "build", source[line.line - 1].strip())
    assert "Dense(2, name='head')" in line.text
    assert records["features"].called_at == ()  # an Input is never called
    level, _ = graph_level_and_film(traced.concrete, traced.scope_map, False, traced.source_folder)
    matmul = next(op for op in level.ops if op.op == "MatMul")
    assert matmul.source[0].file == "keras/src/layers/core/dense.py" and matmul.source[0].function == "call"
    assert all(not s.file.startswith("/") for op in level.ops for s in op.source)


def test_other_models_record_no_call_sites():
    model, _ = load_model("mlp", unsafe=False)
    assert not any(r.called_at for r in layer_records(model, input_signature(model, 1, {})))
