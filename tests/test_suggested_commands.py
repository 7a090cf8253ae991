"""Every command the app suggests pastes as one argv, and is one the learner can run (issues 36, 39).

A bundle whose manifest names its model `mnist_cnn; touch PWNED; echo` made `tensorweg compare`
print `run: tensorweg capture mnist_cnn; touch PWNED; echo --targets cpu,gpu:h100`; pasting it ran
the `touch`. Each place that suggests a command is fed such a bundle (or tour), and each suggested
line is pasted into a real shell whose `tensorweg` is a stand-in that records its arguments: the
argv must be the one meant, and no `PWNED` may appear. On an install without the compilers the
suggestions say how to install them first, and `c` never suggests capturing what a pack holds.
"""

from __future__ import annotations

import io
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from explorer import targets
from explorer.cli.main import main as core_main
from explorer.course.pack import bundle_argument, open_pack
from explorer.labels import label

from screens.app import create_app
from screens.cli import main
from screens.compare import CompareScreen
from screens.passes import PassesScreen
from screens.variant_diff import WhatIfScreen

from pilot_support import open_by_key, opened, sync
from tests.conftest import FIXTURES

HOSTILE_MODEL = "mnist_cnn; touch PWNED; echo"


def renamed_bundle(folder: Path, source: str = "mnist_cnn", keep: tuple[str, ...] | None = None,
                   without_passes: tuple[str, ...] = ()) -> Path:
    """A recorded bundle whose manifest names its model HOSTILE_MODEL, with only the targets `keep`."""
    bundle = folder / "named"
    shutil.copytree(FIXTURES / "bundles" / source, bundle)
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["model"]["spec"] = manifest["model"]["name"] = HOSTILE_MODEL
    if keep is not None:
        for target in set(manifest["options"]["targets"]) - set(keep):
            shutil.rmtree(bundle / "targets" / target.replace(":", "-"))
        manifest["options"]["targets"] = list(keep)
        manifest["levels"] = [entry for entry in manifest["levels"] if entry[0] in ("", *keep)]
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    for target in without_passes:
        shutil.rmtree(bundle / "targets" / target.replace(":", "-") / "passes")
    return bundle


def pasted(line: str, folder: Path) -> list[str]:
    """`line` pasted into bash: the arguments `tensorweg` got (a stand-in on PATH records them).
    Nothing else may have run: no `PWNED` in the folder it ran in."""
    bin_dir, record = folder / "bin", folder / "argv.json"
    bin_dir.mkdir(exist_ok=True)
    stand_in = bin_dir / "tensorweg"
    stand_in.write_text(f"#!{sys.executable}\nimport json, sys\n"
                        f"open({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    stand_in.chmod(0o755)
    record.unlink(missing_ok=True)
    subprocess.run(["bash", "-c", line], cwd=folder, env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
                   capture_output=True, timeout=60)
    assert not (folder / "PWNED").exists(), f"pasting ran more than tensorweg: {line}"
    assert shlex.split(line)[0] == "tensorweg"
    return json.loads(record.read_text())


def command_after(text: str, marker: str) -> str:
    """The command in a hint: what follows `marker` on its line."""
    (line,) = [line for line in text.splitlines() if marker in line]
    return line.split(marker, 1)[1].strip()


@pytest.fixture
def shell(tmp_path) -> Path:
    folder = tmp_path / "shell"
    folder.mkdir()
    return folder


def without_compilers(monkeypatch) -> None:
    monkeypatch.setattr(targets, "COMPILER_MODULES", ("tensorweg_test_no_such_compiler",))  # as if not installed


# --- the command line -----------------------------------------------------------------------------


def test_compare_prints_capture_commands_that_paste_as_one_argv(tmp_path, shell, capsys):
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"))
    assert core_main(["compare", str(bundle), "--layer", "conv2d"]) == 0
    out = capsys.readouterr().out
    line = command_after(out, "gpu:h100 not captured: press c in the explorer (opened from a model), or run:")
    assert pasted(line, shell) == ["capture", HOSTILE_MODEL, "--targets", "cpu,tpu:v5e,gpu:h100"]


def test_the_capture_hint_keeps_the_bundles_options(shell, capsys):
    """A training step's bundle grows by the command it suggests, not a new inference capture."""
    assert core_main(["compare", str(FIXTURES / "bundles" / "mlp_one_chip")]) == 0
    out = capsys.readouterr().out
    line = command_after(out, "cpu not captured: press c in the explorer (opened from a model), or run:")
    assert pasted(line, shell) == ["capture", "mlp", "--batch", "8", "--mode", "train", "--optimizer", "sgd",
                                   "--targets", "tpu:v5e,cpu"]


def test_compare_without_the_compilers_says_how_to_install_them_first(tmp_path, shell, capsys, monkeypatch):
    without_compilers(monkeypatch)
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"))
    assert core_main(["compare", str(bundle), "--layer", "conv2d"]) == 0
    out = capsys.readouterr().out
    hint = command_after(out, "gpu:h100 not captured:")
    assert hint.startswith(targets.COMPILERS_INSTALL_HINT + "; then run: ") and "press c" not in hint
    assert pasted(hint.split("; then run: ", 1)[1], shell) == ["capture", HOSTILE_MODEL, "--targets",
                                                               "cpu,tpu:v5e,gpu:h100"]


def test_a_pack_refusing_a_tour_names_a_capture_command_that_pastes_as_one_argv(tmp_path, shell, capsys):
    """`pack --tours FILE` whose tour needs a capture no packed bundle has: the error names the command."""
    tour = tmp_path / "steps.tour"
    tour.write_text(f"# title: Steps\n# model: {HOSTILE_MODEL}\n# lang: en\n# capture: --mode train --batch 8\n\n"
                    "step: level=layers select=dense\ntext: A step.\n", encoding="utf-8")
    assert main(["pack", str(FIXTURES / "bundles" / "mnist_cnn"), "--tours", str(tour),
                 "-o", str(tmp_path / "course.twpack")]) == 2
    err = capsys.readouterr().err
    line = err.split("pack a bundle made by `", 1)[1].rsplit("`", 1)[0]
    assert pasted(line, shell) == ["capture", HOSTILE_MODEL, "--mode", "train", "--batch", "8", "--targets",
                                   "cpu,gpu:h100,tpu:v5e"]
    assert not (tmp_path / "course.twpack").exists()


# --- the screens ----------------------------------------------------------------------------------


def static_text(screen, selector: str) -> str:
    console = Console(width=400, file=io.StringIO(), record=True, color_system=None)
    console.print(screen.query_one(selector).content)
    return console.export_text()


@sync
async def test_the_compare_screen_suggests_commands_that_paste_as_one_argv(tmp_path, shell):
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"))
    app = create_app(bundle, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_by_key(app, pilot, "x", CompareScreen)
        figures = static_text(screen, "#compare-figures")
    line = command_after(figures, "gpu:h100 not captured: press c in the explorer (opened from a model), or run:")
    assert pasted(line, shell) == ["capture", HOSTILE_MODEL, "--targets", "cpu,tpu:v5e,gpu:h100"]


@sync
async def test_the_compare_screens_meshes_suggest_commands_that_paste_as_one_argv(tmp_path, shell):
    bundle = renamed_bundle(tmp_path, source="mlp_mesh_2x2")
    app = create_app(bundle, level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await open_by_key(app, pilot, "x", CompareScreen)
        columns = {column.mesh: column for column in screen.mesh_columns}
        table = " ".join(static_text(screen, "#compare-mesh").split())
    assert table.count("press M, or run: tensorweg capture 'mnist_cnn; touch PWNED; echo'") == 2  # (cells wrap)
    for mesh, expected in (("", []), ("4x4", ["--mesh", "4x4", "--shard", "model"])):
        note = columns[mesh].note  # what the column's cell says after "run:"
        assert not columns[mesh].captured
        assert pasted(note, shell) == ["capture", HOSTILE_MODEL, "--batch", "8", "--mode", "train", "--optimizer",
                                       "sgd", *expected, "--targets", "tpu:v5e"]


@sync
async def test_the_filmstrip_suggests_a_command_that_pastes_as_one_argv(tmp_path, shell):
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"), without_passes=("cpu",))
    app = create_app(bundle, level="hlo", target="cpu")
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, PassesScreen)
        body = str(app.screen.query_one("#passes-diff-text").render())
    line = command_after(body, "  tensorweg")
    assert pasted("tensorweg " + line, shell) == ["open", HOSTILE_MODEL, "--passes", "--targets", "cpu,tpu:v5e"]


@sync
async def test_the_filmstrip_without_the_compilers_says_how_to_install_them(tmp_path, monkeypatch):
    """Issue 39: `f` on a UI-only install named `tensorweg open mnist_cnn --passes` as if it could run."""
    without_compilers(monkeypatch)
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"), without_passes=("cpu",))
    app = create_app(bundle, level="hlo", target="cpu")
    app.session.model_spec = "mnist_cnn"  # even an app opened from a model: this install cannot capture
    async with app.run_test(size=(200, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        body = str(app.screen.query_one("#passes-diff-text").render())
        assert f"{targets.COMPILERS_INSTALL_HINT}; then capture the frames and open them with:" in body
        assert not app.screen.missing.can_capture and "Press c" not in body


@sync
async def test_what_if_without_a_variant_suggests_a_command_that_pastes_as_one_argv(tmp_path, shell):
    bundle = renamed_bundle(tmp_path)
    app = create_app(bundle, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        text = str(screen.query_one("#whatif-layer").render())
    assert "No other variant of this model is in the cache for cpu" in text
    line = command_after(text, "run:")
    assert pasted(line, shell) == ["diff", HOSTILE_MODEL, "--vary", "batch=1,64", "--target", "cpu"]


@sync
async def test_what_if_without_the_compilers_says_how_to_install_them(tmp_path, monkeypatch):
    without_compilers(monkeypatch)
    app = create_app(FIXTURES / "bundles" / "mnist_cnn", level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(250, 50)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        text = " ".join(str(screen.query_one("#whatif-layer").render()).split())
    assert f"{targets.COMPILERS_INSTALL_HINT}; then run: tensorweg diff mnist_cnn --vary batch=1,64" in text


@sync
async def test_c_in_a_bundle_missing_a_target_names_a_command_that_pastes_as_one_argv(tmp_path, shell):
    bundle = renamed_bundle(tmp_path, keep=("cpu", "tpu:v5e"))
    app = create_app(bundle, level="kernels", target="cpu")
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        await pilot.press("c")
        await pilot.pause()
        note = app.session.note.text
    assert note.startswith("Opened from a bundle, which c does not capture into: to add gpu:h100, run: ")
    assert pasted(note.split("run: ", 1)[1], shell) == ["capture", HOSTILE_MODEL, "--targets", "cpu,tpu:v5e,gpu:h100"]


@pytest.mark.parametrize("lang", ["en", "de"])
@sync
async def test_c_on_a_packs_kernel_screen_says_every_target_is_there(tmp_path, lang):
    """Issue 39: `c` on a pack whose bundle has every default target said to capture the extra targets."""
    pack_file = tmp_path / "course.twpack"
    assert main(["pack", str(FIXTURES / "bundles" / "mnist_cnn"), "--no-tours", "-o", str(pack_file)]) == 0
    app = create_app(bundle_argument(str(pack_file), open_pack(pack_file).tour()), level="kernels", lang=lang)
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        await pilot.press("c")
        await pilot.pause()
        wanted = label("suggest.nothing_to_capture", lang).format(targets="cpu, gpu:h100, tpu:v5e")
        assert app.session.note.text == wanted
