"""The command line contract: one-line errors with exit status 2, listings, argument checks.

These run the real `tensorweg` entry point (`screens.cli:main`, the console
script of pyproject.toml) in a subprocess, as a user would.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from explorer.capture.events import CacheHit, CaptureFinished, LevelCaptured, LevelFailed, LevelStarted
from explorer.cli.commands import progress_printer


def run_cli(*args: str, cwd=None, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "screens.cli", *args], capture_output=True, text=True,
                          cwd=cwd, stdin=stdin, timeout=600)


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_samples_lists_each_model_name_first():
    result = run_cli("samples")
    assert result.returncode == 0
    names = [line.split("\t")[0] for line in result.stdout.splitlines()]
    for expected in ("mnist_cnn", "mlp", "lstm", "tiny_transformer", "resnet_block", "depthwise"):
        assert expected in names


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("capture", "no_such_model"), ("unknown model 'no_such_model'", "mnist_cnn")),
        (("capture", "missing/model.keras"), ("no such file",)),
        (("inspect", "missing.h5", "--level", "layers"), ("no such file",)),
        (("capture", "mnist_cnn", "--input-shape", "x=1xbad"), ("bad --input-shape",)),
        (("capture", "mnist_cnn", "--batch", "0"), ("bad --batch",)),
        (("capture", "mnist_cnn", "--targets", "cpu,gpu:zx81"), ("gpu:zx81",)),
        (("capture", "no_such_module_xyz:build"), ("module 'no_such_module_xyz' not found",)),
        (("inspect", "mnist_cnn", "--level", "registers"), ("invalid choice",)),
        (("screenshot", "mnist_cnn", "--out", "x.png"), (".svg",)),
        (("screenshot", "mnist_cnn", "--size", "10x2", "--out", "x.svg"), ("bad --size",)),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_input_is_one_line_error(args, fragments):
    assert_one_line_error(run_cli(*args), *fragments)


def test_directory_that_is_not_a_savedmodel(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    assert_one_line_error(run_cli("inspect", str(tmp_path), "--level", "layers"), "not a SavedModel")


def test_debug_shows_the_traceback():
    result = run_cli("--debug", "capture", "no_such_model")
    assert result.returncode != 0
    assert "Traceback" in result.stderr


def test_the_console_script_is_the_ui_side_entry_point():
    """`tensorweg` runs screens.cli:main, which hands the UI commands to the core's parser."""
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "tensorweg"]
    assert script.value == "screens.cli:main"


def test_the_core_alone_refuses_the_ui_commands_in_one_line(tmp_path):
    """`python -m explorer.cli` has no UI; it says where the command lives instead of importing it."""
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "screenshot", "mnist_cnn", "--out",
                             str(tmp_path / "x.svg")], capture_output=True, text=True, timeout=120)
    assert_one_line_error(result, "opens the explorer", "tensorweg screenshot")


def test_the_ui_side_handles_exactly_the_commands_the_core_leaves_to_it():
    from explorer.cli.commands import HANDLERS
    from explorer.cli.parser import UI_COMMANDS

    from screens.cli import UI_HANDLERS

    assert set(UI_HANDLERS) == set(UI_COMMANDS)
    assert not set(HANDLERS) & set(UI_COMMANDS)


def test_progress_lines_say_what_each_capture_event_means():
    out = io.StringIO()
    show = progress_printer(out)
    for event in (LevelStarted("hlo", "cpu"), LevelCaptured("layers", seconds=1.5),
                  LevelFailed("kernels", "tpu:v5e", "not available on this platform"), CacheHit("/bundle"),
                  CaptureFinished("/bundle")):
        show(event)
    assert out.getvalue().splitlines() == [  # CaptureFinished prints no progress line
        "capturing hlo [cpu] ...", "captured  layers (1.5 s)",
        "failed    kernels [tpu:v5e]: not available on this platform", "cached: opening the earlier capture"]
