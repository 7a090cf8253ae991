"""`tensorweg MODEL` loads only what its own command line needs before the UI starts.

The console script's module loads no command; `open MODEL` builds the parser of `open` alone and
checks its options without the other commands, the tours, the lessons, the capture or the HLO
(checked in a fresh interpreter). The parser of one subcommand reads that subcommand's arguments
exactly as the parser of every subcommand does (same help, same values).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys

import pytest

from explorer.cli.parser import SUBCOMMANDS, build_parser

COMMAND_MODULES = tuple(f"explorer.cli.{name}" for name in (
    "graph_command", "diff_command", "pack_command", "passport_command", "handout_command", "texts_commands"))

# What `open MODEL` needs none of: the other commands, lessons and packs, the capture and its events,
# the bundle reader, the mesh checks and the HLO scanners (--mesh), a layout map's reader (--layout-map),
# the explanations (a locale is read without them).
NOT_FOR_OPEN = (*COMMAND_MODULES, "explorer.course.tours", "explorer.course.lessons", "explorer.course.handout",
                "explorer.capture.orchestrator", "explorer.capture.events", "explorer.capture.layout_map",
                "explorer.capture.queue", "explorer.model.bundle", "explorer.model.sharding",
                "explorer.texts.lookup")
NOT_FOR_OPEN_PACKAGES = ("explorer.hlo", "explorer.views")

PROBE = r"""
import json, sys
import screens.cli
imported = sorted(sys.modules)
code = screens.cli.main(sys.argv[1:])  # no terminal here: stops just before the UI would start
print(json.dumps({"imported": imported, "ran": sorted(sys.modules), "code": code}))
"""


def _probe(*argv: str) -> tuple[dict, str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    assert result.stdout, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def _loaded(modules: list[str], names: tuple[str, ...], packages: tuple[str, ...] = ()) -> list[str]:
    return sorted(m for m in modules if m in names or m.startswith(tuple(f"{p}." for p in packages)) or m in packages)


def test_the_console_scripts_module_loads_no_command():
    probe, _ = _probe("open", "mnist_cnn")
    imported = probe["imported"]
    assert "screens.cli" in imported
    assert _loaded(imported, (*COMMAND_MODULES, "explorer.cli.parser", "explorer.cli.commands"),
                   ("explorer.capture", "explorer.course", "explorer.model", "explorer.hlo", "explorer.views",
                    "explorer.texts")) == []


@pytest.mark.parametrize("argv", [("open", "mnist_cnn"), ("mnist_cnn",)])
def test_open_model_checks_its_command_line_with_the_open_path_alone(argv):
    probe, stderr = _probe(*argv)
    assert probe["code"] == 2 and "needs a terminal" in stderr  # every check before the UI passed
    ran = probe["ran"]
    assert {"explorer.capture.model_source", "explorer.capture.options", "explorer.model.records"} <= set(ran)
    assert _loaded(ran, NOT_FOR_OPEN, NOT_FOR_OPEN_PACKAGES) == []
    assert "screens.app" not in ran


def _help(argv: list[str], parser) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args(argv)
    return out.getvalue()


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_one_subcommands_parser_reads_it_as_the_whole_parser_does(command):
    assert _help([command, "--help"], build_parser(command)) == _help([command, "--help"], build_parser())
    argv = {"tour": [command, "basics", "mlp"], "handout": [command, "basics", "mlp", "-o", "out"],
            "graph": [command, "mlp", "--level", "layers", "-o", "g.dot"], "explain": [command, "hlo:dot"],
            "inspect": [command, "mlp", "--level", "layers"], "passport": [command, "mlp", "--layer", "d"],
            "screenshot": [command, "mlp", "--out", "s.svg"], "pack": [command, "mlp", "-o", "p.twpack"],
            "diff": [command, "mlp", "--vary", "batch=1,2"]}.get(command, [command, "mlp"])
    if command in ("samples", "glossary"):
        argv = [command]
    assert build_parser(command).parse_args(argv) == build_parser().parse_args(argv)


def test_the_whole_help_names_every_subcommand():
    listed = re.search(r"\{([a-z,]+)\}", _help(["--help"], build_parser())).group(1).split(",")
    assert sorted(listed) == sorted(SUBCOMMANDS)
