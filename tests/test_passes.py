"""The filmstrip's core: collecting XLA's per-pass dump, the pass list, a pass's diff, following
one instruction, narration, and `tensorweg passes` (fed recorded dumps and the recorded bundle)."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.model.bundle import Bundle
from explorer.model.passes import diff, follow, main_instruction_of_layer, read_frame
from explorer.model.passes_dump import AFTER, BEFORE, read_pass_texts, write_pass_frames
from explorer.texts.content_files import load_language
from explorer.views import passes as pass_view
from explorer.views.passes import unified_text

from pilot_support import BUNDLE

DUMP = Path(__file__).parent / "fixtures" / "xla_dump_passes_cpu"
TARGETS = ("cpu", "gpu:h100", "tpu:v5e")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", *args], capture_output=True, text=True, timeout=600)


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr


# --- collecting the dump -------------------------------------------------------------------------

def _collect(tmp_path: Path):
    before = next(DUMP.glob("*.before_optimizations.txt"))
    after = next(DUMP.glob("*.cpu_after_optimizations.txt"))
    return write_pass_frames(DUMP, before, after, tmp_path)


def test_the_recorded_cpu_dump_keeps_only_passes_that_changed_the_module(tmp_path):
    index = _collect(tmp_path)
    names = [frame.pass_name for frame in index.frames]
    assert index.snapshots_dumped == 25
    assert names[0] == BEFORE and names[-1] == AFTER
    assert "pipeline-start" not in names  # snapshots identical to the frame before are dropped
    assert names[1:-1] == ["dynamic-dimension-simplifier", "algsimp", "reshape-mover", "cse",
                           "reshape-decomposer", "fusion", "fusion-wrapper"]
    texts = read_pass_texts(tmp_path / "passes")
    assert len(texts) == len(index.frames)
    assert all(a != b for a, b in zip(texts, texts[1:], strict=False))  # each frame and the next
    fusion = names.index("fusion")
    assert index.frames[fusion].pipeline == "HLO_passes_after_layout_assignment"
    assert (index.frames[fusion - 1].fusions, index.frames[fusion].fusions) == (0, 5)


def test_collected_frames_are_normalised_and_compact(tmp_path):
    _collect(tmp_path)
    stored = (tmp_path / "passes" / "frames.json.gz").read_bytes()
    raw = sum(p.stat().st_size for p in DUMP.iterdir())
    assert len(stored) * 10 < raw
    text = gzip.decompress(stored).decode()
    assert not re.search(r"config_proto_\d|executor_type_\d|\"/(?:tmp|home|root|work)/", text)


def test_a_dump_without_snapshots_writes_nothing(tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    for path in DUMP.glob("*optimizations.txt"):
        shutil.copy(path, dump / path.name)
    assert write_pass_frames(dump, next(dump.glob("*before*")), None, tmp_path / "out") is None
    assert not (tmp_path / "out").exists()


# --- the list, the diff, follow ----------------------------------------------------------------

def test_the_frame_reader_sees_computations_and_fusions():
    strip = Bundle.open(BUNDLE).passes("cpu")
    last = strip.frame(len(strip) - 1)
    assert "fused_computation" in last.computations
    fusion = last.fused_by["fused_computation.4"]
    assert fusion.opcode == "fusion" and fusion.fusion_kind == "kLoop"
    tiny = read_frame('HloModule m\n\nENTRY %e () -> f32[] {\n'
                      '  ROOT %c = f32[] constant(1), metadata={op_name="x/y"}\n}\n')
    (line,) = tiny.computations["e"]
    assert (line.name, line.opcode, line.op_name, line.text) == ("c", "constant", "x/y", "ROOT %c = f32[] constant(1)")


def test_rows_carry_counts_and_the_last_frame_knows_its_temporaries():
    bundle = Bundle.open(BUNDLE)
    rows = bundle.passes("cpu").rows()
    assert [r.instructions_before for r in rows[1:]] == [r.instructions_after for r in rows[:-1]]
    assert all(r.temp_bytes is None for r in rows[:-1])
    temp = sum(a.size for a in bundle.memory("cpu").allocations if "temp" in a.kind)
    assert rows[-1].temp_bytes == temp > 0
    assert rows[0].narration_key == "pass:before-optimizations"


def test_the_fusion_pass_diff_shows_only_changed_computations():
    strip = Bundle.open(BUNDLE).passes("cpu")
    number = [f.pass_name for f in strip.frames].index("fusion")
    result = diff(strip, number)
    assert "max_F32.2" not in result.computations  # the reducer did not change
    assert {"fused_computation", "fused_computation.4"} <= set(result.computations)
    assert "BiasAdd.5" in result.removed and "Relu.5" in result.removed  # moved into the fusion
    text = unified_text(result)
    assert "@@ fused_computation.4 (new)" in text
    assert re.search(r"^\+ .*maximum\(", text, re.MULTILINE)
    assert "metadata=" not in text
    assert diff(strip, 0).lines == ()
    with pytest.raises(IndexError):
        diff(strip, len(strip))


def test_follow_the_convolution_on_every_target():
    bundle = Bundle.open(BUNDLE)
    tpu = follow(bundle.passes("tpu:v5e"), "conv_general_dilated.1")
    fused = next(step for step in tpu if step.kind == "fused")
    assert (fused.into, fused.fusion_kind) == ("fusion.11", "kOutput")
    assert bundle.passes("tpu:v5e").frames[fused.frame].pass_name == "tpu_fusion"
    assert "maximum" in fused.sentence and "frame" in fused.sentence

    gpu = follow(bundle.passes("gpu:h100"), "conv_general_dilated.1")
    assert gpu[0].kind == "rewritten" and "__cudnn$convForward" in gpu[0].sentence
    assert any("__cudnn$convBiasActivationForward" in step.sentence for step in gpu)

    cpu = follow(bundle.passes("cpu"), "convolution.1")
    feeds = next(step for step in cpu if step.kind == "feeds")
    assert feeds.into == "broadcast_maximum_fusion" and "add" in feeds.sentence and "maximum" in feeds.sentence


def test_follow_a_layer_lands_on_its_convolution():
    bundle = Bundle.open(BUNDLE)
    strip = bundle.passes("tpu:v5e")
    assert main_instruction_of_layer(strip, bundle.scopes["tpu:v5e"], "conv2d") == "conv_general_dilated.1"
    steps = pass_view.follow_target(strip, bundle, "tpu:v5e", "conv2d")
    assert pass_view.fusion_frame(steps).into == "fusion.11"


# --- narration -------------------------------------------------------------------------------------

def test_at_least_30_passes_of_the_samples_are_narrated_in_both_languages():
    bundle = Bundle.open(BUNDLE)
    seen = {frame.pass_name for target in TARGETS for frame in bundle.passes(target).frames}
    english, german = load_language("en"), load_language("de")
    narrated = {name for name in seen if f"pass:{name}" in english and f"pass:{name}" in german}
    assert len(narrated) >= 30, sorted(seen - narrated)
    assert seen == narrated


def test_an_unknown_pass_says_so():
    title, body, source = pass_view.narration("no-such-pass", "de")
    assert title == "no-such-pass" and "keinen Text" in body and source == ""
    title, body, _ = pass_view.narration("priority-fusion", "en")
    assert title.startswith("Priority fusion") and "performance model" in body


# --- the command line ---------------------------------------------------------------------------------

def test_passes_command_lists_frames_and_follows_a_layer():
    result = run_cli("passes", str(BUNDLE), "--target", "tpu:v5e", "--follow", "conv2d")
    assert result.returncode == 0, result.stderr
    assert "tpu_fusion" in result.stdout and "fused into fusion.11 (kOutput)" in result.stdout
    assert "compile time: not reported" in result.stdout
    data = json.loads(run_cli("passes", str(BUNDLE), "--json", "--frame", "6").stdout)
    assert data["frames"][6]["pass"] == "fusion" and data["compile_seconds"] is None
    assert "BiasAdd.5" in data["diff"]["removed"]


def test_passes_command_in_german_words_its_list_and_diff():
    result = run_cli("passes", str(BUNDLE), "--lang", "de", "--frame", "6")
    assert result.returncode == 0, result.stderr
    for german in ("mnist_cnn auf cpu: 9 Bilder", "Übersetzungszeit pro Pass: nicht gemeldet", "Instr. vorher",
                   "Bild 6: fusion in HLO_passes_after_layout_assignment (Bild 6 von 8)",
                   "@@ fused_computation.4 (neu)"):
        assert german in result.stdout, german
    for english in ("frames", "compile time", "instr. before", "(new)", "(changed)"):
        assert english not in result.stdout, english
    grappler = run_cli("passes", str(BUNDLE), "--grappler", "--lang", "de").stdout
    assert "Grappler (TensorFlow-Graph)" in grappler and "Optimierer-Läufe" in grappler and "Durchlauf 1" in grappler
    followed = run_cli("passes", str(BUNDLE), "--target", "tpu:v5e", "--follow", "conv2d", "--lang", "de").stdout
    assert "fusioniert in fusion.11 (kOutput)" in followed and "durch tpu_fusion" in followed, followed
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--lang", "de", "--follow", "nichts.7"),
                          "keine Instruktion 'nichts.7'")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--lang", "fr"), "--lang")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--lang", "de", "--frame", "99"), "Bilder 0 bis 8")


@pytest.fixture()
def bundle_without_passes(tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / "targets" / "cpu" / "passes")
    return copy


def test_passes_bad_input_is_one_line_and_exit_2(bundle_without_passes, tmp_path):
    assert_one_line_error(run_cli("passes", str(bundle_without_passes)), "capture it with --passes")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--frame", "99"), "frames 0 to 8")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--target", "gpu:a100"), "not in this bundle")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--target", "nope"), "unknown target")
    assert_one_line_error(run_cli("passes", str(BUNDLE), "--follow", "nothing.7"), "no instruction 'nothing.7'")
    damaged = bundle_without_passes / "targets" / "tpu-v5e" / "passes" / "frames.json.gz"
    damaged.write_bytes(b"not gzip")
    assert_one_line_error(run_cli("passes", str(bundle_without_passes), "--target", "tpu:v5e", "--frame", "1"),
                          "frames.json.gz: unreadable")


def test_passes_is_part_of_the_cache_key():
    from explorer.capture.cache import cache_key
    from explorer.capture.model_source import resolve
    from explorer.model.records import CaptureOptions

    source = resolve("mnist_cnn")
    assert cache_key(source, CaptureOptions()) != cache_key(source, CaptureOptions(passes=True))


@pytest.mark.parametrize("command", ["capture", "inspect", "open"])
def test_passes_flag_reaches_the_capture_options(command):
    from explorer.cli.commands import capture_options
    from explorer.cli.parser import build_parser

    extra = ["--level", "hlo"] if command == "inspect" else []
    args = build_parser().parse_args([command, "mnist_cnn", *extra, "--passes"])
    assert capture_options(args).passes is True
    assert capture_options(build_parser().parse_args([command, "mnist_cnn", *extra])).passes is False


def test_a_reader_sees_passes_written_after_it_first_looked(tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.move(copy / "targets" / "cpu" / "passes", tmp_path / "later")
    bundle = Bundle.open(copy)
    assert bundle.passes("cpu") is None
    shutil.move(tmp_path / "later", copy / "targets" / "cpu" / "passes")
    assert len(bundle.passes("cpu")) == 9 and bundle.passes("cpu") is bundle.passes("cpu")
