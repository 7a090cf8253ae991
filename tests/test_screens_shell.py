"""The app shell: names shown as text, quitting, colours, 80x24, notifications, Esc, bindings.

Pilot tests on the recorded bundle tests/fixtures/bundles/mnist_cnn (or a copy of it with
hostile layer names); the terminal tests run the real `tensorweg` in a pseudo-terminal.
"""

from __future__ import annotations

import html
import importlib
import json
import os
import pkgutil
import pty
import re
import select
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from textual.binding import Binding

from explorer.course.tours import parse_tour

import screens
from screens.app import create_app
from screens.compare import CompareScreen
from screens.glossary import GlossaryScreen
from screens.help import HelpScreen
from screens.memory_map import MemoryMapView
from screens.tour import TourListScreen, TourScreen
from screens.widgets.code_view import CodeView
from screens.widgets.item_rows import ItemRows

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle

# Layer names that are Rich/Textual markup: they must show as written (and `[/]` must not crash).
HOSTILE = {"conv2d": "[bold red]c", "flatten": "[@click=app.quit]x", "dense": "[/]"}


def screen_text(app) -> str:
    """The characters on screen, as the learner reads them (markup would have been consumed)."""
    svg = app.export_screenshot()
    rows = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return html.unescape("".join(rows)).replace("\xa0", " ")


@pytest.fixture
def hostile_bundle(tmp_path) -> Path:
    """A copy of the recorded bundle whose layers are named in markup."""
    copy = tmp_path / "hostile"
    shutil.copytree(BUNDLE, copy)
    layers_file = copy / "layers.json"
    layers = json.loads(layers_file.read_text(encoding="utf-8"))
    for layer in layers:
        layer["name"] = HOSTILE.get(layer["name"], layer["name"])
        layer["path"] = HOSTILE.get(layer["path"], layer["path"])
        layer["inbound"] = [HOSTILE.get(name, name) for name in layer["inbound"]]
    layers_file.write_text(json.dumps(layers), encoding="utf-8")
    return copy


# --- names from files are text ------------------------------------------------------------


@sync
async def test_markup_in_layer_names_is_shown_as_written(hostile_bundle):
    app = create_app(hostile_bundle, level="layers", target="cpu", select="[bold red]c")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        names = [item.name for item in app.items_table.items]
        assert set(HOSTILE.values()) <= set(names)
        for name in HOSTILE.values():
            app.goto_level("layers", name)  # the title's trail, the panes and the row show the name
            await pilot.pause()
            assert app.items_table.current.name == name
            assert name in screen_text(app)
        assert app.is_running  # `[@click=app.quit]` did not become a link that quits


@sync
async def test_markup_in_a_tour_title_is_shown_as_written():
    tour = parse_tour("# title: [/] tour [bold red]x\n# model: mnist_cnn\n# lang: en\n\n"
                      "step: level=layers select=conv2d\ntext: The first layer.\n", "hostile.tour")
    app = create_app(BUNDLE, tour=tour)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, TourScreen)
        assert "[/] tour [bold red]x" in screen_text(app)


@sync
async def test_a_notification_with_markup_is_text_in_the_status_line():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        app.notify("no [bold]such[/] [/] layer")
        await pilot.pause()
        assert "no [bold]such[/] [/] layer" in screen_text(app)


# --- notifications: a status line, not toasts over the panes ----------------------------------


@sync
async def test_notifications_go_to_the_status_line_not_over_the_content():
    app = create_app(BUNDLE, level="kernels", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("enter")  # the lowest level: the app says so
        await pilot.pause()
        status = app.screen.query_one("#status")
        assert status.display and "lowest level" in str(status.render())
        assert not app._notifications  # no toast drawn over the panes
        assert not app.screen.query("Toast")


# --- quitting, colours --------------------------------------------------------------------


@sync
async def test_ctrl_c_quits():
    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code == 0


def run_in_terminal(env: dict[str, str], seconds: float = 25) -> bytes:
    """Run `tensorweg BUNDLE` in a pseudo-terminal until the bundle is on screen; Ctrl+C ends it."""
    environ = {**os.environ, **env, "COLUMNS": "100", "LINES": "30"}
    environ.pop("COLORTERM", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real console script's code, in a real terminal
        os.execve(sys.executable, [sys.executable, "-m", "screens.cli", str(BUNDLE)], environ)
    output, quit_sent = b"", False
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break  # the terminal closed: the app quit
                if not chunk:
                    break
                output += chunk
            if not quit_sent and b"conv2d" in output:
                time.sleep(0.5)
                os.write(fd, b"\x03")  # Ctrl+C
                quit_sent = True
    finally:
        exited = _wait_for_exit(pid, timeout=15)
        os.close(fd)
    assert quit_sent, output[-2000:]
    assert exited, "tensorweg did not quit on Ctrl+C"
    return output


def _wait_for_exit(pid: int, timeout: float) -> bool:
    """Reap the child; kill it (and say so) when it outlives `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


def colour_codes(output: bytes) -> list[str]:
    """The colour parameters of every SGR sequence (38/48 foreground/background, 30-37, 90-97...)."""
    found = []
    for params in re.findall(rb"\x1b\[([0-9;]*)m", output):
        parts = params.decode().split(";")
        index = 0
        while index < len(parts):
            part = parts[index]
            if part in ("38", "48"):
                found.append(";".join(parts[index:index + (5 if parts[index + 1] == "2" else 3)]))
                index += 5 if parts[index + 1] == "2" else 3
                continue
            if part.isdigit() and (30 <= int(part) <= 37 or 40 <= int(part) <= 47 or 90 <= int(part) <= 107):
                found.append(part)
            index += 1
    return found


@pytest.mark.parametrize("env", [{"TERM": "dumb"}, {"TERM": "xterm-256color", "NO_COLOR": "1"}],
                         ids=["term-dumb", "no-color"])
def test_a_colourless_terminal_gets_no_colour_codes(env):
    """TERM=dumb got truecolour and NO_COLOR greys; both now get the terminal's default colours."""
    codes = colour_codes(run_in_terminal(env))
    assert codes == [], sorted(set(codes))[:10]


def test_a_256_colour_terminal_gets_no_truecolour():
    """Over SSH COLORTERM is dropped: the app must not assume 24-bit colour."""
    codes = colour_codes(run_in_terminal({"TERM": "xterm-256color"}))
    assert codes, "expected colours on a colour terminal"
    assert not [code for code in codes if code.startswith(("38;2", "48;2"))]


# --- 80x24: maximise and restore ------------------------------------------------------------


@pytest.mark.parametrize("level, widget", [("layers", ItemRows), ("optimized-hlo", CodeView)],
                         ids=["list", "code"])
@sync
async def test_a_key_maximises_the_focused_pane_and_restores_it(level, widget):
    app = create_app(BUNDLE, level=level, target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        pane = app.screen.query(widget).first()
        pane.focus()
        await pilot.pause()
        normal_height = pane.region.height
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is pane
        assert pane.region.height > normal_height and pane.region.height >= 18
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None and pane.region.height == normal_height
        await pilot.press("z")  # Esc restores too, and stays on this level
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and app.level == level


# --- Esc returns to where you came from -------------------------------------------------------

# `m` shows the memory map in the explorer (a level view); the others push a screen over it.
OPENED_BY = {"m": MemoryMapView, "x": CompareScreen, "G": GlossaryScreen, "question_mark": HelpScreen,
             "T": TourListScreen}


def shown(app):
    """What the learner looks at: a screen pushed over the explorer, else the explorer's level view."""
    return app.explorer.view if app.screen is app.explorer else app.screen


@pytest.mark.parametrize("origin", ["layers", "graph", "hlo", "optimized-hlo", "kernels"])
@sync
async def test_escape_returns_to_the_screen_it_came_from(origin):
    app = create_app(BUNDLE, level=origin, target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        home = app.screen
        for key, opened_class in OPENED_BY.items():
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(shown(app), opened_class), key
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is home and app.level == origin, key


# --- a capture in progress says so from the first frame ---------------------------------------


@sync
async def test_a_capture_in_progress_says_so_from_the_first_frame(monkeypatch):
    from explorer.model.records import CaptureOptions
    from explorer.session.capturing import CaptureJob

    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    monkeypatch.setattr(CaptureJob, "run", lambda self, emit: None)  # no compiler in pilot tests: it never reports
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notice = str(app.explorer.view.query_one(".notice").render())
        assert "Capturing" in notice and "not captured yet" not in notice


# --- every binding explains itself --------------------------------------------------------------


def _binding_owners() -> list[type]:
    """Every class in the screens package that declares BINDINGS (screens, widgets, the app)."""
    owners = []
    for info in pkgutil.walk_packages(screens.__path__, "screens."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__ and "BINDINGS" in vars(value):
                owners.append(value)
    return owners


def test_every_binding_has_an_id_description_and_tooltip():
    owners = _binding_owners()
    assert {"TensorwegApp", "LevelView", "GlossaryScreen", "TourScreen", "CodeView"} <= {o.__name__ for o in owners}
    for owner in owners:
        for binding in vars(owner)["BINDINGS"]:
            assert isinstance(binding, Binding), (owner, binding)
            assert binding.id and binding.description and binding.tooltip, (owner.__name__, binding)


# --- code views scroll sideways instead of cutting long lines ----------------------------------


@sync
async def test_code_view_scrolls_sideways_to_the_end_of_a_long_line():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        view = app.screen.query_one(CodeView)
        view.focus()
        longest = max(range(view.line_count), key=lambda index: len(view._source[index]))
        end = view._source[longest].rstrip()[-12:]
        view.top = longest
        await pilot.pause()
        first_row = view.render_line(0).text
        assert end not in first_row and first_row.rstrip().endswith("…")  # cut, and says so
        for _ in range(len(view._source[longest]) // 8 + 1):
            await pilot.press("right")
        await pilot.pause()
        scrolled = view.render_line(0).text
        assert end in scrolled  # the end of the line is reachable
        assert scrolled.lstrip().startswith(f"{longest + 1} …")  # line numbers stay; "…" marks the left cut
        await pilot.press("home")
        await pilot.pause()
        assert view.left == 0 and view.render_line(0).text == first_row


@sync
async def test_markup_in_layer_names_is_text_in_the_target_comparison(hostile_bundle):
    app = create_app(hostile_bundle, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        for name in HOSTILE.values():
            app.goto_level("layers", name)
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, CompareScreen)
            assert f"layer {name}" in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
