"""`tensorweg diff BUNDLE_A BUNDLE_B` on the recorded variant bundles (tests/fixtures/bundles/variants/):
its words in German, and the capture options it refuses (two captured bundles have their options fixed);
`--donate` / `--no-donate` outside train mode. In-process (main), so this tree's code runs."""

from __future__ import annotations

import pytest

from explorer.cli.main import main

from tests.conftest import FIXTURES, files_under

VARIANTS = FIXTURES / "bundles" / "variants"
# Every heading and row name `diff` printed in English before it had German words.
ENGLISH_HEADINGS = (
    " on cpu: ", " vs ", "model ", "change", "per layer", "changed", "fusions", "kernels", "instructions",
    "instr ", "bytes moved", "estimated time", "estimate", "bound", "peak memory", "registers", "occupancy",
    "tiles", "layer ", "matched by", "checked against", "arguments + outputs", "compute", "memory ", "Why:",
)


def diff_text(capsys, *args: str) -> str:
    assert main(["diff", str(VARIANTS / "batch1"), *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("other", ["batch64", "bfloat16", "no_fusion"])
def test_diff_in_german_prints_no_english_heading(capsys, other):
    text = diff_text(capsys, str(VARIANTS / other), "--lang", "de")
    english = diff_text(capsys, str(VARIANTS / other), "--lang", "en")
    assert "je Schicht (* geändert; A -> B):" in text and "Modell" in text and "Änderung" in text
    assert "per layer (* changed; A -> B):" in english
    # The explanations' sources are cited as published (often in English): look at the tables only.
    tables = text.split("\nWarum: ")[0]
    found = [heading for heading in ENGLISH_HEADINGS if heading in tables]
    assert found == [], found


@pytest.mark.parametrize("option", [
    ("--dtype", "bfloat16"), ("--batch", "64"), ("--xla-flag", "xla_disable_hlo_passes=fusion"), ("--remat",),
    ("--mode", "train"), ("--remat-layers", "conv"), ("--mesh", "2x2"),
], ids=lambda option: option[0])
def test_capture_options_are_refused_for_two_bundles(capsys, empty_workplace, option):
    cwd, cache = empty_workplace
    status = main(["diff", str(VARIANTS / "batch1"), str(VARIANTS / "batch64"), *option])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option[0] in lines[0], err
    assert "capture options mean nothing" in lines[0] and "Traceback" not in err
    assert files_under(cache) == []


def test_every_capture_option_given_is_named_in_the_one_line(capsys):
    assert main(["diff", str(VARIANTS / "batch1"), str(VARIANTS / "batch64"), "--dtype", "float16",
                 "--batch", "8"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--dtype" in line and "--batch" in line


@pytest.mark.parametrize("args", [
    ("capture", "mnist_cnn", "--no-donate"),
    ("inspect", "mnist_cnn", "--level", "hlo", "--donate"),
    ("diff", "mnist_cnn", "--vary", "donate=on,off"),
], ids=" ".join)
def test_donation_outside_a_training_step_is_one_line_and_caches_nothing(capsys, empty_workplace, args):
    cwd, cache = empty_workplace
    assert main(list(args)) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "donate needs --mode train" in lines[0], err
    assert "Traceback" not in err and files_under(cache) == [] and files_under(cwd) == []
