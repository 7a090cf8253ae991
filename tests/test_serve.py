"""`tensorweg serve`: a real server on a free loopback port, its page over HTTP, one tab's app over
its websocket; and what serve refuses before it listens."""

from __future__ import annotations

import asyncio
import os
import shlex
import socket
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import aiohttp
import pytest

from explorer.capture.options import capture_flags
from explorer.capture.queue import CaptureQueue
from explorer.cli.commands import capture_options
from explorer.cli.parser import build_parser
from explorer.model.records import CaptureOptions
from explorer.session.policy import CapturePolicy
from explorer.targets import DEFAULT_TARGETS

from screens.app import create_app
from screens.cli import main
from screens.serve import command as serve_module
from screens.serve.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

from tests.conftest import FIXTURES
from tests.serve_support import (
    ServerRecorder,
    children,
    read_until,
    start_server,
    stop_server,
    wait_until,
    write_pack,
)

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"


@pytest.fixture
def pack(tmp_path) -> Path:
    return write_pack(tmp_path)


@pytest.fixture
def server(pack, tmp_path):
    """`tensorweg serve course.twpack` on a free loopback port; stopped (and its tabs checked gone) afterwards."""
    url, page, process = start_server([str(pack)], tmp_path)
    try:
        yield url, page, process
    finally:
        if process.returncode is None:
            stop_server(process)


def test_serve_answers_with_the_textual_serve_page_and_a_tab_gets_the_lesson(server):
    url, page, process = server
    assert "textual" in page.lower() and "data-session-websocket-url" in page
    assert f"{url.replace('http', 'ws')}/ws" in page

    async def first_frame() -> str:
        """Open one tab's websocket and read the app's output until the layers screen is drawn."""
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            seen = await read_until(ws, "Step 1 of")
            await ws.send_json(["stdin", "q"])
        return seen

    frames = asyncio.run(first_frame())
    assert "conv2d" in frames and "Step 1 of" in frames  # the pack's lesson starts in the tab
    wait_until(lambda: not children(process.pid), "closing the tab ended its app process")


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
    url, _page, process = start_server(["mlp", "--allow-capture", "--targets", "cpu"], tmp_path,
                                       {"TMPDIR": str(run_dir)})

    async def in_tab(queue: CaptureQueue) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=140&height=30") as ws:
            await read_until(ws, "fake | 1 Keras layers")  # the cached bundle is open (the stand-in's name)
            await ws.send_json(["stdin", "c"])
            await read_until(ws, "capture waiting for a slot: 1 ahead (1 of 1 running); C cancels")
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
        stop_server(process)
    assert not list(run_dir.iterdir())  # the queue went with the server


def test_serve_prints_one_line_with_no_absolute_path(server):
    url, _page, process = server
    out, _err = stop_server(process)
    assert out.splitlines()[0] == f"tensorweg: serving course.twpack on {url} (Ctrl+C stops)"
    assert str(Path.cwd()) not in out and "/tmp/" not in out  # then the access log


def test_another_host_warns_needs_a_token_and_tabs_may_not_capture(pack, monkeypatch, capsys):
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    monkeypatch.setenv(CAPTURE_VARIABLE, "1")  # a stale policy in the server's environment is not the tabs'
    ServerRecorder.calls.clear()
    assert main(["serve", str(pack), "--host", "0.0.0.0", "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert err == ("warning: serving on 0.0.0.0: anyone who can reach this address and has the token "
                   "can open the explorer\n")
    call = ServerRecorder.calls[0]
    assert (call.host, call.port, call.capture, call.captures) == ("0.0.0.0", 8123, "0", False)
    assert call.queue_slots is None  # no queue: the tabs never capture
    token = call.limits.token  # made here: a random one for each server
    assert token and len(token) >= 16
    assert main(["serve", str(pack), "--host", "0.0.0.0"]) == 0
    assert ServerRecorder.calls[-1].limits.token != token  # a new one for each server
    assert call.shown == f"course.twpack on http://{socket.gethostname()}:8123/?token={token}"
    # Tabs open the pack itself (its first lesson starts), named relative to here.
    assert call.command.split(" open ")[1].split(" --lang ")[0] == os.path.relpath(pack)
    assert main(["serve", str(pack), "--host", "10.1.2.3", "--token", "a-token-of-my-own-choosing"]) == 0
    assert ServerRecorder.calls[-1].shown == "course.twpack on http://10.1.2.3:8000/?token=a-token-of-my-own-choosing"
    capsys.readouterr()
    for loopback in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert main(["serve", str(pack), "--host", loopback]) == 0
        assert capsys.readouterr().err == "" and ServerRecorder.calls[-1].limits.token is None


def test_allow_capture_on_another_host_warns_that_any_tab_can_capture(fake, monkeypatch, capsys):
    fake("ok")
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    assert main(["serve", "mlp", "--allow-capture", "--max-captures", "2", "--targets", "cpu",
                 "--host", "192.0.2.7"]) == 0
    warning = capsys.readouterr().err.splitlines()[-1]  # after the capture's progress lines
    assert warning == ("warning: serving on 192.0.2.7: anyone who can reach this address and has the token can "
                       "open the explorer; with --allow-capture any tab can start captures, up to 2 at once "
                       "(--max-captures)")
    assert ServerRecorder.calls[0].captures and ServerRecorder.calls[0].limits.token


def test_serve_passes_its_limits_to_the_server(pack, monkeypatch):
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    assert main(["serve", str(pack), "--max-tabs", "5", "--idle-timeout", "0"]) == 0
    assert main(["serve", str(pack)]) == 0
    assert [(c.limits.max_tabs, c.limits.idle_timeout) for c in ServerRecorder.calls] == [(5, 0), (30, 1800)]


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
    (["serve", str(BUNDLE), "--max-tabs", "0"], "bad --max-tabs 0: at least 1"),
    (["serve", str(BUNDLE), "--idle-timeout", "-1"], "bad --idle-timeout -1: seconds, 0 or more"),
    (["serve", str(BUNDLE), "--token", "short"], "bad --token: at least 16 characters"),
    (["serve", str(BUNDLE), "--token", "sixteen-chars-but a space"], "bad --token"),
    (["serve", str(BUNDLE), "--max-pack-members", "0"], "bad --max-pack-members 0: at least 1"),
    (["serve", str(BUNDLE), "--max-pack-disk", "0"], "bad --max-pack-disk 0: GiB, more than 0"),
    (["serve", str(BUNDLE), "--max-pack-disk", "nan"], "bad --max-pack-disk nan"),
    (["serve", str(BUNDLE), "--max-pack-disk", "inf"], "bad --max-pack-disk inf"),
], ids=["model without --allow-capture", "port 0", "port too large", "missing pack", "max-captures 0",
        "max-captures negative", "max-captures not a number", "max-captures without --allow-capture",
        "max-captures for a model without --allow-capture", "allow-capture for a bundle", "max-tabs 0",
        "idle-timeout negative", "token too short", "token with a space", "max-pack-members 0", "max-pack-disk 0",
        "max-pack-disk nan", "max-pack-disk inf"])
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
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    argv = ["serve", "mlp", "--allow-capture", "--max-captures", "2", "--targets", "cpu", "--batch", "3",
            "--input-shape", "x=3x4", "--passes"]
    assert main(argv) == 0
    started = len(list(pids.iterdir()))
    assert started == 1  # the TensorFlow stand-in, before the server
    call = ServerRecorder.calls[0]
    assert (call.capture, call.captures, call.queue_slots) == ("1", True, 2)
    tab = build_parser().parse_args(_tab_arguments(call.command))
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
        app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), policy=CapturePolicy(queue=queue))
        with ExitStack() as other_tab:
            other_tab.enter_context(queue.slot(threading.Event()))  # another tab's capture runs
            async with app.run_test(size=(120, 30)) as pilot:
                await _wait_for(pilot, lambda: app.queue_place is not None, "the place in line")
                assert "capture waiting for a slot: 1 ahead (1 of 1 running); C cancels" in _progress(app)
                assert app.bundle is None
                other_tab.close()  # its capture ended
                await _wait_for(pilot, lambda: app.has_manifest() and app.session.opening is None,
                                "the captured bundle")
                assert app.queue_place is None and "waiting" not in _progress(app)
                assert app.bundle.model_name == "fake"

    asyncio.run(run())


def test_C_gives_up_the_place_in_line_and_no_worker_starts(fake, tmp_path):
    pids = fake("ok")
    queue = CaptureQueue.create(tmp_path / "queue", 1)

    async def run() -> None:
        app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), policy=CapturePolicy(queue=queue),
                         lang="de")
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
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    assert main(["serve", "mlp", "--allow-capture", "--targets", "cpu"]) == 0
    call = ServerRecorder.calls[0]
    assert (call.host, call.capture, call.queue_slots) == ("127.0.0.1", "1", 1)
    tab = build_parser().parse_args(_tab_arguments(call.command))
    from explorer.capture import orchestrator
    from explorer.model.bundle import Bundle

    cached = orchestrator.cached_bundle(tab.model, capture_options(tab))
    assert cached is not None and Bundle.open(cached).model_name == "mlp"
