"""`tensorweg serve` holds its tabs as the capture workers are held: a real server on a free loopback
port, real tabs over websockets. Each tab's app runs in its own session with a scrubbed environment and
its own temp folder, ends when its websocket closes, when it idles too long and when the server stops
(SIGINT, SIGTERM or SIGHUP: the temp folder goes too); past `--max-tabs` a tab is refused with a reason;
with a token every request without it gets 403, and so do a foreign page's requests (Origin) and, on
loopback, a rebound Host. How a tab that will not quit is ended is checked on stand-in processes
(`TabProcess` with a short command)."""

from __future__ import annotations

import asyncio
import http.cookies
import os
import signal
import sys
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from screens.serve import server as serve_server
from screens.serve.limits import TabSetup
from screens.serve.server import TabProcess

from tests.serve_support import (
    children,
    environment_of,
    is_running,
    read_until,
    start_server,
    stop_server,
    wait_for_close,
    wait_until,
    write_pack,
)

TOKEN = "class-of-2026-token-abc"


@pytest.fixture
def pack(tmp_path) -> Path:
    return write_pack(tmp_path)


def _run_dir(tmp_path) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    return run_dir


def _tab_folder(run_dir: Path) -> Path:
    (server_folder,) = run_dir.glob("tensorweg-serve-*")
    return server_folder / "tabs"


def test_a_tab_runs_in_its_own_session_with_a_scrubbed_environment_and_ends_with_its_websocket(pack, tmp_path):
    run_dir = _run_dir(tmp_path)
    url, _page, server = start_server([str(pack)], tmp_path, {"TMPDIR": str(run_dir), "LC_ALL": "C.UTF-8",
                                                              "AWS_SECRET_ACCESS_KEY": "not-for-learners"})

    async def open_then_drop_the_tab() -> tuple[int, dict, int, int]:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            await read_until(ws, "Step 1 of")
            (tab,) = children(server.pid)
            seen = environment_of(tab), os.getsid(tab), os.getpgid(tab)
        return tab, *seen  # the websocket closed abruptly: no `q`, as when a browser tab is closed

    try:
        tab, environment, session, group = asyncio.run(open_then_drop_the_tab())
        assert session == tab and group == tab  # its own session, so its own process group
        assert "AWS_SECRET_ACCESS_KEY" not in environment and "PYTHONPATH" not in environment
        assert environment["LC_ALL"] == "C.UTF-8" and environment["PATH"]
        assert environment["TENSORWEG_SERVE_CAPTURE"] == "0"
        temp = Path(environment["TMPDIR"])
        assert temp.parent == _tab_folder(run_dir) and environment["TMP"] == environment["TEMP"] == str(temp)
        wait_until(lambda: not is_running(tab), "the tab's app ended after its websocket closed")
        wait_until(lambda: not temp.exists(), "the tab's temp folder went with it")
    finally:
        stop_server(server)
    assert not list(run_dir.iterdir())


def test_a_huge_terminal_is_capped_and_logged_once(pack, tmp_path):
    url, _page, server = start_server([str(pack)], tmp_path)

    async def ask_for_a_huge_tab() -> dict:
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(url + "/ws?width=10000&height=10000") as ws:
            await read_until(ws, "Step 1 of")
            (tab,) = children(server.pid)
            await ws.send_json(["resize", {"width": 20000, "height": 3}])
            await ws.send_json(["resize", "not a size"])  # ignored, not a traceback
            await ws.send_str("[not json")
            await ws.send_json(["stdin", "q"])
            return environment_of(tab)

    try:
        environment = asyncio.run(ask_for_a_huge_tab())
    finally:
        out, _err = stop_server(server)
    assert (environment["COLUMNS"], environment["ROWS"]) == ("500", "200")
    assert out.count("a tab asked for a 10000x10000 terminal: given 500x200") == 1
    assert "Traceback" not in out and "asked for a 20000x3" not in out  # one line per tab


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT], ids=["SIGHUP", "SIGTERM", "SIGINT"])
def test_stopping_the_server_by_a_signal_ends_its_tabs_and_removes_its_temp_folder(signum, pack, tmp_path):
    run_dir = _run_dir(tmp_path)
    url, _page, server = start_server([str(pack)], tmp_path, {"TMPDIR": str(run_dir)})

    async def tab_open_while_the_server_stops() -> tuple[int | None, str]:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            await read_until(ws, "Step 1 of")
            assert list(_tab_folder(run_dir).iterdir())  # the tab's own temp folder
            stopped = asyncio.get_running_loop().run_in_executor(None, stop_server, server, signum)
            closed = await wait_for_close(ws)
            await stopped  # it exited 0 and its tab ended (stop_server checks both)
            return closed

    code, reason = asyncio.run(tab_open_while_the_server_stops())
    assert (code, reason) == (aiohttp.WSCloseCode.GOING_AWAY, serve_server.SERVER_STOPPED)
    assert not list(run_dir.iterdir())


def test_a_tab_ends_when_its_server_is_killed_outright(pack, tmp_path):
    """SIGKILL leaves the server no time to stop its tabs: the kernel ends them (Linux's parent-death signal)."""
    url, _page, server = start_server([str(pack)], tmp_path, {"TMPDIR": str(_run_dir(tmp_path))})

    async def tab_whose_server_dies() -> int:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            await read_until(ws, "Step 1 of")
            (tab,) = children(server.pid)
            server.kill()
            server.communicate(timeout=30)
            return tab

    tab = asyncio.run(tab_whose_server_dies())
    try:
        wait_until(lambda: not is_running(tab), "the tab ended with its killed server", 10)
    finally:
        if is_running(tab):  # no orphan left behind by a failing test
            os.kill(tab, signal.SIGKILL)


def test_a_killed_servers_temp_folder_is_removed_by_the_next_server_and_a_living_ones_kept(pack, tmp_path):
    run_dir = _run_dir(tmp_path)
    environment = {"TMPDIR": str(run_dir)}
    _url, _page, living = start_server([str(pack)], tmp_path, environment)
    try:
        (kept,) = run_dir.glob("tensorweg-serve-*")
        _url, _page, killed = start_server([str(pack)], tmp_path, environment)
        (abandoned,) = set(run_dir.glob("tensorweg-serve-*")) - {kept}
        killed.kill()
        killed.communicate(timeout=30)
        assert abandoned.is_dir()  # SIGKILL: no stop ran
        _url, _page, next_server = start_server([str(pack)], tmp_path, environment)
        (started,) = set(run_dir.glob("tensorweg-serve-*")) - {kept}
        assert started != abandoned and not abandoned.exists() and kept.is_dir()
        stop_server(next_server)
    finally:
        stop_server(living)
    assert not list(run_dir.iterdir())


def test_past_max_tabs_the_page_and_the_websocket_say_the_server_is_full(pack, tmp_path):
    url, _page, server = start_server([str(pack), "--max-tabs", "1"], tmp_path)

    async def second_tab_while_the_first_is_open() -> tuple:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as first:
            await read_until(first, "Step 1 of")
            async with session.get(url + "/") as page:
                full_page = page.status, await page.text()
            async with session.ws_connect(url + "/ws?width=100&height=30") as second:
                refused = await wait_for_close(second)
            tabs = children(server.pid)
            await first.send_json(["stdin", "q"])
        return full_page, refused, tabs

    try:
        (status, text), (code, reason), tabs = asyncio.run(second_tab_while_the_first_is_open())
    finally:
        out, _err = stop_server(server)
    message = "This server's tabs are all in use (1 at most); try again in a few minutes."
    assert status == 503 and message in text
    assert (code, reason) == (aiohttp.WSCloseCode.TRY_AGAIN_LATER, message)
    assert len(tabs) == 1  # the refused tab started no process
    assert out.count("refused a tab to 127.0.0.1: all 1 tabs in use (--max-tabs)") == 1
    assert out.count("refused a page to 127.0.0.1: all 1 tabs in use (--max-tabs)") == 1


def test_an_idle_tab_is_closed_and_told_why(pack, tmp_path):
    url, _page, server = start_server([str(pack), "--idle-timeout", "3"], tmp_path)

    async def idle_tab() -> tuple:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            (tab,) = wait_until(lambda: children(server.pid), "the tab's app started")
            await ws.send_json(["ping", "1"])  # not a key: it does not keep the tab open
            return tab, await wait_for_close(ws)  # however long the app took to draw: the idle clock ran

    try:
        tab, (code, reason) = asyncio.run(idle_tab())
        wait_until(lambda: not is_running(tab), "the idle tab's app ended")
    finally:
        out, _err = stop_server(server)
    assert code == aiohttp.WSCloseCode.GOING_AWAY
    assert reason == "This tab closed after 3 seconds without a key or a click; Restart opens a new one."
    assert out.count("closed a tab idle for 3 s (--idle-timeout)") == 1


def _status(url: str, cookie: str | None = None, headers: dict | None = None) -> int:
    request = urllib.request.Request(url, headers={**({"Cookie": cookie} if cookie else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _refused_then_served(url: str, refused: dict, served: dict) -> tuple[int, str]:
    """One tab's websocket opened with `refused`'s options (its handshake status), then one with
    `served`'s, read until the lesson's first step shows."""

    async def websockets() -> tuple[int, str]:
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refusal:
                await session.ws_connect(url + "/ws?width=100&height=30", **refused)
            async with session.ws_connect(url + "/ws?width=100&height=30", **served) as ws:
                seen = await read_until(ws, "Step 1 of")
                await ws.send_json(["stdin", "q"])
        return refusal.value.status, seen

    return asyncio.run(websockets())


def test_with_a_token_every_request_and_websocket_without_it_is_refused(pack, tmp_path):
    url, page, server = start_server([str(pack), "--token", TOKEN], tmp_path, page=f"/?token={TOKEN}")
    port = url.rsplit(":", 1)[1]
    try:
        assert "data-session-websocket-url" in page
        for path in ("/", "/static/js/textual.js", "/ws", f"/?token={TOKEN[:-1]}", "/?token="):
            assert _status(url + path) == 403, path
        assert _status(url + "/static/js/textual.js", f"tensorweg-token-{port}=wrong") == 403
        with urllib.request.urlopen(f"{url}/?token={TOKEN}", timeout=10) as response:
            cookie = http.cookies.SimpleCookie(response.headers["Set-Cookie"])[f"tensorweg-token-{port}"]
        assert cookie.value == TOKEN and cookie["httponly"] and cookie["samesite"] == "Strict"
        # The page's own requests carry the cookie: its script and its websocket pass.
        assert _status(url + "/static/js/textual.js", f"tensorweg-token-{port}={TOKEN}") == 200
        status, seen = _refused_then_served(url, {}, {"headers": {"Cookie": f"tensorweg-token-{port}={TOKEN}"}})
        assert status == 403 and "conv2d" in seen
    finally:
        out, _err = stop_server(server)
    assert out.splitlines()[0] == f"tensorweg: serving course.twpack on {url}/?token={TOKEN} (Ctrl+C stops)"
    assert "refused a request from 127.0.0.1: no valid token" in out


def test_on_loopback_a_foreign_pages_requests_and_a_rebound_host_are_refused(pack, tmp_path):
    url, _page, server = start_server([str(pack)], tmp_path)  # loopback, no token
    port = int(url.rsplit(":", 1)[1])
    foreign = {"Origin": "http://evil.example"}
    try:
        assert _status(url + "/", headers=foreign) == 403
        assert _status(url + "/", headers={"Host": f"evil.example:{port}"}) == 403  # DNS rebinding
        assert _status(url + "/static/js/textual.js", headers={"Origin": url}) == 200  # the page's own script
        assert _status(f"http://localhost:{port}/", headers={"Origin": url}) == 200  # a loopback alias
        status, seen = _refused_then_served(url, {"origin": "http://evil.example"}, {"origin": url})
        assert status == 403 and "conv2d" in seen
    finally:
        out, _err = stop_server(server)
    assert out.count("refused a request from 127.0.0.1: Origin 'http://evil.example' is not this server's") == 2
    assert out.count(f"refused a request from 127.0.0.1: Host 'evil.example:{port}' is not this server's") == 1


# --- how a tab is stopped: stand-in processes ------------------------------------------------------

_STAND_IN = """
import signal, sys, time
if sys.argv[1] == "ignore-sigterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("__GANGLION__", flush=True)
while True:
    time.sleep(1)  # never reads the quit it is sent
"""


async def _not_used(*_args) -> None:
    raise AssertionError("the stand-in wrote nothing for the browser")


@pytest.mark.parametrize("behaviour, ended_by", [("honour-sigterm", -signal.SIGTERM),
                                                 ("ignore-sigterm", -signal.SIGKILL)])
def test_a_tab_that_does_not_quit_gets_sigterm_then_sigkill(behaviour, ended_by, tmp_path, monkeypatch):
    monkeypatch.setattr(serve_server, "QUIT_GRACE", 0.5)
    monkeypatch.setattr(serve_server, "TERM_GRACE", 0.5)
    setup = TabSetup((sys.executable, "-I", "-c", _STAND_IN, behaviour), (), tmp_path, captures=False)

    async def start_and_stop() -> tuple[int, int, Path]:
        tab = TabProcess(setup, write_bytes=_not_used, write_str=_not_used, close=_not_used)
        await tab.start(80, 24)
        assert tab.temp_dir.is_dir()
        await asyncio.gather(tab.stop(), tab.stop())  # the websocket's end and the server's stop at once
        return tab.process.pid, tab.process.returncode, tab.temp_dir

    pid, returncode, temp_dir = asyncio.run(start_and_stop())
    assert returncode == ended_by and not is_running(pid) and not temp_dir.exists()
