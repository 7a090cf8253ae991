"""A real `tensorweg serve` for the serve tests: started on a free loopback port from this tree, its
tabs' app processes found (the server's children, each in its own session), and conditions waited
for with a deadline instead of sleeps."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import aiohttp

from explorer.capture.queue import CaptureQueue

from screens.cli import main
from screens.serve.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

from tests.conftest import FIXTURES, ROOT

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"


def write_pack(folder: Path) -> Path:
    out = folder / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", "tensor_to_registers", "-o", str(out)]) == 0
    return out


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(argv: list[str], cwd: Path, env: dict | None = None, page: str = "/"):
    """`tensorweg serve ...` on a free loopback port, once it answers `page`: (url, page text, process)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "screens.cli", "serve", *argv, "--port", str(port), "--lang", "en"],
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + page, timeout=2) as response:
                return url, response.read().decode(), process
        except (OSError, urllib.error.HTTPError):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"serve did not start: {process.communicate()[1][-2000:]}") from None
            time.sleep(0.2)


def children(parent: int) -> list[int]:
    """The live processes whose parent is `parent`: a server's tabs (started without a shell)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if int(ppid) == parent and state != "Z":
                found.append(int(entry.name))
    return sorted(found)


def is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def environment_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.decode("utf-8", "replace").split("=", 1) for item in raw.split(b"\0") if b"=" in item)


def wait_until(predicate, what: str, seconds: float = 30):
    """Poll `predicate` until it is true; its value, or an AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.1)
    return value


def stop_server(process: subprocess.Popen, signum: int = signal.SIGTERM) -> tuple[str, str]:
    """Stop the server with `signum`; it exits 0 and no tab of it is left. Its (stdout, stderr)."""
    tabs = children(process.pid)
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        for tab in tabs:
            os.killpg(tab, signal.SIGKILL)
        raise
    assert process.returncode == 0, err[-2000:]
    wait_until(lambda: not any(is_running(tab) for tab in tabs), "every tab ended with the server", 10)
    return out, err


async def read_until(ws, text: str, seen: str = "", seconds: float = 90) -> str:
    """A tab's output (terminal codes and text) until `text` shows; what was read, `seen` before it."""
    deadline = time.monotonic() + seconds
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
            raise AssertionError(f"the tab closed before showing {text!r}: {message}")
    return seen


async def wait_for_close(ws, seconds: float = 90) -> tuple[int | None, str]:
    """Read a tab's output until the server closes it: (close code, reason)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            message = await ws.receive(timeout=5)
        except TimeoutError:
            continue
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
            return ws.close_code, (message.extra or "") if isinstance(message.extra, str) else ""
    raise AssertionError(f"the server did not close the tab within {seconds} s")


class ServerRecorder:
    """Stands in for the server (screens.serve.server.ClassServer): what serve would listen on and
    run for each tab, with which limits, and the line it would print."""

    calls: list = []

    def __init__(self, setup, limits, *, host, port, title, shown):
        self.setup, self.limits, self.host, self.port, self.shown = setup, limits, host, port, shown

    def serve(self):
        variables = dict(self.setup.variables)
        queue = variables.get(QUEUE_VARIABLE)
        ServerRecorder.calls.append(SimpleNamespace(
            command=shlex.join(self.setup.command), host=self.host, port=self.port, limits=self.limits,
            shown=self.shown, capture=variables.get(CAPTURE_VARIABLE), captures=self.setup.captures,
            queue_slots=CaptureQueue(Path(queue)).slots if queue else None))
