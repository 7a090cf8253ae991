"""The command line's defaults as a learner meets them (issue 24): `pack` packs the lessons its
bundles have the capture for, `serve` alone serves the sample captured before, a bundle without
cpu is shown on its first target, and `--target gpu` / `tpu` mean the default chips."""

from __future__ import annotations

import os
import shutil
import zipfile

import pytest

from explorer.capture.cache import cached_bundle_path
from explorer.capture.model_source import resolve
from explorer.cli.commands import capture_options
from explorer.cli.parser import build_parser
from explorer.course.pack import PACK_MANIFEST, open_pack
from explorer.course.tours import builtin_tour

from screens.cli import main
from screens.serve import command as serve_module
from screens.serve.policy import CAPTURE_VARIABLE

from tests.conftest import FIXTURES
from tests.serve_support import ServerRecorder

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
TPU_ONLY = FIXTURES / "bundles" / "mlp_one_chip"  # captured for tpu:v5e alone


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_pack_without_tours_packs_the_lessons_its_bundles_have_the_capture_for(tmp_path, capsys):
    out = tmp_path / "mnist.twpack"
    assert main(["pack", str(BUNDLE), "-o", str(out)]) == 0
    packed = open_pack(out).tours
    # mnist_cnn's inference capture: its lesson in both languages; not the two-compiler one (tvm:cpu),
    # not the lessons written for mlp, lstm, resnet_block or tiny_transformer
    assert set(packed) == {"tensor_to_registers", "tensor_bis_register"}
    assert all(builtin_tour(name).model == "mnist_cnn" for name in packed)
    bare = tmp_path / "bare.twpack"
    assert main(["pack", str(BUNDLE), "--no-tours", "-o", str(bare)]) == 0
    assert open_pack(bare).tours == ()
    with zipfile.ZipFile(bare) as archive:
        assert PACK_MANIFEST in archive.namelist()
    assert "not allowed with" in _error(capsys, ["pack", str(BUNDLE), "--tours", "basics", "--no-tours",
                                                 "-o", str(tmp_path / "both.twpack")])


def test_pack_refuses_a_named_lesson_written_for_another_model(tmp_path, capsys):
    err = _error(capsys, ["pack", str(BUNDLE), "--tours", "basics", "-o", str(tmp_path / "c.twpack")])
    assert "--tours basics: no packed bundle has the capture it needs (mlp)" in err
    assert not (tmp_path / "c.twpack").exists()


def test_serve_alone_serves_the_sample_captured_before(tmp_path, monkeypatch, capsys):
    """`tensorweg serve` names mnist_cnn; captured before (here: for cpu only), it is served from the
    cache as a bundle; never captured, serve says how to capture it, in one line."""
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    monkeypatch.setenv(CAPTURE_VARIABLE, "1")  # restored after the test: serve sets it
    assert "not captured yet" in _error(capsys, ["serve"])
    options = capture_options(build_parser().parse_args(["serve"]))
    cached = cached_bundle_path(resolve("mnist_cnn"), options)  # where `tensorweg open mnist_cnn` left it
    shutil.copytree(BUNDLE, cached)
    ServerRecorder.calls.clear()
    assert main(["serve"]) == 0
    (call,) = ServerRecorder.calls
    assert call.command.split(" open ")[1].split(" --lang ")[0] == os.path.relpath(cached)
    assert call.capture == "0"  # a bundle: the tabs never capture


@pytest.mark.parametrize("family, chip", [("tpu", "tpu:v5e"), ("gpu", "gpu:h100"), ("TPU", "tpu:v5e")])
def test_target_accepts_the_family_for_its_default_chip(family, chip, capsys):
    assert main(["inspect", str(BUNDLE), "--level", "optimized-hlo", "--target", family]) == 0
    by_family = capsys.readouterr().out
    assert main(["inspect", str(BUNDLE), "--level", "optimized-hlo", "--target", chip]) == 0
    assert by_family == capsys.readouterr().out
    assert main(["passes", str(BUNDLE), "--target", family]) == 0
    assert chip in capsys.readouterr().out


def test_a_bad_target_is_one_line(capsys, tmp_path):
    assert "unknown target 'npu'" in _error(capsys, ["inspect", str(BUNDLE), "--level", "hlo", "--target", "npu"])
    assert "unknown target 'npu'" in _error(capsys, ["screenshot", str(BUNDLE), "--target", "npu",
                                                     "--out", str(tmp_path / "x.svg")])
    assert not (tmp_path / "x.svg").exists()


def test_a_bundle_without_cpu_is_shown_on_its_first_target(tmp_path, capsys):
    assert main(["inspect", str(TPU_ONLY), "--level", "optimized-hlo"]) == 0
    default = capsys.readouterr().out
    assert main(["inspect", str(TPU_ONLY), "--level", "optimized-hlo", "--target", "tpu:v5e"]) == 0
    assert default == capsys.readouterr().out
    out = tmp_path / "tpu.svg"
    assert main(["screenshot", str(TPU_ONLY), "--level", "optimized-hlo", "--size", "80x24", "--out", str(out)]) == 0
    assert "tpu:v5e" in out.read_text(encoding="utf-8")
    assert "not in this bundle" in _error(capsys, ["screenshot", str(TPU_ONLY), "--target", "cpu",
                                                   "--out", str(tmp_path / "cpu.svg")])
