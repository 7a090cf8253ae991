"""Terminal escapes in names from a model, bundle, pack or tour are shown, never obeyed (issue 23).

A recorded bundle whose last layer is renamed to carry OSC 0 (window title), OSC 52 (clipboard),
CSI 2J (clear screen), BEL, a C1 CSI (U+009B) and U+202E (right-to-left override) goes through
every boundary where such text meets a terminal or a document: the CLI's text output and error
lines, a capture worker's error line, the handout files and the screens. Each test asserts on
what was written (bytes, files, rendered segments): none of those characters, their stand-ins
(`explorer.safe_text`) instead.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.color import Color

from explorer.capture.events import LevelFailed
from explorer.capture.orchestrator import capture
from explorer.cli.main import main as core_main
from explorer.course.handout import handout_steps, render_html
from explorer.course.handout_markdown import render_markdown
from explorer.course.tours import parse_tour
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.safe_text import visible

from screens.app import create_app
from screens.cli import main
from screens.serve import command as serve_module
from screens.widgets.visible_text import VisibleTextFilter

from pilot_support import opened, sync
from tests.conftest import FIXTURES

# Each attack as it would be written into a name.
OSC_TITLE = "\x1b]0;pwned\x07"
OSC_CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
CLEAR_SCREEN = "\x1b[2J"
BELL = "\x07"
C1_CSI = "\x9b31m"
RIGHT_TO_LEFT = "\u202egnp.exe"
HOSTILE_LAYER = "dense" + OSC_TITLE + OSC_CLIPBOARD + CLEAR_SCREEN + BELL + C1_CSI + RIGHT_TO_LEFT
# How each is shown: control pictures for C0 (ESC, BEL), escapes for C1 and the bidi override.
SHOWN_LAYER = "dense␛]0;pwned␇␛]52;c;cHduZWQ=␇␛[2J␇\\x9b31m\\u202egnp.exe"
NEVER_WRITTEN = ("\x1b", "\x07", "\x9b", "\u202e")


def assert_shown_not_obeyed(text: str, shown: str = SHOWN_LAYER) -> None:
    found = [hex(ord(char)) for char in NEVER_WRITTEN if char in text]
    assert not found, f"control characters written: {found}"
    assert shown in text


def assert_bytes_shown_not_obeyed(data: bytes) -> None:
    for char in NEVER_WRITTEN:
        assert char.encode("utf-8") not in data, hex(ord(char))
    assert SHOWN_LAYER.encode("utf-8") in data


@pytest.fixture
def hostile_bundle(tmp_path) -> Path:
    return make_hostile_bundle(tmp_path)


def make_hostile_bundle(tmp_path: Path) -> Path:
    """The recorded mnist_cnn bundle with its layer `dense` renamed to HOSTILE_LAYER everywhere."""
    bundle = tmp_path / "hostile_bundle"
    shutil.copytree(FIXTURES / "bundles" / "mnist_cnn", bundle)
    for path in [bundle / "layers.json", bundle / "scopes.json", *bundle.glob("targets/*/scopes.json")]:
        path.write_text(path.read_text().replace('"dense"', json.dumps(HOSTILE_LAYER)))
    assert HOSTILE_LAYER in [layer.name for layer in Bundle.open(bundle).layers]
    return bundle


# --- the sanitiser ------------------------------------------------------------------------------


def test_every_control_character_and_bidi_override_gets_a_visible_stand_in():
    assert visible(HOSTILE_LAYER) == SHOWN_LAYER
    assert visible("a\x00b\x7fc\x85d\u2066e\u200ff") == "a␀b␡c\\x85d\\u2066e\\u200ff"
    assert visible("two\nlines\tand\r") == "two␊lines␉and␍"  # a name is one line
    assert visible("two\nlines\tand\r", multiline=True) == "two\nlines\tand␍"  # a table or a document
    clean = "conv2d · Schicht für Schicht 层"
    assert visible(clean) is clean  # the usual text is returned as it is, not copied



@pytest.mark.parametrize("code", [*range(0x20), 0x7F])
def test_each_ascii_control_alone_in_a_long_clean_text_is_found_in_both_modes(code):
    """ASCII text takes a quicker path (bytes) than the rest: it must find what the pattern finds."""
    text = "x" * 5000 + chr(code) + "y" * 5000
    for multiline in (False, True):
        kept = multiline and chr(code) in "\n\t"
        shown = visible(text, multiline)
        assert (shown is text) if kept else (chr(code) not in shown and len(shown) == len(text)), (code, multiline)
    clean = "%fusion.1 = f32[8,32]{1,0} fusion(%p0), kind=kLoop\n\tnext"
    assert visible(clean, multiline=True) is clean

# --- the command line ---------------------------------------------------------------------------


def test_inspect_layers_text_shows_the_escapes_and_keeps_its_columns(hostile_bundle, capsysbinary):
    assert core_main(["inspect", str(hostile_bundle), "--level", "layers"]) == 0
    out = capsysbinary.readouterr().out
    assert_bytes_shown_not_obeyed(out)
    lines = out.decode("utf-8").splitlines()
    header, row = lines[0], next(line for line in lines if line.startswith("dense"))
    assert row.index("Dense") == header.index("class")  # measured on the stand-ins: aligned


def test_inspect_json_keeps_the_exact_name_escaped_by_json(hostile_bundle, capsysbinary):
    assert core_main(["inspect", str(hostile_bundle), "--level", "layers", "--json"]) == 0
    out = capsysbinary.readouterr().out
    assert not any(char.encode("utf-8") in out for char in NEVER_WRITTEN)
    assert HOSTILE_LAYER in [layer["name"] for layer in json.loads(out)["layers"]]


def test_compare_error_line_listing_layer_names_shows_the_escapes(hostile_bundle, capsysbinary):
    assert core_main(["compare", str(hostile_bundle), "--layer", "nosuch" + OSC_TITLE]) == 2
    captured = capsysbinary.readouterr()
    assert captured.out == b""
    assert captured.err.startswith(b"error: no layer 'nosuch\xe2\x90\x9b]0;pwned\xe2\x90\x87'")
    assert captured.err.count(b"\n") == 1
    assert_bytes_shown_not_obeyed(captured.err)


def test_a_stream_that_cannot_encode_the_text_gets_escapes_not_a_traceback(monkeypatch):
    """`PYTHONIOENCODING=ascii tensorweg explain hlo:dot --lang de`: German text on an ASCII stream."""
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="ascii", write_through=True))
    assert core_main(["explain", "hlo:dot", "--lang", "de"]) == 0
    text = written.getvalue().decode("ascii")
    assert "Multipliziert und summiert \\xfcber" in text  # "über", escaped


# --- a capture worker's error line --------------------------------------------------------------


def test_a_workers_error_line_shows_the_escapes_in_events_progress_and_manifest(fake, capsysbinary):
    fake("hostile_error")
    failures: list[LevelFailed] = []
    path = capture("mlp", CaptureOptions(targets=("cpu",)),
                   on_event=lambda event: failures.append(event) if isinstance(event, LevelFailed) else None)
    shown = "layer 'd␛]0;pwned␇␛]52;c;cHduZWQ=␇␇\\x9b31m\\u202ecod' is incompatible"  # CSI 2J: stripped by the worker
    assert [(event.level, event.error) for event in failures] == [("graph", shown)]
    assert Bundle.open(path).status("graph", "").error == shown
    # The command line's progress line for the same capture (taken from the cache this time: run it again).
    assert core_main(["capture", "mlp", "--targets", "cpu", "--no-cache"]) == 0
    err = capsysbinary.readouterr().err
    assert f"failed    graph: {shown}".encode() in err
    assert not any(char.encode("utf-8") in err for char in NEVER_WRITTEN)


# --- handouts -----------------------------------------------------------------------------------


HOSTILE_TOUR = f"""# title: Escapes {OSC_TITLE}in the title
# model: mnist_cnn
# lang: en

step: level=layers target=cpu select=kind:Dense
text: A text that clears the screen {CLEAR_SCREEN}and rings {BELL}and turns {RIGHT_TO_LEFT}
ask: select=kind:Dense
hint: A hint that writes the clipboard {OSC_CLIPBOARD}
"""


def test_handout_markdown_and_html_show_the_escapes(hostile_bundle):
    tour = parse_tour(HOSTILE_TOUR, "hostile.tour")
    bundle = Bundle.open(hostile_bundle)
    steps = handout_steps(bundle, tour, "hostile.tour", str(hostile_bundle))
    markdown, page = render_markdown(bundle, tour, steps), render_html(bundle, tour, steps)
    for document in (markdown, page):
        assert not any(char in document for char in NEVER_WRITTEN)
        assert "and rings ␇and turns \\u202egnp.exe" in document  # a stand-in is no markup in either
    # Markdown escapes the brackets as it escapes them in any name.
    assert "# Escapes ␛\\]0;pwned␇in the title\n" in markdown
    assert "clears the screen ␛\\[2Jand" in markdown and "clipboard ␛\\]52;c;cHduZWQ=␇" in markdown
    assert "| dense␛\\]0;pwned␇␛\\]52;" in markdown  # the selected layer's row
    assert "<title>Escapes ␛]0;pwned␇in the title</title>" in page
    assert "clears the screen ␛[2Jand" in page and "clipboard ␛]52;c;cHduZWQ=␇" in page
    assert "<td>dense␛]0;pwned␇␛]52;" in page


def test_handout_command_writes_no_control_character_into_any_file(hostile_bundle, tmp_path, capsysbinary,
                                                                   monkeypatch):
    """The folder as `tensorweg handout` writes it: Markdown, HTML and the step's screenshot (SVG).
    Graphviz is hidden (the unit lane runs without it); tests/test_graph_e2e.py checks the graph picture."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))
    tour = tmp_path / "hostile.tour"
    tour.write_text(HOSTILE_TOUR, encoding="utf-8")
    out = tmp_path / "handout"
    assert main(["handout", str(tour), str(hostile_bundle), "-o", str(out)]) == 0
    written = {path.name: path.read_bytes() for path in out.iterdir()}
    assert sorted(written) == ["handout.html", "handout.md", "step-01.svg"]
    for name, data in written.items():
        assert not any(char.encode("utf-8") in data for char in NEVER_WRITTEN), name
        assert "pwned␇".encode() in data, name
    assert capsysbinary.readouterr().out == f"{out}\n".encode()


# --- the screens --------------------------------------------------------------------------------


def screen_text(app) -> str:
    """Every segment the screen would send to the terminal now, as text."""
    return "".join(segment.text for strip in app.screen._compositor.render_strips() for segment in strip)


@sync
async def test_layers_screen_rows_title_and_panes_show_the_escapes(hostile_bundle):
    app = create_app(hostile_bundle, level="layers", target="cpu", select=HOSTILE_LAYER)
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        app.notify(f"status {OSC_TITLE}")
        await pilot.pause()
        text = screen_text(app)
        assert_shown_not_obeyed(text)
        assert "status ␛]0;pwned␇" in text
        row = next(line.text for line in app.screen._compositor.render_strips() if SHOWN_LAYER in line.text)
        header = next(line.text for line in app.screen._compositor.render_strips() if " class " in line.text)
        assert row.index("Dense") == header.index("class")  # the list measured the stand-ins


@sync
async def test_tour_panel_shows_the_escapes_of_a_tours_texts(hostile_bundle):
    tour = parse_tour(HOSTILE_TOUR, "hostile.tour")
    app = create_app(hostile_bundle, level="layers", target="cpu", tour=tour)
    async with app.run_test(size=(160, 50)) as pilot:
        await opened(pilot)
        await pilot.pause()
        text = screen_text(app)
        assert_shown_not_obeyed(text, "Escapes ␛]0;pwned␇in the title")
        assert "␛[2Jand rings ␇and turns \\u202egnp.exe" in text


@pytest.mark.parametrize("level", ["graph", "hlo", "optimized-hlo", "kernels", "memory"])
@sync
async def test_every_level_screen_sends_no_control_character(hostile_bundle, level):
    app = create_app(hostile_bundle, level=level, target="cpu")
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(pilot)
        app.notify(HOSTILE_LAYER)
        await pilot.pause()
        assert_shown_not_obeyed(screen_text(app))


def test_the_screens_line_filter_shows_what_a_widget_drew_raw_and_keeps_the_width():
    """The last guard: a widget that forgot the sanitiser still sends no escape."""
    line = [Segment("ab"), Segment("\x1b]0;x\x07", None), Segment("cd")]
    width = Segment.get_line_length(line)
    shown = VisibleTextFilter().apply(line, Color(0, 0, 0))
    assert "".join(segment.text for segment in shown) == "ab␛]0;x␇"  # "cd" cut: ESC and BEL took no cell
    assert Segment.get_line_length(shown) == width
    clean = [Segment("plain")]
    assert VisibleTextFilter().apply(clean, Color(0, 0, 0)) is clean


# --- serve --------------------------------------------------------------------------------------


def test_a_served_tabs_interpreter_ignores_a_textual_py_in_the_current_directory(tmp_path):
    (tmp_path / "textual.py").write_text("raise SystemExit('the current directory ran')\n")
    command = serve_module.tab_command(["course.twpack"])
    interpreter = command[:command.index("-m")]  # the tab's interpreter and its flags
    result = subprocess.run([*interpreter, "-c", "import textual, sys; print(textual.__file__)"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).parent != tmp_path
