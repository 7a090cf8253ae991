"""`tensorweg serve`: a real server on a free loopback port, its page over HTTP, one tab's app over
its websocket; and what serve refuses before it listens."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import aiohttp
import pytest

from explorer.capture.options import capture_flags
from explorer.capture.queue import CaptureQueue
from explorer.cli.commands import capture_options
from explorer.cli.parser import build_parser
from explorer.model.records import CaptureOptions
from explorer.targets import DEFAULT_TARGETS

from screens import serve as serve_module
from screens.app import create_app
from screens.cli import main
from screens.serve_policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

from tests.conftest import FIXTURES, ROOT

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def pack(tmp_path) -> Path:
    out = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_to_registers", "-o", str(out)]) == 0
    return out


def _start_server(argv: list[str], cwd: Path, env: dict | None = None):
    """`tensorweg serve ...` on a free loopback port, its page read: (url, page, process)."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "screens.cli", "serve", *argv, "--port", str(port), "--lang", "en"],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as response:
                return url, response.read().decode(), process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"serve did not start: {process.communicate()[1][-2000:]}") from None
            time.sleep(0.2)


def _stop_server(process) -> None:
    """SIGTERM; the server exits 0 and no process of its session (a tab) is left."""
    process.send_signal(signal.SIGTERM)
    try:
        _out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    assert process.returncode == 0, err[-2000:]
    assert _group_ends(process.pid), "a tab's app process outlived the server"


@pytest.fixture
def server(pack, tmp_path):
    """`tensorweg serve course.twpack` on a free loopback port; stopped (and checked gone) afterwards."""
    url, page, process = _start_server([str(pack)], tmp_path)
    try:
        yield url, page, process
    finally:
        _stop_server(process)


def _group_ends(group: int, seconds: float = 20) -> bool:
    """Whether every process of the server's session ends within `seconds` (tabs close after it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.killpg(group, signal.SIGKILL)
    return False


def test_serve_answers_with_the_textual_serve_page_and_a_tab_gets_the_lesson(server):
    url, page, process = server
    assert "textual" in page.lower() and "data-session-websocket-url" in page
    assert f"{url.replace('http', 'ws')}/ws" in page

    async def first_frame() -> str:
        """Open one tab's websocket and read the app's output until the layers screen is drawn."""
        seen = ""
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            deadline = time.monotonic() + 90
            while "Step 1 of" not in seen and time.monotonic() < deadline:
                try:
                    message = await ws.receive(timeout=5)
                except TimeoutError:
                    continue
                if message.type == aiohttp.WSMsgType.BINARY:
                    seen += message.data.decode("utf-8", errors="replace")
                elif message.type == aiohttp.WSMsgType.TEXT:
                    seen += message.data
                else:
                    break
            await ws.send_json(["stdin", "q"])
        return seen

    frames = asyncio.run(first_frame())
    assert "conv2d" in frames and "Step 1 of" in frames  # the pack's lesson starts in the tab
    # Closing the tab ended its app process: only the server is left in its session.
    deadline = time.monotonic() + 20
    while _session_members(process.pid) != [process.pid] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_members(process.pid) == [process.pid]


async def _read_until(ws, text: str, seen: str = "") -> str:
    """The tab's output (terminal codes and text) until `text` shows; what was read, with `seen` before it."""
    deadline = time.monotonic() + 60
    while text not in seen:
        assert time.monotonic() < deadline, f"the tab never showed {text!r}"
        try:
            message = await ws.receive(timeout=5)
        except TimeoutError:
            continue
        if message.type == aiohttp.WSMsgType.BINARY:
            seen += message.data.decode("utf-8", errors="replace")
        elif message.type == aiohttp.WSMsgType.TEXT:
            seen += message.data
        else:
            raise AssertionError(f"the tab closed before showing {text!r}")
    return seen


def test_a_served_tab_queues_its_capture_shows_its_place_and_gives_it_up(fake, tmp_path):
    """A real server with --allow-capture and one tab over its websocket. The model was captured
    before (stand-in workers, into this test's cache) and this test holds the server's only slot,
    as another tab's capture would: `c` in the tab waits in line and the tab says so; C gives the
    place up. No compiler runs."""
    fake("ok")
    from explorer.capture import orchestrator

    orchestrator.capture("mlp", CaptureOptions(targets=("cpu",)))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    url, _page, process = _start_server(["mlp", "--allow-capture", "--targets", "cpu"], tmp_path,
                                        {"TMPDIR": str(run_dir)})

    async def in_tab(queue: CaptureQueue) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=140&height=30") as ws:
            await _read_until(ws, "fake | 1 Keras layers")  # the cached bundle is open (the stand-in's name)
            await ws.send_json(["stdin", "c"])
            await _read_until(ws, "capture waiting for a slot: 1 ahead (1 of 1 running); C cancels")
            assert len(list(queue.folder.glob("ticket-*"))) == 1
            await ws.send_json(["stdin", "C"])
            deadline = time.monotonic() + 30
            while list(queue.folder.glob("ticket-*")):
                assert time.monotonic() < deadline, "C did not give the place up"
                await asyncio.sleep(0.1)
            await ws.send_json(["stdin", "q"])

    try:
        (folder,) = run_dir.glob("tensorweg-serve-*/queue")
        queue = CaptureQueue(folder)
        assert queue.slots == 1
        with queue.slot(threading.Event()):
            asyncio.run(in_tab(queue))
    finally:
        _stop_server(process)
    assert not list(run_dir.iterdir())  # the queue went with the server


def _session_members(session: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == session:
                    members.append(int(entry.name))
            except (ProcessLookupError, PermissionError):
                pass
    return sorted(members)


def test_serve_prints_one_line_with_no_absolute_path(server):
    url, _page, process = server
    process.send_signal(signal.SIGTERM)
    out, _err = process.communicate(timeout=30)
    assert out.splitlines()[0] == f"tensorweg: serving course.twpack on {url} (Ctrl+C stops)"
    assert str(Path.cwd()) not in out and "/tmp/" not in out  # then textual-serve's access log


class _Recorder:
    """Stands in for textual-serve's server: what serve would listen on and run for each tab."""

    calls: list = []

    def __init__(self, command, host, port, title):
        self.command, self.host, self.port = command, host, port

    def serve(self):
        _Recorder.calls.append((self.command, self.host, self.port, os.environ.get(CAPTURE_VARIABLE)))
        queue = os.environ.get(QUEUE_VARIABLE)
        _Recorder.queues.append(CaptureQueue(Path(queue)).slots if queue else None)

    queues: list = []


def test_another_host_warns_and_tabs_may_not_capture(pack, monkeypatch, capsys):
    monkeypatch.setattr(serve_module, "_server_class", lambda: _Recorder)
    monkeypatch.setenv(CAPTURE_VARIABLE, "1")  # restored after the test: serve sets it to "0"
    _Recorder.calls.clear()
    assert main(["serve", str(pack), "--host", "0.0.0.0", "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: serving on 0.0.0.0") and err.count("\n") == 1
    command, host, port, capture = _Recorder.calls[0]
    assert (host, port, capture) == ("0.0.0.0", 8123, "0")
    assert _Recorder.queues[0] is None  # no queue: the tabs never capture
    # Tabs open the pack itself (its first lesson starts), named relative to here.
    assert command.split(" open ")[1].split(" --lang ")[0] == os.path.relpath(pack)
    for loopback in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert main(["serve", str(pack), "--host", loopback]) == 0
        assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv, message", [
    (["serve", "mnist_cnn"], "packs and bundles only"),
    (["serve", str(BUNDLE), "--port", "0"], "bad --port"),
    (["serve", str(BUNDLE), "--port", "70000"], "bad --port"),
    (["serve", "missing.twpack"], "cannot read"),
    (["serve", "mlp", "--allow-capture", "--max-captures", "0"], "bad --max-captures 0: at least 1"),
    (["serve", "mlp", "--allow-capture", "--max-captures", "-3"], "bad --max-captures -3"),
    (["serve", "mlp", "--allow-capture", "--max-captures", "two"], "invalid int value"),
    (["serve", str(BUNDLE), "--max-captures", "2"], "--max-captures needs --allow-capture"),
    (["serve", "mlp", "--max-captures", "2"], "--max-captures needs --allow-capture"),
    (["serve", str(BUNDLE), "--allow-capture"], "captured already"),
], ids=["model without --allow-capture", "port 0", "port too large", "missing pack", "max-captures 0",
        "max-captures negative", "max-captures not a number", "max-captures without --allow-capture",
        "max-captures for a model without --allow-capture", "allow-capture for a bundle"])
def test_serve_refuses_before_listening(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(serve_module, "_server_class", lambda: pytest.fail("must not listen"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_tab_refuses_to_capture(monkeypatch, capsys):
    """A tab's process (captures forbidden) opens bundles and packs, never a model."""
    monkeypatch.setenv(CAPTURE_VARIABLE, "0")
    assert main(["open", "mnist_cnn"]) == 2
    assert "opens lesson packs and bundles only" in capsys.readouterr().err


def _tab_arguments(command: str) -> list[str]:
    """What a tab's `tensorweg open` gets, as serve wrote it."""
    return shlex.split(command)[shlex.split(command).index("open"):]


def test_allow_capture_captures_first_then_tabs_capture_through_one_queue(fake, monkeypatch, capsys):
    """`serve mlp --allow-capture --max-captures 2` compiles before it listens (stand-in workers);
    the tabs open the model with the same options, so `c` grows the same cached bundle, queued."""
    pids = fake("ok")
    monkeypatch.setattr(serve_module, "_server_class", lambda: _Recorder)
    monkeypatch.setenv(CAPTURE_VARIABLE, "0")  # restored after the test: serve sets it to "1"
    _Recorder.calls.clear()
    _Recorder.queues.clear()
    argv = ["serve", "mlp", "--allow-capture", "--max-captures", "2", "--targets", "cpu", "--batch", "3",
            "--input-shape", "x=3x4", "--passes"]
    assert main(argv) == 0
    started = len(list(pids.iterdir()))
    assert started == 1  # the TensorFlow stand-in, before the server
    command, _host, _port, capture = _Recorder.calls[0]
    assert (capture, _Recorder.queues[0]) == ("1", 2)
    tab = build_parser().parse_args(_tab_arguments(command))
    assert tab.model == "mlp"
    served = capture_options(build_parser().parse_args(argv))
    assert capture_options(tab) == served  # the tab asks for the very bundle serve captured
    from explorer.capture import orchestrator

    assert orchestrator.cached_bundle("mlp", served) is not None
    assert not os.environ.get(QUEUE_VARIABLE) or not Path(os.environ[QUEUE_VARIABLE]).exists()  # gone with serve


def test_capture_flags_round_trip_every_option():
    options = CaptureOptions(targets=("tpu:v5e", "gpu:h100"), batch=8, input_shapes=(("x", (8, 4)),), unsafe=True,
                             passes=True, mode="train", optimizer="sgd", mesh="2x2", shard="data", remat=True)
    argv = ["open", "mlp", *capture_flags(options)]
    assert capture_options(build_parser().parse_args(argv)) == options
    # what a learner types names only what differs from the defaults, and means the same
    typed = ["open", "mlp", *capture_flags(options, every=False)]
    assert capture_options(build_parser().parse_args(typed)) == options
    assert capture_flags(CaptureOptions(targets=DEFAULT_TARGETS, passes=True), every=False) == ["--passes"]


async def _wait_for(pilot, predicate, what: str) -> None:
    for _ in range(500):
        if predicate():
            return
        await asyncio.sleep(0.02)
        await pilot.pause()
    pytest.fail(f"timed out waiting for {what}")


def _progress(app) -> str:
    return str(app.screen.query_one("#progress").render())


def test_a_tab_waiting_for_a_slot_shows_its_place_then_captures(fake, tmp_path):
    """A tab's capture (stand-in workers) waits while another tab holds the only slot: the
    progress line says how many are ahead; when the slot comes free the capture runs."""
    fake("ok")
    queue = CaptureQueue.create(tmp_path / "queue", 1)

    async def run() -> None:
        app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), capture_queue=queue)
        with ExitStack() as other_tab:
            other_tab.enter_context(queue.slot(threading.Event()))  # another tab's capture runs
            async with app.run_test(size=(120, 30)) as pilot:
                await _wait_for(pilot, lambda: app.queue_place is not None, "the place in line")
                assert "capture waiting for a slot: 1 ahead (1 of 1 running); C cancels" in _progress(app)
                assert app.bundle is None
                other_tab.close()  # its capture ended
                await _wait_for(pilot, lambda: app.has_manifest() and app.opening is None, "the captured bundle")
                assert app.queue_place is None and "waiting" not in _progress(app)
                assert app.bundle.model_name == "fake"

    asyncio.run(run())


def test_C_gives_up_the_place_in_line_and_no_worker_starts(fake, tmp_path):
    pids = fake("ok")
    queue = CaptureQueue.create(tmp_path / "queue", 1)

    async def run() -> None:
        app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), capture_queue=queue, lang="de")
        with queue.slot(threading.Event()):
            async with app.run_test(size=(120, 30)) as pilot:
                await _wait_for(pilot, lambda: app.queue_place is not None, "the place in line")
                assert "Erfassung wartet auf einen Platz: 1 davor (1 von 1 laufen); C bricht ab" in _progress(app)
                ticket = list(queue.folder.glob("ticket-*"))
                await pilot.press("c")  # again: it keeps its place in line
                assert app.status == "Diese Erfassung wartet schon auf einen Platz; C bricht sie ab."
                assert list(queue.folder.glob("ticket-*")) == ticket and len(ticket) == 1
                await pilot.press("C")
                await _wait_for(pilot, lambda: not list(queue.folder.glob("ticket-*")), "the ticket given up")
                assert app.queue_place is None and "wartet" not in _progress(app)
        assert not list(pids.iterdir())

    asyncio.run(run())


@pytest.mark.e2e
def test_allow_capture_compiles_before_serving_and_a_tab_finds_it_cached(monkeypatch, capsys):
    """`serve mlp --allow-capture` compiles (TensorFlow) before it listens; the tab's own capture of
    the options serve passes it is a cache hit, so no learner waits for the first compile."""
    monkeypatch.setattr(serve_module, "_server_class", lambda: _Recorder)
    monkeypatch.setenv(CAPTURE_VARIABLE, "0")
    _Recorder.calls.clear()
    _Recorder.queues.clear()
    assert main(["serve", "mlp", "--allow-capture", "--targets", "cpu"]) == 0
    command, host, _port, capture = _Recorder.calls[0]
    assert (host, capture, _Recorder.queues[0]) == ("127.0.0.1", "1", 1)
    tab = build_parser().parse_args(_tab_arguments(command))
    from explorer.capture import orchestrator
    from explorer.model.bundle import Bundle

    cached = orchestrator.cached_bundle(tab.model, capture_options(tab))
    assert cached is not None and Bundle.open(cached).model_name == "mlp"
