"""Every `tensorweg` command line README.md and docs/*.md show runs as shown (issue 39, item 3).

Which lines, and how a template (`MODEL|BUNDLE`, `[--target T]`) becomes the command lines it
stands for: tests/docs_commands.py. Each runs through the console script's `main`, in a folder of
its own holding what the placeholders name (`bundle`: the recorded mnist_cnn bundle; `batch1`,
`batch64`: the recorded variants; `course.twpack` packed from them; `lesson.tour`; the layout map
docs/layout-map.md shows), with a cache of its own that holds the recorded bundles where a capture
with their options would have put them: `tensorweg inspect mnist_cnn` reads the recorded capture.

In the unit lane no compiler runs: the capture workers are stand-ins that refuse (a command line
that needs a capture the recorded bundles do not hold fails here, saying so). Those command lines
are listed in NEEDS with the reason, and run in the e2e lane with the real compilers (and Graphviz,
for the graph pictures), in a folder set up alike.

Commands that open the explorer (`tensorweg`, `tensorweg MODEL`, `open`, `tour`) are run up to the
terminal: every check of the command line runs (the model resolved, the bundle or pack opened, the
tour parsed, the options checked) and the command stops with its one error line that it needs a
terminal, where it would take the terminal over; a test cannot give it one and leave it. `serve` runs
with the server replaced by a recorder (tests/serve_support.py): everything is checked and nothing
listens; the command each browser tab would run is then run as above.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.capture.cache import cached_bundle_path, tool_versions
from explorer.capture.model_source import resolve
from explorer.cli.parser import SUBCOMMANDS, build_parser
from explorer.errors import TensorwegError
from explorer.model.bundle import read_manifest

from screens.cli import main
from screens.serve import command as serve_module

from tests.conftest import FIXTURES, ROOT
from tests.docs_commands import DOCUMENTS, Shown, expand, is_template, shown_commands
from tests.serve_support import ServerRecorder

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
VARIANTS = FIXTURES / "bundles" / "variants"
# Recorded bundles the cache holds, under the key of the model and options each was captured with; the
# recorded mnist_cnn holds the filmstrips of every target and Grappler's film (what `--passes` adds), so
# it is also the cache's `--passes` capture of mnist_cnn (`tensorweg passes mnist_cnn`).
CACHED = ((BUNDLE, {}), (BUNDLE, {"passes": True}), (VARIANTS / "batch64", {}), (VARIANTS / "bfloat16", {}),
          (VARIANTS / "no_fusion", {}))
NEEDS_TERMINAL = "error: the explorer needs a terminal (stdin and stdout)"

# Command lines (as expanded) that need what the unit lane has not: a capture the recorded bundles do
# not hold, or Graphviz to render a picture. They run in the e2e lane.
NEEDS = {
    "capture mnist_cnn --targets cpu,gpu:h100,tpu:v5e --batch 1 --input-shape image=1x28x28x1 -o out":
        "a capture with --input-shape (another cache key), into a folder",
    "capture mnist_cnn --targets cpu,tvm:cpu": "the tvm:cpu target (Apache TVM)",
    "capture mlp --targets tpu:v5e --mesh 2x2 --batch 8 --layout-map layout_map.toml": "a 2x2 mesh capture of mlp",
    "diff mnist_cnn --vary batch=1,64 --target tpu:v5e": "the batch-64 variant on tpu:v5e",
    "diff mnist_cnn --vary batch=1,64": "the batch-64 variant on every default target",
    "diff resnet50 --vary batch=1,64": "ResNet50, twice",
    "diff mlp --vary mesh=none,2x2 --shard model --batch 8 --target tpu:v5e": "mlp on one chip and on a 2x2 mesh",
    "diff mnist_cnn --vary quantize=none,int8 --target arm:cortex-a76":
        "the float and int8 variants on arm:cortex-a76 (tfcompile ahead of time)",
    "capture mnist_cnn --targets cpu,arm:cortex-a76,tvm:arm":
        "the arm:cortex-a76 (tfcompile) and tvm:arm (Apache TVM) targets",
    "passport resnet50 --layer conv1_conv --target cpu": "ResNet50",
    "graph bundle --level graph --lang en -o F.svg": "Graphviz renders the SVG",
    "graph course.twpack --level hlo --lang en -o F.png": "Graphviz renders the PNG",
    "graph course.twpack --level optimized-hlo --lang en -o F.pdf": "Graphviz renders the PDF",
    "graph mnist_cnn --level optimized-hlo --select conv2d --depth 2 -o conv.svg": "Graphviz renders the SVG",
    "graph mnist_cnn --level optimized-hlo --select conv2d --depth 1 -o F.svg": "Graphviz renders the SVG",
}


def _shown() -> list[Shown]:
    return [shown for document in DOCUMENTS for shown in shown_commands(document)]


def _command_lines() -> list[tuple[Shown, list[str]]]:
    return [(shown, argv) for shown in _shown() for argv in expand(shown)]


def _param(shown: Shown, argv: list[str]):
    return pytest.param(shown, argv, id=f"{shown.where} {shlex.join(argv) or '(tensorweg)'}")


COMMAND_LINES = _command_lines()


def _reference_words(shown: Shown) -> list[str] | None:
    """A reference's words after `tensorweg COMMAND` (option names and placeholders only), else None."""
    words = shown.text.split()[1:]
    if not words or words[0] not in SUBCOMMANDS:
        return None
    rest = words[1:]
    if all(word.startswith("-") or word == "..." or is_template(word) for word in rest):
        return rest
    return None


def _parses(argv: list[str]) -> bool:
    """Whether the command line's own parser accepts it as it stands (`--help` counts)."""
    try:
        build_parser(argv[0]).parse_args(argv)
    except TensorwegError:
        return False
    except SystemExit as exc:
        return exc.code == 0
    return True


def _workplace(tmp_path, monkeypatch) -> None:
    """The folder the command lines run in, and a cache holding the recorded bundles."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(BUNDLE, work / "bundle")
    shutil.copytree(VARIANTS / "batch1", work / "batch1")
    shutil.copytree(VARIANTS / "batch64", work / "batch64")
    shutil.copy(ROOT / "explorer" / "course" / "tours" / "tensor_to_registers.tour", work / "lesson.tour")
    layout_map = re.search(r"```toml\n(.*?)```", (ROOT / "docs" / "layout-map.md").read_text(encoding="utf-8"), re.S)
    (work / "layout_map.toml").write_text(layout_map.group(1), encoding="utf-8")
    for recorded, options in CACHED:
        _seed_cache(recorded, options)
    monkeypatch.chdir(work)
    assert main(["pack", "bundle", "--tours", "tensor_to_registers,tensor_bis_register", "-o", "course.twpack"]) == 0


def _seed_cache(recorded: Path, options: dict) -> None:
    """The recorded bundle where a capture of its model with its options would be, as if this checkout
    had captured it: its identity names the sample's source as it is now and the tools installed here
    (it was recorded before later edits of sample_models/ and with the tools of its day; the cache
    grows only a bundle of the same model bytes and tools). Its compiler output is the recorded one."""
    manifest = read_manifest(recorded)
    source = resolve(manifest.model.spec)
    cached = cached_bundle_path(source, replace(manifest.options, **options))
    shutil.copytree(recorded, cached)
    for name, key in (("manifest.json", "model"), ("identity.json", None)):
        data = json.loads((cached / name).read_text(encoding="utf-8"))
        (data[key] if key else data)["sha256"] = source.content_hash
        if key:
            data["tools"] = [list(tool) for tool in tool_versions()]
            data["options"].update(options)
        (cached / name).write_text(json.dumps(data), encoding="utf-8")


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:  # `--help`
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def _opens_the_explorer(argv: list[str]) -> bool:
    return not argv or argv[0] not in SUBCOMMANDS or argv[0] in ("open", "tour")


def _check_runs(shown: Shown, argv: list[str], capsys, monkeypatch) -> None:
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    status, out, err = _run(argv, capsys)
    where = f"{shown.where}: `tensorweg {shlex.join(argv)}`"
    if _opens_the_explorer(argv):
        assert status == 2 and err.startswith(NEEDS_TERMINAL) and err.count("\n") == 1, f"{where}: {err}"
        return
    assert status == 0, f"{where} exited {status}: {err.strip().splitlines()[-1:] or out[-300:]}"
    assert "error:" not in err and "Traceback" not in err, f"{where}: {err}"
    for option in ("-o", "--out"):
        if option in argv:
            written = argv[argv.index(option) + 1]
            assert Path(written).exists(), f"{where} did not write {written}"
    if argv[0] == "serve":  # what each browser tab runs, run as the tab would
        (call,) = ServerRecorder.calls
        tab = shlex.split(call.command)
        tab = tab[tab.index("screens.cli") + 1:]
        status, _, err = _run(tab, capsys)
        assert status == 2 and err.startswith(NEEDS_TERMINAL), f"{where}: its tabs' `{shlex.join(tab)}`: {err}"


def _check_reference(shown: Shown, words: list[str], capsys) -> None:
    """A command named in prose: it exists, and its --help lists every option named."""
    command = shown.text.split()[1]
    status, usage, _ = _run([command, "--help"], capsys)
    assert status == 0, f"{shown.where}: `tensorweg {command}` is not a command"
    for option in (word for word in words if word.startswith("-")):
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", usage), \
            f"{shown.where}: `tensorweg {command} --help` lists no {option}"


@pytest.mark.parametrize("shown, argv", [_param(*c) for c in COMMAND_LINES if shlex.join(c[1]) not in NEEDS])
def test_a_command_line_the_docs_show_runs_as_shown(shown, argv, tmp_path, monkeypatch, capsys, fake):
    fake("fatal")  # no compiler: a capture the recorded bundles do not hold is refused
    _workplace(tmp_path, monkeypatch)
    words = _reference_words(shown)
    if words is not None:
        _check_reference(shown, words, capsys)
        if not _parses(argv):
            return  # prose naming a command or its options (`tensorweg pack --tours`), not a command line
    _check_runs(shown, argv, capsys, monkeypatch)


@pytest.mark.e2e
@pytest.mark.parametrize("shown, argv", [_param(*c) for c in COMMAND_LINES if shlex.join(c[1]) in NEEDS])
def test_a_command_line_the_docs_show_runs_as_shown_with_the_compilers(shown, argv, tmp_path, monkeypatch, capsys):
    _workplace(tmp_path, monkeypatch)
    _check_runs(shown, argv, capsys, monkeypatch)


def test_every_command_line_needing_more_is_one_the_docs_show():
    """NEEDS lists only command lines the documents show (a line rewritten there leaves no stale entry)."""
    assert set(NEEDS) <= {shlex.join(argv) for _, argv in COMMAND_LINES}


def test_the_documents_show_commands_and_templates_of_every_command():
    """The extraction itself: it finds the README's table of commands, the shell line's `.venv/bin/tensorweg`,
    a span wrapped over two lines, and a placeholder for each template it expands."""
    found = {shlex.join(argv) for _, argv in COMMAND_LINES}
    assert "explain memory:vmem@tpu --lang en" in found  # the README's own example
    assert "diff mnist_cnn --vary batch=1,64 --target tpu:v5e" in found  # a span over a line break
    assert "" in found  # `.venv/bin/tensorweg` after `pip install ... &&`
    assert {"inspect bundle --level memory", "passes bundle --grappler",
            "graph course.twpack --level hlo --lang en -o F.png"} <= found
    shown_commands_of = {argv[0] for _, argv in COMMAND_LINES if argv}
    assert set(SUBCOMMANDS) - shown_commands_of == set(), "a command the docs never show"


def test_an_unclosed_code_block_is_found(tmp_path, monkeypatch):
    """A stray fence renders the rest of a page as code (README.md had one): the extraction refuses it."""
    from tests import docs_commands

    monkeypatch.setattr(docs_commands, "ROOT", tmp_path)
    page = tmp_path / "x.md"
    page.write_text("```\ntensorweg samples\n```\n\ntext\n\n```\n\nmore `tensorweg samples`\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="never closed"):
        shown_commands(page)
