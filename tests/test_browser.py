"""`tensorweg serve` in a real browser: headless Chromium loads the page, the lesson appears, a key
press turns the page, and a screenshot is taken; when the server stops the page says so, and the server
(its tab too) and the browser leave no process behind.

Chromium is driven over its DevTools protocol (a websocket; aiohttp comes with textual-serve), so
the test needs nothing but Debian's `chromium` package, which `.ci/run` installs. textual-serve draws
with xterm.js on a canvas: the text checked is xterm's own screen buffer, the one the canvas shows.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from screens.cli import main

from tests.conftest import FIXTURES, ROOT
from tests.serve_support import children, free_port, is_running

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on PATH (.ci/run installs Debian's chromium)"),
]

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
WINDOW = (1200, 720)  # the page's viewport (set through DevTools): the screenshot's size
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Runs before textual-serve's script: textual.js keeps its xterm Terminal in `this.terminal` of an
# object the page never exposes; a setter on Object.prototype sees that assignment and keeps it.
KEEP_TERMINAL = """
window.__terminals = [];
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    window.__terminals.push(value);
  },
});
"""
# The rows xterm shows now, as text (its buffer is what the canvas draws); "" before the page is there.
SCREEN_TEXT = """
(() => {
  const term = (window.__terminals || []).find(t => t && t.buffer && t.buffer.active);
  if (!term) return "";
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()
"""
TOKEN = "browser-test-token-0123"
# The text of the dialog textual-serve's page shows when its tab's websocket closes.
CLOSED_DIALOG = "document.querySelector('.closed-dialog .message').textContent"


def _session_members(session: int) -> list[int]:
    """Every live process of the session `session` (started with start_new_session, so its own)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == session:
                    members.append(int(entry.name))
            except (ProcessLookupError, PermissionError):
                pass
    return members


def _stop(process: subprocess.Popen, seconds: float = 20) -> None:
    """SIGTERM the process's whole session, SIGKILL what is left after `seconds`; reap it."""
    for sig, wait in ((signal.SIGTERM, seconds), (signal.SIGKILL, 5)):
        for pid in _session_members(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            process.poll()
            if not _session_members(process.pid):
                return
            time.sleep(0.1)


def _wait_for(what: str, probe, seconds: float, process: subprocess.Popen):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (value := probe()) is not None:
            return value
        if process.poll() is not None:
            raise AssertionError(f"{what}: the process ended ({process.returncode}): {process.stderr.read()[-2000:]}")
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {seconds} s")


def _page_answers(url: str) -> bool | None:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return None


class DevTools:
    """The few DevTools protocol calls the test makes, over one page's websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws, self.ids = ws, itertools.count(1)
        self.events: list[str] = []  # the events that arrived between answers, as sent

    async def call(self, method: str, **params) -> dict:
        call_id = next(self.ids)
        await self.ws.send_json({"id": call_id, "method": method, "params": params})
        while True:  # events arrive in between; the answer carries the call's id
            data = (await self.ws.receive(timeout=60)).data
            message = json.loads(data)
            if "id" not in message:
                self.events.append(data)
            if message.get("id") == call_id:
                assert "error" not in message, (method, message["error"])
                return message["result"]

    async def screen_text(self) -> str:
        return (await self.call("Runtime.evaluate", expression=SCREEN_TEXT, returnByValue=True))["result"]["value"]

    async def wait_for_text(self, text: str, seconds: float = 90) -> str:
        deadline = time.monotonic() + seconds
        shown = ""
        while time.monotonic() < deadline:
            shown = await self.screen_text()
            if text in shown:
                return shown
            await asyncio.sleep(0.2)
        raise AssertionError(f"{text!r} not on the page within {seconds} s; it shows:\n{shown}")

    async def wait_for_expression(self, expression: str, value: str, seconds: float = 60) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
            if result["result"].get("value") == value:
                return True
            await asyncio.sleep(0.2)
        raise AssertionError(f"{expression} never gave {value!r}")

    async def press(self, key: str) -> None:
        """One printable key, as Chromium delivers a real key press to xterm's focused textarea."""
        code = f"Key{key.upper()}" if key.isalpha() else f"Digit{key}"
        await self.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, text=key,
                        windowsVirtualKeyCode=ord(key.upper()))
        await self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                        windowsVirtualKeyCode=ord(key.upper()))


@pytest.fixture
def served_pack(tmp_path):
    """`tensorweg serve course.twpack --token ...` on a free loopback port; its URL with the token (the
    page's script and websocket pass on the cookie it sets); stopped, with its tabs, after."""
    pack = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_to_registers", "-o", str(pack)]) == 0
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "screens.cli", "serve", str(pack), "--port", str(port), "--lang", "en",
         "--token", TOKEN],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}/?token={TOKEN}"  # as a served class gets it
    try:
        _wait_for("serve answers", lambda: _page_answers(url), 60, server)
        yield url, server
    finally:
        _stop(server)


@pytest.fixture
def chromium(tmp_path):
    """Headless Chromium with its DevTools on a port it picks; the page target's websocket URL."""
    profile = tmp_path / "chromium-profile"
    browser = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
         "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", f"--user-data-dir={profile}",
         f"--window-size={WINDOW[0]},{WINDOW[1]}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        active = profile / "DevToolsActivePort"  # Chromium writes the port it took here
        port = _wait_for("Chromium's DevTools port",
                         lambda: active.is_file() and active.read_text().split()[:1] or None, 60, browser)[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            pages = [t for t in json.load(response) if t["type"] == "page"]
        yield pages[0]["webSocketDebuggerUrl"], browser
    finally:
        _stop(browser)


def test_a_lesson_pack_served_to_headless_chromium_shows_the_lesson_and_answers_keys(served_pack, chromium, tmp_path):
    url, server = served_pack
    page_socket, browser = chromium

    async def drive() -> tuple[str, str, bytes]:
        async with aiohttp.ClientSession() as session, session.ws_connect(page_socket, max_msg_size=0) as ws:
            page = DevTools(ws)
            await page.call("Page.enable")  # without it the script below never ran on the new page (tried)
            await page.call("Emulation.setDeviceMetricsOverride", width=WINDOW[0], height=WINDOW[1],
                            deviceScaleFactor=1, mobile=False)
            await page.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
            await page.call("Page.navigate", url=url)
            first = await page.wait_for_text("Step 1 of")  # the pack's lesson starts in the tab
            await page.call("Runtime.evaluate", expression="document.querySelector('.xterm-helper-textarea').focus()")
            await page.press("n")  # the tour's next step
            second = await page.wait_for_text("Step 2 of")
            shot = await page.call("Page.captureScreenshot", format="png")
            tabs = children(server.pid)  # the tab's app, in its own session
            # The server stops: the page's "Session ended" dialog says why (serve_server.CLOSE_REASON_SCRIPT).
            await asyncio.get_running_loop().run_in_executor(None, _stop, server)
            ended = await page.wait_for_expression(CLOSED_DIALOG, "Session ended: The server stopped.")
            return first, second, base64.b64decode(shot["data"]), tabs, ended

    first, second, png, tabs, ended = asyncio.run(drive())
    assert "conv2d" in first and "Step 1 of" in first
    assert "Step 1 of" not in second and "TensorFlow graph" in second  # step 2 moved the tab to the graph level
    (tmp_path / "browser.png").write_bytes(png)
    assert png.startswith(PNG_SIGNATURE)
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk: the page's viewport
    assert (width, height) == WINDOW and len(png) > 10_000, (width, height, len(png))

    # Stopping the server ended every tab's app with it; stopping Chromium ends its helpers: nothing is left.
    assert len(tabs) == 1 and ended
    _stop(browser)
    assert server.returncode == 0, server.stderr.read()[-2000:]
    assert not any(is_running(tab) for tab in tabs)
    assert _session_members(server.pid) == [] and _session_members(browser.pid) == []


def test_a_tab_whose_app_dies_says_why_and_the_page_asks_no_other_host(served_pack, chromium):
    """SIGKILL the tab's app under the page: the "Session ended" dialog gives the reason (before, the
    page stayed frozen until the learner left). Every request the page made, its font too, went to the
    server itself (before, the font came from fonts.googleapis.com)."""
    url, server = served_pack
    page_socket, _browser = chromium

    async def drive() -> tuple[list[str], bool]:
        async with aiohttp.ClientSession() as session, session.ws_connect(page_socket, max_msg_size=0) as ws:
            page = DevTools(ws)
            await page.call("Page.enable")
            await page.call("Network.enable")
            await page.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
            await page.call("Page.navigate", url=url)
            await page.wait_for_text("Step 1 of")
            fonts = await page.call("Runtime.evaluate", returnByValue=True, awaitPromise=True, expression=(
                "document.fonts.ready.then(() => document.fonts.check('16px \"Roboto Mono\"'))"))
            (tab,) = children(server.pid)
            os.kill(tab, signal.SIGKILL)
            ended = await page.wait_for_expression(
                CLOSED_DIALOG, "Session ended: The explorer in this tab stopped (it was killed by signal 9); "
                               "Restart opens a new one.")
            requested = [json.loads(message)["params"]["request"]["url"] for message in page.events
                         if '"Network.requestWillBeSent"' in message]
            return requested, ended and fonts["result"]["value"]

    requested, shown = asyncio.run(drive())
    host = url.split("/")[2]
    assert shown
    assert requested and all(address.split("/")[2] == host for address in requested), requested
    assert any(address.endswith("/static/fonts/RobotoMono-VariableFont_wght.ttf") for address in requested)
