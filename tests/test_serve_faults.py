"""`tensorweg serve` when things go wrong (issues 36 and 39): a tab's app killed under its page, a
request with control characters in a header, the token in the access log, Ctrl+C twice while the
server stops, and a page that fetched its font from the internet. A real server on a free loopback
port and real websocket clients, as in tests/test_serve_isolation.py."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from screens.serve.limits import TabSetup, ended_message
from screens.serve.server import TabProcess

from tests.serve_support import (
    children,
    is_running,
    read_until,
    start_server,
    stop_server,
    wait_for_close,
    wait_until,
    write_pack,
)

TOKEN = "class-of-2026-token-xyz"


@pytest.fixture
def pack(tmp_path) -> Path:
    return write_pack(tmp_path)


# --- a tab whose app dies -------------------------------------------------------------------------


def test_a_tab_whose_app_is_killed_is_closed_with_the_reason_and_frees_its_slot_at_once(pack, tmp_path):
    """SIGKILL the tab's app while its page stays: the page is told at once (before, its websocket
    stayed open, frozen, until the learner left), and with --max-tabs 1 the next learner gets a tab."""
    url, _page, server = start_server([str(pack), "--max-tabs", "1"], tmp_path)

    async def kill_the_first_then_open_another() -> tuple:
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url + "/ws?width=100&height=30") as first:
                await read_until(first, "Step 1 of")
                (tab,) = children(server.pid)
                os.kill(tab, signal.SIGKILL)
                killed_at = time.monotonic()
                closed = await wait_for_close(first, seconds=10)
                took = time.monotonic() - killed_at
            async with session.get(url + "/") as page:
                status = page.status  # the one slot is free: the page, not "all in use"
            async with session.ws_connect(url + "/ws?width=100&height=30") as second:
                seen = await read_until(second, "Step 1 of")
                await second.send_json(["stdin", "q"])
        return closed, took, status, seen, tab

    try:
        (code, reason), took, status, seen, tab = asyncio.run(kill_the_first_then_open_another())
    finally:
        out, _err = stop_server(server)
    assert code == aiohttp.WSCloseCode.INTERNAL_ERROR and reason == ended_message(-signal.SIGKILL)
    assert reason == "The explorer in this tab stopped (it was killed by signal 9); Restart opens a new one."
    assert took < 5  # told when it died (the heartbeat alone would take 15 to 30 s)
    assert status == 200 and "conv2d" in seen and not is_running(tab)
    assert out.count("a tab's app ended by itself (signal 9): its page was told") == 1
    assert "all 1 tabs in use" not in out


_EXITS_AT_ONCE = "print('__GANGLION__', flush=True)"


async def _not_used(*_args) -> None:
    raise AssertionError("the stand-in wrote nothing for the browser")


def test_keys_sent_to_a_dead_tab_do_not_keep_it_from_idling(tmp_path):
    """Between an app's death and its page being told, keys may still arrive: they reach no one, so
    they must not count as the learner's activity (`--idle-timeout`)."""
    setup = TabSetup((sys.executable, "-I", "-c", _EXITS_AT_ONCE), (), tmp_path, captures=False)

    async def keys_after_death() -> tuple[bool, float, float, bool]:
        tab = TabProcess(setup, write_bytes=_not_used, write_str=_not_used, close=_not_used)
        await tab.start(80, 24)
        await asyncio.wait_for(tab.task, 30)  # its output ended: the app is gone
        before = tab.last_input
        await asyncio.sleep(0.05)
        sent = await tab.send_bytes(b"n")
        ended = tab.ended
        await tab.stop()
        return sent, before, tab.last_input, ended

    sent, before, after, ended = asyncio.run(keys_after_death())
    assert ended and not sent and after == before


# --- what the log says ----------------------------------------------------------------------------


def _raw_request(url: str, head: bytes) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head)
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
    return answer


@pytest.mark.parametrize("header", [b"X-Note: a\x01b", b"X-Note: a\x1b[2Jb", b"User-Agent: \x07\x07"],
                         ids=["SOH", "CSI", "BEL"])
def test_control_characters_in_a_header_get_a_400_and_one_log_line(pack, tmp_path, header):
    url, _page, server = start_server([str(pack)], tmp_path)
    host = url.removeprefix("http://").encode()
    try:
        answers = [_raw_request(url, b"GET / HTTP/1.1\r\nHost: " + host + b"\r\n" + header + b"\r\n\r\n")
                   for _ in range(3)]
    finally:
        out, err = stop_server(server)
    assert all(answer.startswith(b"HTTP/1.0 400 Bad Request") for answer in answers)
    refusals = [line for line in out.splitlines() if "malformed" in line]
    assert len(refusals) == 3, out  # one line for each refused request
    assert refusals[0].startswith("WARNING refused a malformed request from 127.0.0.1: Invalid header value char")
    assert "Traceback" not in out + err and "BadHttpMessage" not in out + err
    assert "UNKNOWN" not in out  # no access line for a request that was never parsed
    assert not any(char in out for char in "\x01\x07\x1b")


def test_the_access_log_shows_the_token_as_dots(pack, tmp_path):
    url, _page, server = start_server([str(pack), "--token", TOKEN], tmp_path, page=f"/?token={TOKEN}")
    port = url.rsplit(":", 1)[1]
    try:
        request = urllib.request.Request(url + "/static/js/textual.js", headers={
            "Cookie": f"tensorweg-token-{port}={TOKEN}", "Referer": f"{url}/?fontsize=14&token={TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        with urllib.request.urlopen(f"{url}/?token={TOKEN}&fontsize=14", timeout=10) as response:
            assert response.status == 200
    finally:
        out, _err = stop_server(server)
    announced, *log = out.splitlines()
    assert announced == f"tensorweg: serving course.twpack on {url}/?token={TOKEN} (Ctrl+C stops)"  # for the class
    assert log and not any(TOKEN in line for line in log)
    assert sum('"GET /?token=... HTTP/1.1" 200' in line for line in log) == 1
    assert sum('"GET /?token=...&fontsize=14 HTTP/1.1" 200' in line for line in log) == 1
    assert sum(f'"{url}/?fontsize=14&token=..."' in line for line in log) == 1  # the script's Referer


# --- stopping -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("gap", "page_reads"), [(0.0, True), (0.3, True), (0.1, False), (0.5, False)],
                         ids=["together", "0.3 s apart", "busy page, 0.1 s apart", "busy page, 0.5 s apart"])
def test_ctrl_c_twice_while_the_server_stops_is_one_clean_stop(pack, tmp_path, gap, page_reads):
    """Before: exit 0, 130 or 1 across runs, and once `Exception ignored ... Bad file descriptor`. A busy
    page (it reads nothing for a moment) keeps the server waiting for its close, so the second Ctrl+C
    comes in the middle of the shutdown."""
    url, _page, server = start_server([str(pack)], tmp_path)

    async def tab_open_during_two_sigints() -> tuple:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws?width=100&height=30") as ws:
            await read_until(ws, "Step 1 of")
            tabs = children(server.pid)
            closing = asyncio.create_task(wait_for_close(ws)) if page_reads else None
            server.send_signal(signal.SIGINT)
            await asyncio.sleep(gap)
            server.send_signal(signal.SIGINT)
            return tabs, await (closing or wait_for_close(ws))

    tabs, (code, reason) = asyncio.run(tab_open_during_two_sigints())
    out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err[-2000:]
    assert reason == "The server stopped."
    assert code == aiohttp.WSCloseCode.GOING_AWAY or not page_reads  # a busy page answers its close late
    assert "Exception ignored" not in err + out and "Traceback" not in err + out and err == ""
    wait_until(lambda: not any(is_running(tab) for tab in tabs), "the tab ended with the server", 10)


# --- the page fetches nothing from elsewhere ------------------------------------------------------

_URL = re.compile(r"""\b(?:https?|wss?)://[^\s"'()<>]+""")
_REFERENCE = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']|url\(\s*["']?([^"')]+)["']?\s*\)""")


def _without_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|<!--.*?-->", "", text, flags=re.DOTALL)


def test_the_page_and_everything_it_loads_come_from_the_server_itself(pack, tmp_path):
    """Offline classrooms got a failed request for Google's web font, online ones sent every learner's
    address to a third party: the page, its stylesheet and its script name no other host, and every
    file they load, the font too, is served here."""
    url, page, server = start_server([str(pack)], tmp_path)
    fetched: dict[str, bytes] = {}
    try:
        references = [a or b for a, b in _REFERENCE.findall(_without_comments(page))]
        assert {"/static/css/xterm.css", "/static/js/textual.js", "/static/fonts/RobotoMono-VariableFont_wght.ttf",
                "/static/fonts/RobotoMono-Italic-VariableFont_wght.ttf"} <= set(references)
        for reference in references:
            assert reference.startswith("/static/"), reference  # this server's own path: no other host
            with urllib.request.urlopen(url + reference, timeout=10) as response:
                assert response.status == 200, reference
                fetched[reference] = response.read()
    finally:
        stop_server(server)
    own = url.replace("http://", "")
    named = [found for text in (page, *(data.decode("utf-8", "replace") for name, data in fetched.items()
                                        if name.endswith((".css", ".js"))))
             for found in _URL.findall(_without_comments(text)) if own not in found]
    assert named == [], named
    assert "fonts.googleapis.com" not in _without_comments(page) and "gstatic" not in page
    assert fetched["/static/fonts/RobotoMono-VariableFont_wght.ttf"][:4] == b"\x00\x01\x00\x00"  # a TrueType font


def test_the_page_escapes_the_served_files_name(tmp_path):
    """The page shows the pack's file name (a learner's or instructor's text): as text, never markup."""
    pack = write_pack(tmp_path)
    odd = pack.with_name("course<script>alert(1)<.twpack")
    pack.rename(odd)
    url, page, server = start_server([str(odd)], tmp_path)
    stop_server(server)
    assert "tensorweg: course&lt;script&gt;alert(1)&lt;.twpack" in page and "<script>alert" not in page
