"""The JAX worker: protocol, failure paths, and real GPU/TPU compiles without the hardware."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture import jax_levels, jax_worker
from explorer.capture.protocol import ProtocolWriter

ROOT = Path(__file__).resolve().parent.parent
LEVELS = {"hlo", "optimized-hlo", "memory", "kernels"}


def _start(request: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "explorer.capture.jax_worker"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=ROOT, text=True,
    )


def _run(request: dict | str, timeout: float = 300) -> tuple[int, list[dict], str, str]:
    process = _start({})
    text = request if isinstance(request, str) else json.dumps(request)
    stdout, stderr = process.communicate(text, timeout=timeout)
    return process.returncode, [json.loads(line) for line in stdout.splitlines()], stdout, stderr


def _by_kind(events: list[dict], kind: str) -> dict[str, dict]:
    return {e["level"]: e for e in events if e["event"] == kind}


# --- without compilers ---------------------------------------------------------


@pytest.mark.parametrize("request_text", ["not json", json.dumps({"target": "tpu:v5e"}),
                                          json.dumps({"model_file": "m.keras", "signature": [],
                                                      "target": "cpu", "out_dir": "o"})])
def test_bad_request_is_one_fatal_event(request_text):
    code, events, _, _ = _run(request_text, timeout=60)
    assert code == 2
    assert [e["event"] for e in events] == ["fatal"]
    assert "\n" not in events[0]["error"]


def test_missing_wheels_fail_every_level_as_not_available(monkeypatch, tmp_path):
    monkeypatch.setattr(jax_worker, "availability", lambda name: "not available on this platform")
    stream = io.StringIO()
    request = {"model_file": "m.keras", "signature": [], "target": "tpu:v5e", "out_dir": str(tmp_path / "t")}
    jax_worker.run(request, ProtocolWriter(stream, "tpu:v5e"))
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    failed = _by_kind(events, "level_failed")
    assert set(failed) == LEVELS
    assert all(e["error"] == "not available on this platform" and e["target"] == "tpu:v5e"
               for e in failed.values())


def test_normalise_keeps_jax_op_names_and_strips_paths():
    text = 'op_name="jit(fwd)/conv2d/jit(relu)/max" 2 "/abs/dir/site-packages/keras/src/layer.py"'
    assert jax_levels.normalise(text) == 'op_name="jit(fwd)/conv2d/jit(relu)/max" 2 "keras/src/layer.py"'


# --- real compiles -----------------------------------------------------------------


@pytest.fixture(scope="module")
def cnn_model(tmp_path_factory) -> Path:
    """The mnist_cnn sample saved as .keras, built under the JAX backend in its own process."""
    path = tmp_path_factory.mktemp("model") / "model.keras"
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "3"}
    code = f"from sample_models import SAMPLES; SAMPLES['mnist_cnn'].build().save({str(path)!r})"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=300)
    return path


def _request(model: Path, target: str, out_dir: Path, shape=(1, 28, 28, 1)) -> dict:
    return {"model_file": str(model), "unsafe": False, "signature": [["image", list(shape), "float32"]],
            "target": target, "out_dir": str(out_dir)}


def _assert_clean_run(code: int, events: list[dict], target: str) -> None:
    assert code == 0
    assert set(_by_kind(events, "level_done")) == LEVELS, events
    assert all(e.get("target") == target for e in events)


def _assert_normalised(out_dir: Path, model: Path) -> None:
    for path in out_dir.iterdir():
        text = path.read_text(encoding="utf-8")
        assert str(model.parent) not in text and str(ROOT) not in text, path.name
        assert "/tmp/tensorweg-xla-" not in text, path.name


@pytest.mark.e2e
def test_gpu_h100_capture(cnn_model, tmp_path):
    out = tmp_path / "gpu-h100"
    code, events, stdout, stderr = _run(_request(cnn_model, "gpu:h100", out))
    _assert_clean_run(code, events, "gpu:h100")
    kernels = json.loads((out / "kernels.json").read_text())
    launched = [k for k in kernels if k["launch"]]
    assert launched and all(".target sm_90a" in k["ptx"] for k in launched)
    assert all(k["launch"]["grid"][0] >= 1 and k["launch"]["block"][0] >= 1 for k in launched)
    assert any(k["kind"] == "library" and k["library_calls"][0].startswith("__cudnn$") for k in kernels)
    optimized = (out / "optimized_hlo.txt").read_text()
    assert all(f"%{k['hlo'][0]} = " in optimized for k in kernels)
    memory = json.loads((out / "memory.json").read_text())
    assert memory["allocations"] and memory["peak_bytes"] > 0
    assert dict(memory["analysis"])["argument_size_in_bytes"] > 0
    for name in ("buffer_assignment.txt", "live_range.txt", "memory_report.txt", "hlo.txt"):
        assert (out / name).stat().st_size > 0
    _assert_scopes_match_op_names(out)
    _assert_normalised(out, cnn_model)


def _assert_scopes_match_op_names(out: Path) -> None:
    scopes = json.loads((out / "scopes.json").read_text())
    assert scopes["jit(fwd)/conv2d"] == "conv2d" and scopes["jit(fwd)/dense"] == "dense"
    hlo = (out / "hlo.txt").read_text()
    for scope in scopes:
        assert f'op_name="{scope}/' in hlo, scope


@pytest.mark.e2e
def test_two_tpu_captures_run_at_once(cnn_model, tmp_path):
    outs = [tmp_path / "a", tmp_path / "b"]
    processes = [_start({}) for _ in outs]
    for process, out in zip(processes, outs, strict=True):
        process.stdin.write(json.dumps(_request(cnn_model, "tpu:v5e", out)))
        process.stdin.close()
    for process, out in zip(processes, outs, strict=True):
        stdout = process.stdout.read()
        stderr = process.stderr.read()
        code = process.wait(timeout=300)
        events = [json.loads(line) for line in stdout.splitlines()]  # only protocol on stdout
        _assert_clean_run(code, events, "tpu:v5e")
        assert "TPU" in stderr  # libtpu's warnings were kept out of stdout
        optimized = (out / "optimized_hlo.txt").read_text()
        assert "T(8,128)" in optimized
        kernels = json.loads((out / "kernels.json").read_text())
        assert kernels and all(k["notes"].startswith("TPU") and not k["ptx"] and not k["asm"] for k in kernels)
        assert all(f"%{k['hlo'][0]} = " in optimized for k in kernels)
        assert json.loads((out / "cost.json").read_text())["flops"] > 0
        _assert_scopes_match_op_names(out)
        _assert_normalised(out, cnn_model)


@pytest.mark.e2e
def test_tpu_allocations_are_parsed(cnn_model, tmp_path):
    out = tmp_path / "tpu"
    _run(_request(cnn_model, "tpu:v5e", out))
    assert json.loads((out / "memory.json").read_text())["allocations"]


@pytest.mark.e2e
def test_shape_error_fails_levels_with_one_line_and_exit_0(cnn_model, tmp_path):
    code, events, _, _ = _run(_request(cnn_model, "tpu:v5e", tmp_path / "t", shape=(1, 5)))
    assert code == 0
    failed = _by_kind(events, "level_failed")
    assert set(failed) == LEVELS
    assert all(e["error"] and "\n" not in e["error"] for e in failed.values())
