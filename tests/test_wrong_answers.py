"""Issue 23's wrong answers: input the CLI used to accept (and then answer wrongly) or refuse with a
traceback is one `error:` line, exit 2, and nothing written or cached.

Each case runs the real entry point (`screens.cli.main`) in this process on the recorded bundle
tests/fixtures/bundles/mnist_cnn, so no compiler runs.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.capture import orchestrator
from explorer.capture.jax_train import check_trainable
from explorer.capture.orchestrator import cached_bundle
from explorer.course import pack as pack_module
from explorer.course.pack import write_pack
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.views.compare.mesh import mesh_comparison, sibling_path

from screens.app import create_app
from screens.cli import main

from pilot_support import BUNDLE, needs_bundle, sync
from tests.conftest import FIXTURES, files_under

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


@pytest.fixture
def accelerators(monkeypatch):
    """The stand-in workers need no libtpu or CUDA: every target counts as available."""
    monkeypatch.setattr("explorer.targets.availability", lambda target: None)
    monkeypatch.setattr(orchestrator, "availability", lambda target: None)


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


# --- `screenshot MODEL --tour FILE` works as with a bundle ------------------------------------------

LAYERS_TOUR = "# title: Layers only\n# model: mlp\n# lang: en\n\nstep: level=layers\ntext: What the model is made of.\n"


def test_screenshot_of_a_model_with_a_tour_that_visits_no_target_works_as_with_a_bundle(fake, workplace, capsys):
    """The tour's steps show layers only, so it visits no target; with a bundle it drew, with a model it said
    "no target given". The capture compiles the pictured step's target (cpu), as a bundle has one."""
    fake("ok")
    tour = workplace[0] / "layers.tour"
    tour.write_text(LAYERS_TOUR, encoding="utf-8")
    assert main(["screenshot", str(BUNDLE), "--tour", str(tour), "--out", "bundle.svg"]) == 0
    assert main(["screenshot", "mlp", "--tour", str(tour), "--out", "model.svg"]) == 0
    assert "error" not in capsys.readouterr().err
    for name in ("bundle.svg", "model.svg"):
        assert (workplace[0] / name).read_text(encoding="utf-8").startswith("<svg")
    assert Bundle.open(cached_bundle("mlp", CaptureOptions(targets=("cpu",)))).targets == ("cpu",)


# --- train mode with nothing to train ---------------------------------------------------------------


def test_a_training_step_with_nothing_to_train_is_one_line_and_nothing_cached(fake, accelerators, workplace, capsys):
    """The JAX worker finds it (only it builds the step); its `fatal` is the command's one line."""
    fake("accelerator_fatal")
    line = assert_capture_refused(["capture", "mlp", "--mode", "train", "--targets", "tpu:v5e"], capsys, workplace)
    assert line == "error: nothing to train: the model has no trainable weights; capture it without --mode train"


@pytest.mark.parametrize("weights, frozen", [
    ((), ""), (("dense/kernel",), " (every layer is frozen: trainable=False)"),
], ids=["no weights", "every layer frozen"])
def test_the_training_step_refuses_a_model_without_trainable_weights(weights, frozen):
    """What the JAX worker checks before it builds a step, on a stand-in for the Keras model."""
    model = SimpleNamespace(trainable_variables=[], weights=list(weights))
    with pytest.raises(TensorwegError) as refused:
        check_trainable(model)
    assert str(refused.value) == (f"nothing to train: the model has no trainable weights{frozen}; "
                                  "capture it without --mode train")
    check_trainable(SimpleNamespace(trainable_variables=["dense/kernel"], weights=["dense/kernel"]))


# --- every target asked for failed: exit 2, never cached ---------------------------------------------


def assert_capture_refused(argv: list[str], capsys, workplace, *fragments: str) -> str:
    """Like assert_refused, for a capture that ran and failed: no bundle is cached and nothing is written
    where the command runs; the workers' log is kept in the cache's logs/ for --debug (the line names it)."""
    cwd, cache = workplace
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.strip().splitlines() if not line.startswith(("capturing ", "captured ", "failed "))]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert files_under(cwd) == []
    assert not (cache / "bundles").is_dir() or files_under(cache / "bundles") == []
    assert [name for name in files_under(cache) if not name.startswith("logs")] in ([], ["bundles"])
    return lines[0]


@pytest.mark.parametrize("argv", [
    ["capture", "mlp", "--targets", "tpu:v5e"],
    ["inspect", "mlp", "--level", "hlo", "--target", "tpu:v5e"],
    ["compare", "mlp", "--targets", "tpu:v5e"],
    ["screenshot", "mlp", "--target", "tpu:v5e", "--out", "s.svg"],
    ["pack", "mlp", "--targets", "tpu:v5e", "-o", "p.twpack"],
], ids=["capture", "inspect", "compare", "screenshot", "pack"])
def test_a_capture_whose_every_target_failed_exits_2_and_caches_nothing(argv, fake, accelerators, workplace, capsys):
    """`tvm:cpu` as the only target of an LSTM failed every level, exited 0 and was cached."""
    fake("accelerator_all_fail")
    assert_capture_refused(argv, capsys, workplace, "error: every level of tpu:v5e failed, nothing was cached: ",
                           "frontend ONNX: Loop")


def test_a_capture_where_some_targets_failed_is_kept_and_says_which(fake, accelerators, workplace, capsys):
    fake("accelerator_all_fail")
    assert main(["capture", "mlp", "--targets", "cpu,tpu:v5e"]) == 0
    err = capsys.readouterr().err
    assert "warning: every level of tpu:v5e failed (see above); the bundle holds the other targets" in err
    assert cached_bundle("mlp", CaptureOptions(targets=("cpu", "tpu:v5e"))) is not None
    # Asked for alone, the failed target has nothing to show in the cached bundle either.
    assert main(["inspect", "mlp", "--level", "hlo", "--target", "tpu:v5e"]) == 2
    assert capsys.readouterr().err.startswith("error: every level of tpu:v5e failed in the cached capture: ")


@sync
async def test_the_apps_startup_capture_whose_every_target_failed_says_why(fake, accelerators, workplace):
    fake("accelerator_all_fail")
    app = create_app(model_spec="mlp", options=CaptureOptions(targets=("tpu:v5e",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1500):
            if app.load_error:
                break
            await asyncio.sleep(0.02)
            await pilot.pause()
        assert app.load_error.startswith("every level of tpu:v5e failed, nothing was cached: ") and app.is_running
        # The layers arrived before the target failed: they stay on screen, the status line says why.
        assert app.status.startswith("every level of tpu:v5e failed") and app.screen.query_one("#status").display
    assert not (workplace[1] / "bundles").is_dir() or files_under(workplace[1] / "bundles") == []


@pytest.mark.e2e
@pytest.mark.tvm
def test_tvm_as_the_only_target_of_an_lstm_exits_2_and_caches_nothing(workplace):
    """The real failure: TVM's ONNX importer has no `Loop`, which an LSTM exports to."""
    result = run_cli("capture", "lstm", "--targets", "tvm:cpu", cwd=workplace[0])
    assert result.returncode == 2, result.stderr[-3000:]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: every level of tvm:cpu failed, nothing was cached: ") and "Loop" in last
    assert files_under(workplace[1] / "bundles") == []


@pytest.mark.e2e
@pytest.mark.parametrize("function, frozen", [("frozen", " (every layer is frozen: trainable=False)"),
                                              ("weightless", "")])
def test_a_real_training_step_with_nothing_to_train_exits_2(function, frozen, workplace):
    (workplace[0] / "untrainable.py").write_text(UNTRAINABLE_MODELS, encoding="utf-8")
    result = run_cli("capture", f"untrainable:{function}", "--mode", "train", "--targets", "cpu", cwd=workplace[0])
    assert result.returncode == 2, result.stderr[-3000:]
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: nothing to train: the model has no trainable weights{frozen}; capture it without --mode train")
    assert files_under(workplace[1] / "bundles") == []


UNTRAINABLE_MODELS = '''
import keras
from keras import layers


def frozen():
    inputs = keras.Input((8,), name="x")
    hidden = layers.Dense(4, name="dense", trainable=False)(inputs)
    return keras.Model(inputs, layers.Dense(2, name="head", trainable=False)(hidden), name="frozen")


def weightless():
    inputs = keras.Input((8,), name="x")
    return keras.Model(inputs, layers.ReLU(name="relu")(inputs), name="weightless")
'''


# --- a full disk says "no space left on ..." ---------------------------------------------------------


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_pack_that_finds_the_disk_full_is_one_line_and_leaves_no_partial_file(workplace, capsys, monkeypatch):
    monkeypatch.setattr(zipfile.ZipFile, "write", no_space)
    assert_refused(["pack", str(BUNDLE), "-o", "p.twpack"], capsys, workplace,
                   f"error: no space left on {workplace[0]}: p.twpack was not written")


def writes_fail_in(folder_part: str, monkeypatch) -> None:
    """Path.write_text raises ENOSPC for files whose path holds `folder_part` (the command's staging)."""
    real = Path.write_text

    def write_text(self, *args, **kwargs):
        if folder_part in str(self):
            no_space()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_handout_that_finds_the_disk_full_is_one_line_and_leaves_no_staging(workplace, capsys, monkeypatch):
    writes_fail_in(".partial", monkeypatch)
    assert_refused(["handout", "tensor_to_registers", str(BUNDLE), "-o", "h"], capsys, workplace,
                   f"error: no space left on {workplace[0]}: h was not written")


def test_a_screenshot_that_finds_the_disk_full_is_one_line_and_leaves_no_partial_file(workplace, capsys, monkeypatch):
    writes_fail_in(".partial", monkeypatch)
    assert_refused(["screenshot", str(BUNDLE), "--out", "s.svg"], capsys, workplace,
                   f"error: no space left on {workplace[0]}: s.svg was not written")


def test_a_pack_that_cannot_be_unpacked_into_a_full_cache_says_so(workplace, capsys, monkeypatch, tmp_path):
    pack = tmp_path / "lesson.twpack"
    write_pack([Bundle.open(BUNDLE)], [], pack)
    monkeypatch.setattr(pack_module.shutil, "copyfileobj", no_space)
    assert main(["inspect", str(pack), "--level", "layers"]) == 2
    assert capsys.readouterr().err == (f"error: lesson.twpack: no space left on {workplace[1] / 'packs'}: "
                                       "the pack was not unpacked\n")
    assert files_under(workplace[1]) == ["packs"]  # the cache's folder for packs, empty: no staging left


def test_a_capture_that_finds_the_disk_full_is_one_line_not_sigabrt(fake, workplace, capsys):
    """XLA's dump writer aborts the worker when the disk is full; that read as a crash (SIGABRT)."""
    fake("no_space_abort")
    assert_capture_refused(["capture", "mlp", "--targets", "cpu"], capsys, workplace,
                           f"error: no space left on {workplace[1] / 'bundles'}: ", "nothing was cached")


# --- layout-map errors name what the user gave -------------------------------------------------------


def test_a_layout_map_whose_batch_does_not_divide_names_the_layout_map_not_shard(workplace, capsys):
    """`--layout-map` sets shard to model; the message named `--shard model`, which was never given."""
    layout = workplace[0] / "map.json"
    layout.write_text('{"dense/kernel": [null, "model"]}', encoding="utf-8")
    line = assert_refused(["capture", "mlp", "--targets", "tpu:v5e", "--mesh", "2x2", "--layout-map", "map.json",
                           "--batch", "3"], capsys, workplace,
                          "error: --layout-map map.json on a 2x2 mesh splits the batch in 2: --batch 3")
    assert "--shard" not in line


def test_the_compare_screens_mesh_columns_of_a_layout_map_bundle_name_the_layout_map(tmp_path):
    """The command a column offers repeats `--layout-map FILE`; one chip divides nothing, so its sibling is
    the capture without the map (`--layout-map` needs `--mesh`: one with it could never be captured)."""
    plain = Bundle.open(FIXTURES / "bundles" / "mlp_mesh_2x2")
    copy = tmp_path / "mapped"
    shutil.copytree(plain.path, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["options"].update(layout_map=[["dense/kernel", [None, "model"]]], layout_map_file="map.json")
    (copy / "manifest.json").write_text(json.dumps(manifest))
    mapped = Bundle.open(copy)
    one, _two, four = mesh_comparison(mapped, "tpu:v5e", "dense")
    assert shlex.split(four.note) == ["tensorweg", "capture", "mlp", "--batch", "8", "--mode", "train", "--optimizer",
                                      "sgd", "--mesh", "4x4", "--layout-map", "map.json", "--targets", "tpu:v5e"]
    assert sibling_path(mapped, "tpu:v5e", "")[0] == sibling_path(plain, "tpu:v5e", "")[0]
    assert one.note == sibling_path(plain, "tpu:v5e", "")[1]
