"""The `tvm:cpu` target without running TVM: registry, the missing-extra error, the worker's request check."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explorer.capture.protocol import parse_event
from explorer.targets import TARGETS, TVM_INSTALL_HINT, parse_targets, target_dirname

# The real entry point with TVM made unimportable, as on a machine without the extra:
# `sys.modules[name] = None` makes both `import tvm` and `importlib.util.find_spec("tvm")` fail.
WITHOUT_TVM = ("import sys; sys.modules['tvm'] = None; from screens.cli import main; "
               "sys.exit(main(sys.argv[1:]))")


def test_tvm_cpu_is_a_target_compiled_by_tvm():
    spec = TARGETS["tvm:cpu"]
    assert spec.compiler == "tvm" and spec.kind == "cpu"
    assert parse_targets("cpu,tvm:cpu") == ("cpu", "tvm:cpu")
    assert target_dirname("tvm:cpu") == "tvm-cpu"
    assert all(s.compiler == "xla" for name, s in TARGETS.items() if not name.startswith("tvm:"))
    arm = TARGETS["tvm:arm"]  # TVM's LLVM backend for the same ARM board as arm:cortex-a76
    assert arm.compiler == "tvm" and arm.worker == "tvm" and arm.isa == "aarch64" and arm.llvm("mcpu") == "cortex-a76"


def test_without_the_extra_the_capture_says_how_to_install_it(tmp_path):
    out = tmp_path / "bundle"
    result = subprocess.run([sys.executable, "-c", WITHOUT_TVM, "capture", "mnist_cnn", "--targets", "cpu,tvm:cpu",
                             "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: target tvm:cpu: {TVM_INSTALL_HINT}"]
    assert 'pip install -e ".[tvm]"' in lines[0]
    assert not out.exists()  # nothing half-written


@pytest.mark.parametrize("request_line, fragment", [
    ('{"model_file": "m.json", "signature": [], "out_dir": "x"}', "request has no 'target'"),
    ('{"model_file": "m.json", "signature": [], "target": "cpu", "out_dir": "x"}',
     "the TVM worker does not compile for 'cpu'"),
    ("not json", "bad request"),
], ids=["no-target", "an-xla-target", "not-json"])
def test_the_worker_refuses_a_bad_request(request_line, fragment):
    result = subprocess.run([sys.executable, "-I", "-m", "explorer.capture.tvm_worker"], input=request_line + "\n",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    events = [parse_event(line) for line in result.stdout.splitlines()]
    assert [e.kind for e in events] == ["fatal"]
    assert fragment in events[0].error
    assert "Traceback" not in result.stderr


def test_the_worker_request_is_what_the_orchestrator_sends():
    """The TVM worker reads the same request keys as the JAX worker (the orchestrator builds one for both)."""
    from explorer.capture.tvm_worker import check_request

    request = {"model_file": "model.json", "signature": [["image", [1, 28, 28, 1], "float32"]],
               "target": "tvm:cpu", "out_dir": "targets/tvm-cpu", "unsafe": False}
    assert check_request(json.loads(json.dumps(request))) == request
