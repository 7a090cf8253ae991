"""textual-serve's `AppService` and `Server`, vendored from textual-serve 1.1.3 (MIT licence below).

Upstream: https://github.com/Textualize/textual-serve, release 1.1.3, `src/textual_serve/app_service.py`
and `server.py`; the page is its `templates/app_index.html` (here `page.html`), the static files
(textual.js, xterm.css, the Roboto Mono fonts) are served from the installed textual-serve package.

Why a copy: `tensorweg serve` changes how a tab's process starts and stops and what the server admits
(`screens.serve.server`). Done by subclassing, that meant overriding textual-serve's private methods
(`_build_environment`, `_open_app_process`, `_process_messages`, `_make_app`) and reading its private
state (`_process`, `_task`, `_stdin`, `_download_manager`): every upgrade had to be checked by hand
(issue 35). Here the two classes are ours, with the hooks `screens.serve.server` needs made public.
Changes from upstream, each marked `# tensorweg:` where it is:

- the command is an argument list, started without a shell (`create_subprocess_exec`), with the
  extra `process_options` a subclass gives (its session, a parent-death signal);
- `build_environment`, `open_app_process`, `process_messages`, `make_app` and `resize` are public;
  `process`, `task` and `stdin` are public attributes;
- no file delivery: the explorer delivers no files, so there is no download route, no
  `DownloadManager` and no packed-message decoding (a delivery the app asks for is logged, refused);
- a browser message that is not what the page sends is ignored instead of raising;
- the page: the web font from this server, not fonts.googleapis.com (no third-party request), its
  values HTML-escaped, the websocket on the address the browser used;
- the logging and the run: one plain line per event (no Rich logo, console or handler), and `serve`
  runs an `aiohttp` `AppRunner` until a stop is asked (`stop`): a signal only sets an event, so a
  second Ctrl+C during the shutdown changes nothing (upstream raised `GracefulExit` from the signal
  handler, and a second one escaped the shutdown). `serve` returns with the stop signals
  (STOP_SIGNALS) blocked and ignored: one that comes after the stop began changes nothing, and the
  caller, which has its own clean-up to finish, decides when they count again
  (`screens.serve.command`).

MIT License

Copyright (c) 2024 Textualize

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import logging
import os
import signal
import sys
import uuid
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Literal

from aiohttp import WSMsgType, web

UPSTREAM_VERSION = "1.1.3"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # tensorweg: SIGHUP too (a closed SSH session)
log = logging.getLogger("textual-serve")
STATIC = resources.files("textual_serve") / "static"  # tensorweg: the installed package's own files
PAGE = Template((Path(__file__).parent / "page.html").read_text(encoding="utf-8"))


class AppService:
    """Creates and manages a single Textual app subprocess.

    When a user connects to the websocket in their browser, a new AppService
    instance is created to manage the corresponding Textual app process.
    """

    def __init__(self, command: Sequence[str], *, write_bytes: Callable[[bytes], Awaitable[None]],
                 write_str: Callable[[str], Awaitable[None]], close: Callable[[], Awaitable[None]],
                 debug: bool = False) -> None:
        self.app_service_id: str = uuid.uuid4().hex
        self.command = tuple(command)  # tensorweg: an argument list (upstream: a shell command line)
        self.remote_write_bytes = write_bytes
        self.remote_write_str = write_str
        self.remote_close = close
        self.debug = debug
        # tensorweg: public (upstream `_process`, `_task`, `_stdin`): the server's subclass stops them.
        self.process: Process | None = None
        self.task: asyncio.Task[None] | None = None
        self.stdin: asyncio.StreamWriter | None = None

    def build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        """The environment of the app subprocess (tensorweg: public, upstream `_build_environment`)."""
        environment = dict(os.environ.copy())
        environment["TEXTUAL_DRIVER"] = "textual.drivers.web_driver:WebDriver"
        environment["TEXTUAL_FPS"] = "60"
        environment["TEXTUAL_COLOR_SYSTEM"] = "truecolor"
        environment["TERM_PROGRAM"] = "textual"
        environment["TERM_PROGRAM_VERSION"] = UPSTREAM_VERSION  # tensorweg: upstream asks importlib.metadata
        environment["COLUMNS"] = str(width)
        environment["ROWS"] = str(height)
        if self.debug:
            environment["TEXTUAL"] = "debug,devtools"
            environment["TEXTUAL_LOG"] = "textual.log"
        return environment

    def process_options(self) -> dict[str, Any]:
        """tensorweg: more keyword arguments for `create_subprocess_exec` (a subclass's session, ...)."""
        return {}

    async def open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """Open a process to run the app (tensorweg: public; exec, no shell)."""
        self.process = process = await asyncio.create_subprocess_exec(
            *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self.build_environment(width, height), **self.process_options())
        assert process.stdin is not None
        self.stdin = process.stdin
        return process

    @classmethod
    def encode_packet(cls, packet_type: Literal[b"D", b"M"], payload: bytes) -> bytes:
        return b"%s%s%s" % (packet_type, len(payload).to_bytes(4, "big"), payload)

    async def send_bytes(self, data: bytes) -> bool:
        """Send bytes to the process; True if they were sent."""
        return await self._send_packet(self.encode_packet(b"D", data))

    async def send_meta(self, data: dict[str, str | None | int | bool]) -> bool:
        """Send meta information to the process; True if it was sent."""
        return await self._send_packet(self.encode_packet(b"M", json.dumps(data).encode("utf-8")))

    async def _send_packet(self, packet: bytes) -> bool:
        stdin = self.stdin
        assert stdin is not None
        try:
            stdin.write(packet)
        except RuntimeError:
            return False
        try:
            await stdin.drain()
        except Exception:
            return False
        return True

    async def set_terminal_size(self, width: int, height: int) -> None:
        await self.send_meta({"type": "resize", "width": width, "height": height})

    async def blur(self) -> None:
        await self.send_meta({"type": "blur"})

    async def focus(self) -> None:
        await self.send_meta({"type": "focus"})

    async def start(self, width: int, height: int) -> None:
        await self.open_app_process(width, height)
        self.task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        """Stop the process and wait for it to complete."""
        if self.task is not None:
            await self.send_meta({"type": "quit"})
            await self.task
            self.task = None

    async def run(self) -> None:
        """Relay the app's output until it ends (called by `start`)."""
        process = self.process
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout, process.stderr
        stderr_data = io.BytesIO()

        async def read_stderr() -> None:
            try:
                while data := await stderr.read(1024 * 4):
                    stderr_data.write(data)
            except asyncio.CancelledError:
                pass

        stderr_task = asyncio.create_task(read_stderr())
        try:
            if not await _prelude(stdout):
                log.error("Application failed to start")
            await self._relay(stdout)
        except (asyncio.IncompleteReadError, ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            stderr_task.cancel()
            await stderr_task
        if error_text := stderr_data.getvalue():
            sys.stdout.write(error_text.decode("utf-8", "replace"))

    async def _relay(self, stdout: asyncio.StreamReader) -> None:
        """The app's packets, until its output ends (IncompleteReadError)."""
        while True:
            type_bytes = await stdout.readexactly(1)
            size = int.from_bytes(await stdout.readexactly(4), "big")
            payload = await stdout.readexactly(size)
            if type_bytes == b"D":
                await self.on_data(payload)
            elif type_bytes == b"M":
                await self.on_meta(payload)
            # tensorweg: b"P" (packed: a file delivery's chunks) is not relayed: no file delivery

    async def on_data(self, payload: bytes) -> None:
        await self.remote_write_bytes(payload)

    async def on_meta(self, data: bytes) -> None:
        meta_data: dict[str, object] = json.loads(data)
        meta_type = meta_data["type"]
        if meta_type == "exit":
            await self.remote_close()
        elif meta_type == "open_url":
            await self.remote_write_str(json.dumps(
                ["open_url", {"url": meta_data["url"], "new_tab": meta_data["new_tab"]}]))
        elif meta_type == "deliver_file_start":  # tensorweg: refused (upstream handed it to its DownloadManager)
            log.warning("a tab asked to deliver a file: not supported")
        else:
            log.warning("Unknown meta type: %r", meta_type)


class Server:
    """Serve a Textual app (tensorweg: `command` an argument list; no statics or templates path)."""

    def __init__(self, command: Sequence[str], host: str = "localhost", port: int = 8000,
                 title: str | None = None) -> None:
        self.command = tuple(command)
        self.host = host
        self.port = port
        self.title = title or " ".join(command)
        self.debug = False
        self.stopping: asyncio.Event | None = None  # tensorweg: set by `stop` (a signal); `serve` then ends

    def initialize_logging(self) -> None:
        """One plain line per event (tensorweg: upstream used Rich's handler and console)."""
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logging.basicConfig(level="DEBUG" if self.debug else "INFO", handlers=[handler], force=True)

    def stop(self) -> None:
        """Ask `serve` to end (tensorweg: upstream's `request_exit` raised GracefulExit)."""
        if self.stopping is not None:
            self.stopping.set()

    async def make_app(self) -> web.Application:
        """The aiohttp application (tensorweg: public; no download route)."""
        app = web.Application()
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.static("/static", Path(str(STATIC)), name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Called on startup."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Called on shutdown."""

    def announce(self) -> None:
        """Called once the port is bound (tensorweg: upstream printed a logo on startup)."""

    def serve(self, debug: bool = False, shutdown_timeout: float = 60.0, **runner_options: Any) -> None:
        """Serve until SIGINT, SIGTERM (tensorweg: and SIGHUP) or `stop`; `runner_options` go to the
        AppRunner (its access log class, say). A port that cannot be bound raises OSError."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve(shutdown_timeout, runner_options))
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _serve(self, shutdown_timeout: float, runner_options: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        self.stopping = asyncio.Event()
        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, self.stop)  # a second one during the shutdown: set again
        runner = web.AppRunner(await self.make_app(), handle_signals=False, shutdown_timeout=shutdown_timeout,
                               **runner_options)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
            self.announce()
            await self.stopping.wait()
        finally:
            await runner.cleanup()
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # from here on they wait: see the docstring
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)
                signal.signal(signum, signal.SIG_IGN)  # (another thread may take one the block does not hold)

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page of an app (tensorweg: its websocket on the address the browser used)."""
        return self.page(request)

    def page(self, request: web.Request, head: str = "") -> web.Response:
        """The page, with `head` (trusted markup) first in its head (tensorweg: rendered here, escaped)."""
        scheme = "wss" if request.secure else "ws"
        values = {"static": "/static/", "font_size": str(_whole(request.query.get("fontsize", "16"), 16)),
                  "websocket_url": f"{scheme}://{request.host}{request.app.router['websocket'].url_for()}",
                  "name": self.title}
        page = PAGE.substitute({key: html.escape(value) for key, value in values.items()}, head=head)
        return web.Response(text=page, content_type="text/html")

    def resize(self, app_service: AppService, width: object, height: object) -> tuple[int, int]:
        """The terminal size for a browser's `width` and `height` (tensorweg: a hook; upstream: as given)."""
        return _whole(width, 80), _whole(height, 24)

    async def process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """Relay the browser's messages to the app (tensorweg: public; a malformed one is ignored)."""
        async for message in websocket:
            envelope = _envelope(message)
            if envelope is None:
                continue
            kind, data = envelope
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await app_service.set_terminal_size(*self.resize(app_service, data.get("width"), data.get("height")))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """The websocket that drives one app process."""
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        app_service = AppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                 close=websocket.close, debug=self.debug)
        try:
            await app_service.start(*self.resize(app_service, request.query.get("width"),
                                                 request.query.get("height")))
            await self.process_messages(websocket, app_service)
        finally:
            await app_service.stop()
        return websocket


async def _prelude(stdout: asyncio.StreamReader) -> bool:
    """Whether the app's first lines say it is a Textual app (its web driver's greeting)."""
    for _ in range(10):
        if not (line := await stdout.readline()):
            return False
        if line == b"__GANGLION__\n":
            return True
    return False


def _whole(value: object, default: int) -> int:
    """upstream's `to_int`: a whole number, or `default`."""
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _envelope(message) -> tuple[str, object] | None:
    """A browser's message as (kind, data); None for anything else (tensorweg: upstream asserted)."""
    if message.type != WSMsgType.TEXT:
        return None
    try:
        envelope = json.loads(message.data)
    except ValueError:
        return None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return None
    return envelope[0], envelope[1] if len(envelope) > 1 else None
