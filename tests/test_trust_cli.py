"""Issue 16's table of bad command-line input: each is one `error:` line, exit 2, no traceback,
and nothing written or cached.

Every case runs the real `tensorweg` entry point (`screens.cli`) in a subprocess, on the
recorded bundle tests/fixtures/bundles/mnist_cnn (so no compiler runs), with stdin not a
terminal, as a script or CI would run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.course.tours import parse_tour
from explorer.course.tours.parser import read_tour_file
from explorer.errors import ParseError

from pilot_support import BUNDLE, needs_bundle, sync
from tests.conftest import files_under

pytestmark = needs_bundle

GOOD_TOUR = "# title: T\n# model: mnist_cnn\n# lang: en\n\nstep: level=layers select=conv2d\ntext: Hello.\n"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "screens.cli", *args], capture_output=True, text=True,
                          cwd=cwd, stdin=subprocess.DEVNULL, timeout=300)


@pytest.fixture
def workplace(empty_workplace):
    """A current folder holding only the bad inputs below, and an empty cache: a bad input must
    leave both as they were."""
    cwd, cache = empty_workplace
    (cwd / "a-file").write_text("not a folder")
    (cwd / "a-folder.svg").mkdir()
    (cwd / "binary.tour").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    (cwd / "quote.tour").write_text(GOOD_TOUR.replace("select=conv2d", 'select="conv2d'), encoding="utf-8")
    (cwd / "line3.tour").write_text(GOOD_TOUR.replace("# lang: en", "# lang: fr"), encoding="utf-8")
    return cwd, cache


def assert_refused(result: subprocess.CompletedProcess, *fragments: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr[-3000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


B = str(BUNDLE)
CASES = {
    "out-into-a-missing-folder": (("screenshot", B, "--out", "missing/shot.svg"), ("missing", "does not exist")),
    "out-onto-a-folder": (("screenshot", B, "--out", "a-folder.svg"), ("a-folder.svg", "is a folder")),
    "out-under-a-file": (("screenshot", B, "--out", "a-file/shot.svg"), ("a-file", "not a folder")),
    "level-bogus": (("screenshot", B, "--level", "bogus", "--out", "shot.svg"), ("invalid choice: 'bogus'",)),
    "size-huge": (("screenshot", B, "--size", "100000x100000", "--out", "shot.svg"), ("bad --size", "500x200")),
    "size-garbage": (("screenshot", B, "--size", "wide", "--out", "shot.svg"), ("bad --size",)),
    "select-missing": (("screenshot", B, "--select", "no_such_layer", "--out", "shot.svg"),
                       ("--select no_such_layer: no item or layer of that name at layers (items: image, conv2d",)),
    "target-bogus": (("screenshot", B, "--target", "bogus", "--out", "shot.svg"), ("unknown target 'bogus'", "known:")),
    "target-not-captured": (("screenshot", B, "--target", "tpu:v4", "--out", "shot.svg"),
                            ("tpu:v4", "not in this bundle")),
    "open-without-a-terminal": ((B,), ("needs a terminal",)),
    "default-without-a-terminal": ((), ("needs a terminal",)),
    "tour-without-a-terminal": (("tour", "tensor_to_registers", B), ("needs a terminal",)),
    "tour-binary": (("tour", "binary.tour", B), ("binary.tour:1:1:", "not a UTF-8 text file")),
    "tour-unterminated-quote": (("tour", "quote.tour", B), ("quote.tour:5:27:", "unterminated quote")),
    "tour-error-on-line-3": (("tour", "line3.tour", B), ("line3.tour:3:9:", "lang must be 'de' or 'en'")),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_and_leaves_nothing_behind(case, workplace):
    cwd, cache = workplace
    before = files_under(cwd)
    args, fragments = CASES[case]
    assert_refused(run_cli(*args, cwd=cwd), *fragments)
    assert files_under(cwd) == before  # no SVG, no partial file
    assert files_under(cache) == []  # nothing captured or cached


def test_out_into_a_read_only_folder(workplace):
    """A folder the user cannot write to; root writes anywhere, so /proc (read-only for root too) stands in."""
    cwd, cache = workplace
    if os.geteuid() == 0:
        target = Path("/proc/tensorweg-shot.svg")
    else:
        locked = cwd / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        target = locked / "shot.svg"
    line = assert_refused(run_cli("screenshot", B, "--out", str(target), cwd=cwd), "shot.svg")
    assert "not writable" in line or "cannot write" in line
    assert not target.exists() and not target.with_name(f".{target.name}.partial").exists()
    assert files_under(cache) == []


def test_a_good_screenshot_writes_exactly_the_svg(workplace):
    """The same command with good input works: the refusals above are not a broken command."""
    cwd, cache = workplace
    result = run_cli("screenshot", B, "--select", "conv2d", "--size", "80x24", "--out", "shot.svg", cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert (cwd / "shot.svg").read_text(encoding="utf-8").startswith("<svg")
    assert not list(cwd.glob(".*.partial"))


@sync
async def test_an_error_inside_the_app_ends_it_for_the_one_line():
    """A TensorwegError raised while the app runs (a screen reading a broken file) is not a traceback:
    the app stops and hands it to the CLI, which prints it as one line (see screens.cli)."""
    from explorer.errors import TensorwegError

    from screens.app import create_app

    app = create_app(BUNDLE, level="layers")

    def fail() -> None:
        raise TensorwegError("hlo.json: not valid JSON")

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.call_next(fail)
        await pilot.pause()
    assert isinstance(app.failure, TensorwegError) and str(app.failure) == "hlo.json: not valid JSON"
    assert app.return_code == 2


# --- any tour text: a tour or one located parse error, never a crash ---------------------------

TOUR_PIECES = ["# title: T\n", "# model: mnist_cnn\n", "# lang: en\n", "# lang: xx\n", "# bogus: 1\n", "step:",
               " level=hlo", " level=layers", " target=tpu:v5e", " target=zx81", ' select="a b', ' select="x"',
               " select=layer:conv2d,kind:", " select=", "=", '"', "\n", "text: hi\n", "text:\n", "  more\n",
               "explain: selected\n", "explain: nope\n", "\t", " ", "\x00", "é", "[/]", "#"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOUR_PIECES), max_size=40).map("".join) | st.text(max_size=200))
def test_any_tour_text_is_a_tour_or_one_located_parse_error(text):
    try:
        tour = parse_tour(text, "fuzz.tour")
    except ParseError as error:
        assert error.line >= 1 and error.column >= 1, str(error)
        assert "\n" not in str(error)
        return
    assert tour.steps and tour.lang in ("de", "en")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_tour_file_bytes_are_a_tour_or_one_located_parse_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("tour") / "fuzz.tour"
    path.write_bytes(data)
    try:
        parse_tour(read_tour_file(path, "fuzz.tour"), "fuzz.tour")
    except ParseError as error:
        assert error.line >= 1 and error.column >= 1, str(error)
