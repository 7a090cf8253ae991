"""Issue 23's wrong answers: input the CLI used to accept (and then answer wrongly) or refuse with a
traceback is one `error:` line, exit 2, and nothing written or cached.

Each case runs the real entry point (`screens.cli.main`) in this process on the recorded bundle
tests/fixtures/bundles/mnist_cnn, so no compiler runs.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from screens.cli import main

from pilot_support import BUNDLE, needs_bundle
from tests.conftest import files_under

pytestmark = needs_bundle

REPO = Path(__file__).resolve().parent.parent

NUMBER_STEP = ("# title: T\n# model: mnist_cnn\n# lang: en\n\n"
               "step: level=kernels target=cpu\ntext: How many kernels?\n"
               "ask: number=kernels tolerance={tolerance}\nhint: Count the rows.\n")


@pytest.fixture
def workplace(empty_workplace, monkeypatch):
    """An empty current folder (the working directory) and an empty cache: a refused input must
    leave both as they were."""
    monkeypatch.chdir(empty_workplace[0])
    return empty_workplace


def assert_refused(argv: list[str], capsys, workplace, *fragments: str) -> str:
    cwd, cache = workplace
    before = files_under(cwd)
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert files_under(cwd) == before
    assert files_under(cache) == []
    return lines[0]


@pytest.mark.parametrize("tolerance", ["1e999", "inf", "-inf", "nan", "-1", "1e999%", "inf%", "-5%"])
def test_a_tolerance_that_is_not_finite_or_is_negative_is_refused(tolerance, workplace, capsys):
    """An infinite tolerance would accept every answer, NaN none."""
    tour = workplace[0] / "loose.tour"
    tour.write_text(NUMBER_STEP.format(tolerance=tolerance), encoding="utf-8")
    assert_refused(["tour", str(tour), str(BUNDLE)], capsys, workplace,
                   "loose.tour:7:", f"bad tolerance '{tolerance}'")


def test_a_tour_saved_with_a_byte_order_mark_is_read_like_one_without(workplace, capsys):
    """A BOM is not a character of the first header: the tour gets as far as a good one (the terminal check)."""
    tour = workplace[0] / "bom.tour"
    tour.write_bytes(b"\xef\xbb\xbf" + NUMBER_STEP.format(tolerance="1").encode("utf-8"))
    line = assert_refused(["tour", str(tour), str(BUNDLE)], capsys, workplace, "needs a terminal")
    assert "\ufeff" not in line and "bom.tour" not in line


@pytest.mark.parametrize("step", ["0", "-1", "999"])
def test_screenshot_steps_start_at_one(step, workplace, capsys):
    """`--step 0` drew step 1; it is refused like a step past the end."""
    assert_refused(["screenshot", str(BUNDLE), "--tour", "tensor_to_registers", "--step", step, "--out", "s.svg"],
                   capsys, workplace, f"--step {step}: the tour has steps 1 to")


@pytest.mark.parametrize("step", ["0", "-1"])
def test_tour_steps_start_at_one(step, workplace, capsys):
    assert_refused(["tour", "tensor_to_registers", str(BUNDLE), "--step", step], capsys, workplace,
                   f"--step {step}: the tour has steps 1 to")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """A subprocess: a failed `serve` leaves its asyncio loop closed, which no later test in this process could use.
    PYTHONPATH: this checkout's code, not the installed one, runs from `cwd`."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "screens.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL, timeout=120)


def assert_refused_in_subprocess(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-3000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-3000:]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_serve_on_a_port_in_use_is_one_line(workplace):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", str(BUNDLE), "--host", "127.0.0.1", "--port", str(port), cwd=workplace[0])
    assert_refused_in_subprocess(result, f"cannot listen on 127.0.0.1:{port}", "the port is in use")
    assert "serving" not in result.stdout  # the line that says it serves comes only once the port is bound


def test_serve_on_a_host_that_does_not_resolve_is_one_line(workplace):
    """`.invalid` never resolves (RFC 2606); the refusal comes before the warning about other hosts."""
    result = run_cli("serve", str(BUNDLE), "--host", "nosuchhost.invalid", cwd=workplace[0])
    assert_refused_in_subprocess(result, "cannot listen on nosuchhost.invalid:", "cannot resolve the host")


@pytest.mark.parametrize("argv, fragments", [
    (["capture", "mlp", "--mode", "train", "--targets", "tvm:cpu"], ("--mode train: tvm:cpu", "inference graph only")),
    (["capture", "mlp", "--mode", "train", "--targets", "cpu,tvm:cpu"], ("--mode train: tvm:cpu",)),
    (["screenshot", "mlp", "--mode", "train", "--target", "tvm:cpu", "--out", "s.svg"], ("--mode train: tvm:cpu",)),
    (["capture", "mlp", "--targets", "tpu:v5e,tvm:cpu", "--mesh", "2x2", "--shard", "data", "--batch", "4"],
     ("--mesh", "tvm:cpu is one device")),
], ids=["train tvm only", "train cpu and tvm", "screenshot train tvm", "mesh with tvm"])
def test_tvm_is_refused_in_train_mode_and_with_a_mesh_before_any_worker(argv, fragments, workplace, capsys):
    """TVM compiles the inference graph only: in train mode it stored that graph under a bundle saying train.
    The cache stays empty: no worker started."""
    assert_refused(argv, capsys, workplace, *fragments)
