"""Trust (issue 16), capture side: nothing runs that the user did not name, bad input is one line.

Unit cases first (the protocol, --input-shape), then cases marked `e2e` that import
the real Keras (the config check) or run the real workers from a hostile current directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from explorer.capture.option_values import parse_input_shapes
from explorer.capture.protocol import LEVEL_DONE, WorkerEvent, one_line, parse_event
from explorer.errors import TensorwegError
from explorer.model.records import MAX_INPUT_ELEMENTS

TF_TRACE_ERROR = """in user code:

    File "/home/someone/model.py", line 12, in call  *
        return self.dense(x)
    File "/site-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler
        raise e.with_traceback(filtered_tb) from None

    ValueError: Exception encountered when calling Functional.call().

    \x1b[1mInput 0 of layer "dense" is incompatible with the layer: expected axis -1 to have value 4\x1b[0m

    Arguments received by Functional.call():
      • inputs=tf.Tensor(shape=(1, 3), dtype=float32)
"""


# --- the protocol -------------------------------------------------------------------------------


def test_one_line_finds_the_reason_behind_tensorflows_preamble():
    assert one_line(ValueError(TF_TRACE_ERROR)) == (
        'ValueError: Input 0 of layer "dense" is incompatible with the layer: expected axis -1 to have value 4')


def test_one_line_keeps_a_plain_first_line_and_bounds_it():
    assert one_line("\n  INVALID_ARGUMENT: bad shape\n  at foo\n") == "INVALID_ARGUMENT: bad shape"
    assert len(one_line("x" * 1000)) == 400


@pytest.mark.parametrize("line", [b"not json", b"[1, 2]", b'{"event": "launch_missiles"}', b"\xff\xfe", b""])
def test_anything_but_a_protocol_event_is_not_an_event(line):
    assert parse_event(line) is None


def test_events_round_trip_and_errors_stay_one_bounded_line():
    event = WorkerEvent(LEVEL_DONE, "hlo", "tpu:v5e", seconds=1.5)
    assert parse_event(event.to_line()) == event
    parsed = parse_event(json.dumps({"event": "level_failed", "level": "hlo", "error": "a\nb " * 500}))
    assert parsed.target == "cpu" and "\n" not in parsed.error and len(parsed.error) <= 400


# --- --input-shape --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, dims", [("tokens=1x128", (1, 128)), ("tokens=128", (128,)),
                                        ("image=1,28,28,1", (1, 28, 28, 1))])
def test_input_shapes_parse_with_or_without_the_batch_dim(text, dims):
    assert parse_input_shapes([text]) == ((text.split("=")[0], dims),)


@pytest.mark.parametrize("text, fragment", [
    ("tokens=1x0", "must be positive"),
    ("tokens=1xbad", "expected NAME=DIMxDIM"),
    (f"tokens=1x{MAX_INPUT_ELEMENTS + 1}", "at most"),
    ("tokens=99999999999999999999x99999999999", "at most"),
])
def test_bad_input_shapes_are_one_line_errors(text, fragment):
    with pytest.raises(TensorwegError, match=fragment):
        parse_input_shapes([text])


@pytest.mark.e2e  # imports Keras (TensorFlow): not in the TF-free unit lane
def test_the_worker_takes_both_input_shape_forms_for_a_none_128_input():
    import keras

    from explorer.capture.tf_loading import input_signature

    tokens = keras.Input((None,), dtype="int32", name="tokens")
    model = keras.Model(tokens, keras.layers.Embedding(10, 2)(tokens))
    for given in ((1, 128), (128,)):
        assert input_signature(model, 1, {"tokens": given}) == [("tokens", (1, 128), "int32")]
    assert input_signature(model, 1, {"tokens": (4, 16)}) == [("tokens", (4, 16), "int32")]
    with pytest.raises(TensorwegError, match="at most"):
        input_signature(model, 1 << 20, {"tokens": (1 << 20,)})


# --- the Keras config check -----------------------------------------------------------------------

MARKER_CODE = "open({marker!r}, 'w').write('ran')\n"


def _keras_file_with(tmp_path: Path, edit) -> Path:
    """A real .keras file whose config.json was edited by `edit(config)`."""
    import keras

    inputs = keras.Input((4,), name="x")
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(inputs))
    original = tmp_path / "original.keras"
    model.save(original)
    edited = tmp_path / "edited.keras"
    with zipfile.ZipFile(original) as source, zipfile.ZipFile(edited, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "config.json":
                config = json.loads(data)
                edit(config)
                data = json.dumps(config).encode()
            target.writestr(item, data)
    return edited


def _head_layer(config: dict) -> dict:
    return next(layer for layer in config["config"]["layers"] if layer["config"]["name"] == "head")


@pytest.fixture
def hostile_cwd(tmp_path, monkeypatch):
    """A current directory whose modules would write a marker if anything imported them."""
    marker = tmp_path / "MARKER"
    (tmp_path / "keras_cv").mkdir()
    for name in ("keras_cv/__init__.py", "keras_cv/evil.py", "sitecustomize.py", "numpy.py"):
        (tmp_path / name).write_text(MARKER_CODE.format(marker=str(marker)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # worse than the worker: cwd first on the path
    return marker


@pytest.mark.e2e  # imports Keras (TensorFlow): not in the TF-free unit lane
def test_a_lambda_spelled_as_a_keras_api_name_is_refused(tmp_path, hostile_cwd):
    from explorer.capture.tf_loading import load_model

    def to_lambda(config):
        head = _head_layer(config)
        head.update({"module": "keras", "class_name": "layers.Lambda", "registered_name": None})
        head["config"] = {"name": "head", "function": {"module": "builtins", "class_name": "function",
                                                       "config": "print", "registered_name": "print"}}

    with pytest.raises(TensorwegError, match="Lambda layer 'head'.*--unsafe"):
        load_model(str(_keras_file_with(tmp_path, to_lambda)), unsafe=False)


@pytest.mark.e2e  # imports Keras (TensorFlow): not in the TF-free unit lane
def test_a_class_from_a_keras_looking_module_is_refused_and_never_imported(tmp_path, hostile_cwd):
    from explorer.capture.tf_loading import load_model

    def to_evil(config):
        _head_layer(config).update({"module": "keras_cv.evil", "class_name": "Evil", "registered_name": "Evil"})

    with pytest.raises(TensorwegError, match="'Evil' from module 'keras_cv.evil'.*--unsafe"):
        load_model(str(_keras_file_with(tmp_path, to_evil)), unsafe=False)
    assert not hostile_cwd.exists() and "keras_cv.evil" not in sys.modules


@pytest.mark.e2e  # imports Keras (TensorFlow): not in the TF-free unit lane
def test_keras_own_classes_pass_the_check(tmp_path):
    from explorer.capture.keras_config import refusals

    edited = _keras_file_with(tmp_path, lambda config: None)
    with zipfile.ZipFile(edited) as archive:
        assert refusals(json.loads(archive.read("config.json"))) == []


# --- end to end: real workers, hostile directory ---------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=900)


@pytest.mark.e2e
def test_a_capture_from_a_hostile_directory_runs_none_of_its_code(tmp_path):
    hostile = tmp_path / "download"
    hostile.mkdir()
    marker = tmp_path / "MARKER"
    (hostile / "keras_cv").mkdir()
    for name in ("sitecustomize.py", "usercustomize.py", "numpy.py", "keras_cv/__init__.py", "tensorweg_x.py"):
        (hostile / name).write_text(MARKER_CODE.format(marker=str(marker)))
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(temp)}
    env.pop("KERAS_HOME", None)
    # `python -I` for the CLI too, as the installed `tensorweg` script starts: the workers are what is tested.
    result = subprocess.run([sys.executable, "-I", "-m", "explorer.cli", "capture", "mnist_cnn", "--targets", "cpu",
                             "-o", str(tmp_path / "out")], capture_output=True, text=True, cwd=hostile, env=env,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    assert not marker.exists(), "code from the current directory ran"
    assert list(home.iterdir()) == [], "something was written into the user's home (keras.json?)"
    assert list(temp.iterdir()) == [], "something was left in the temp folder"


@pytest.mark.e2e
def test_a_two_input_model_with_dict_inputs_out_of_sorted_order_captures(tmp_path):
    (tmp_path / "two_inputs.py").write_text(
        "import keras\n"
        "def build(as_dict=True):\n"
        "    zeta = keras.Input((3,), name='zeta')\n"
        "    alpha = keras.Input((5,), name='alpha')\n"
        "    out = keras.layers.Concatenate(name='join')([keras.layers.Dense(2, name='dz')(zeta), alpha])\n"
        "    inputs = {'zeta': zeta, 'alpha': alpha} if as_dict else [zeta, alpha]\n"
        "    return keras.Model(inputs, keras.layers.Dense(1, name='head')(out), name='two')\n"
        "def build_list():\n"
        "    return build(as_dict=False)\n"
    )
    for spec in ("two_inputs:build", "two_inputs:build_list"):
        result = run_cli("capture", spec, "--targets", "cpu", "-o", str(tmp_path / spec.replace(":", "_")),
                         cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
        assert "failed" not in result.stderr, result.stderr


@pytest.mark.e2e
def test_a_non_ascii_layer_name_says_so_and_fails_the_capture(tmp_path):
    (tmp_path / "accents.py").write_text(
        "import keras\n"
        "def build():\n"
        "    x = keras.Input((4,), name='x')\n"
        "    return keras.Model(x, keras.layers.Dense(2, name='caf\\u00e9')(x), name='accents')\n"
    )
    result = run_cli("capture", "accents:build", "--targets", "cpu", "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: every compiler level failed") and "requires ASCII layer names" in last
    assert "'café'" in last and "in user code" not in last
    assert not (tmp_path / "out").exists()


@pytest.mark.e2e
def test_input_shape_as_the_help_shows_it_and_an_oversized_one(tmp_path):
    (tmp_path / "seq.py").write_text(
        "import keras\n"
        "def build():\n"
        "    t = keras.Input((None,), name='tokens', dtype='int32')\n"
        "    return keras.Model(t, keras.layers.Embedding(50, 4, name='emb')(t), name='seq')\n"
    )
    cache = {"TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    result = run_cli("capture", "seq:build", "--targets", "cpu", "--input-shape", "tokens=1x128", cwd=tmp_path,
                     env=cache)
    assert result.returncode == 0, result.stderr[-2000:]
    too_big = run_cli("capture", "seq:build", "--targets", "cpu", "--batch", "100000", "--input-shape",
                      "tokens=100000", cwd=tmp_path, env=cache)
    assert too_big.returncode == 2
    assert too_big.stderr.strip().splitlines()[-1].startswith("error: input 'tokens' of shape (100000, 100000)")
    assert len(list((tmp_path / "cache" / "bundles").iterdir())) == 1  # only the good capture


@pytest.mark.e2e
def test_accelerator_captures_write_nothing_outside_the_bundle_even_when_interrupted(tmp_path):
    """libtpu's tpu_logs, JAX's tensorweg-xla-* dump folders, keras.json: all inside staging, gone after."""
    import signal
    import time

    home, temp, out = tmp_path / "home", tmp_path / "tmp", tmp_path / "out"
    for folder in (home, temp, out):
        folder.mkdir()
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(temp)}
    env.pop("KERAS_HOME", None)
    command = [sys.executable, "-I", "-m", "explorer.cli", "capture", "mlp", "--targets", "cpu,tpu:v5e"]
    done = subprocess.run([*command, "-o", str(out / "whole")], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "whole" / "targets" / "tpu-v5e" / "optimized_hlo.txt").is_file()
    assert list(home.iterdir()) == [] and list(temp.iterdir()) == []

    interrupted = subprocess.Popen([*command, "-o", str(out / "cut")], stderr=subprocess.PIPE, text=True,
                                   cwd=tmp_path, env=env)
    deadline = time.monotonic() + 300
    while not list(out.glob(".staging-*/targets/tpu-v5e")):
        assert time.monotonic() < deadline and interrupted.poll() is None, "the TPU worker never started"
        time.sleep(0.1)
    time.sleep(1.0)  # let libtpu start writing
    interrupted.send_signal(signal.SIGTERM)
    _, stderr = interrupted.communicate(timeout=120)
    assert interrupted.returncode == 2 and "error: capture cancelled (SIGTERM)" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["whole"]
    assert list(home.iterdir()) == [] and list(temp.iterdir()) == []
