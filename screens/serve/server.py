"""textual-serve's server, holding its tabs to `screens.serve.limits`.

textual-serve starts each tab's app through a shell with a copy of the server's environment, and
when the websocket closes it asks the app to quit and waits, forever if the app does not; it
neither counts tabs nor asks who connects. Two subclasses change the least that fixes that:

- `TabProcess` (its `AppService`) execs the tab's command (no shell) in a new session, so in its own
  process group, with the scrubbed environment and its own temp folder inside the server's. `stop`
  asks the app to quit; after QUIT_GRACE seconds it sends SIGTERM to the group, after TERM_GRACE
  more SIGKILL, then removes the temp folder. Every caller of `stop` waits for the same stop.
- `ClassServer` (its `Server`) refuses a request sent by another site's page (its Origin) and, on
  loopback, one for another Host name (DNS rebinding), wants the token on every request (the URL's
  `?token=`, then a cookie for the page's own requests), counts tabs (`--max-tabs`), caps each tab's
  terminal size, closes a tab idle for `--idle-timeout`, stops every tab when it stops (SIGINT,
  SIGTERM and SIGHUP alike), and prints its one line once the port is bound, not before.

A tab the server closes gets the reason in the websocket's close frame; the page shows it in its
"Session ended" dialog (CLOSE_REASON_SCRIPT). Each refusal and closing is one line in the server's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import os
import shlex
import shutil
import signal
import sys
import time

import aiohttp_jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from explorer.safe_text import visible

from screens.serve.limits import (
    TOKEN_PARAMETER,
    TabLimits,
    TabSetup,
    asked_size,
    capped_size,
    host_accepted,
    idle_message,
    origin_accepted,
    tab_environment,
    tabs_full_message,
    token_accepted,
    token_cookie,
)

log = logging.getLogger("textual-serve")

QUIT_GRACE = 2.0  # seconds a tab has to quit when asked, before SIGTERM
TERM_GRACE = 3.0  # seconds after SIGTERM, before SIGKILL
SHUTDOWN_TIMEOUT = 10.0  # seconds aiohttp waits for the handlers when the server stops
SERVER_STOPPED = "The server stopped."

# Runs before textual-serve's script: the page's "Session ended" dialog says why the server closed
# the tab (all tabs in use, idle too long, server stopped), from the close frame's reason.
CLOSE_REASON_SCRIPT = """<script>
(() => {
  const NativeWebSocket = window.WebSocket;
  function ReasonShowingWebSocket(url, protocols) {
    const socket = protocols === undefined ? new NativeWebSocket(url) : new NativeWebSocket(url, protocols);
    socket.addEventListener("close", (event) => {
      const message = document.querySelector(".closed-dialog .message");
      if (event.reason && message) message.textContent = "Session ended: " + event.reason;
    });
    return socket;
  }
  ReasonShowingWebSocket.prototype = NativeWebSocket.prototype;
  for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) ReasonShowingWebSocket[name] = NativeWebSocket[name];
  window.WebSocket = ReasonShowingWebSocket;
})();
</script>
"""
_PAGE = "<!DOCTYPE html><html><head><title>tensorweg</title></head><body><p>{}</p></body></html>"
# Linux: the kernel ends a tab whose server died, even by SIGKILL, when no stop could run.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
_PR_SET_PDEATHSIG = 1
FOREIGN_PAGE_TEXT = "This server answers only pages it served itself, at the address it was started on."
FORBIDDEN_TEXT = "This server admits only those who have its address with the token: ask whoever started it."


class TabProcess(AppService):
    """One tab's app process, started and stopped as a capture worker is (see the module's docstring)."""

    def __init__(self, setup: TabSetup, **kwargs) -> None:
        super().__init__(shlex.join(setup.command), **kwargs)
        self.setup = setup
        self.temp_dir = setup.run_dir / "tabs" / self.app_service_id
        self.last_input = time.monotonic()
        self.size_capped = False  # logged once per tab: a client resizing in a loop fills no log
        self._stopping: asyncio.Future | None = None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return tab_environment(super()._build_environment(width, height), self.setup, self.temp_dir)

    async def _open_app_process(self, width: int = 80, height: int = 24):
        self.temp_dir.mkdir(parents=True)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.setup.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width, height), start_new_session=True,
            preexec_fn=_end_with_the_server if _LIBC is not None else None)
        self._stdin = process.stdin
        return process

    async def send_bytes(self, data: bytes) -> bool:
        """Keys and clicks: what keeps a tab from counting as idle."""
        self.last_input = time.monotonic()
        return await super().send_bytes(data)

    async def stop(self) -> None:
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)  # a handler cancelled at shutdown leaves the stop running

    async def _stop(self) -> None:
        process = self._process
        if process is not None:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            await self.send_meta({"type": "quit"})
            if not await _ended(process, QUIT_GRACE):
                _signal_group(process.pid, signal.SIGTERM)
                if not await _ended(process, TERM_GRACE):
                    log.warning("a tab's app ignored SIGTERM for %g s: killed", TERM_GRACE)
                    _signal_group(process.pid, signal.SIGKILL)
                    await process.wait()
            _signal_group(process.pid, signal.SIGKILL)  # whatever the app left in its group
            if self._task is not None:  # its stdout is closed now: the reader ends (unless a stray holds it)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._task, TERM_GRACE)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _end_with_the_server() -> None:
    """In the tab's process, before it runs the app: SIGKILL when the server's thread that started it
    (the event loop's, which lives as long as the server) ends. Nothing here may take a Python lock."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


async def _ended(process: asyncio.subprocess.Process, seconds: float) -> bool:
    try:
        await asyncio.wait_for(process.wait(), seconds)
    except TimeoutError:
        return False
    return True


def _signal_group(group: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group has ended
        os.killpg(group, signum)


class ClassServer(Server):
    """textual-serve's server with the tabs held to their limits (see the module's docstring)."""

    def __init__(self, setup: TabSetup, limits: TabLimits, *, host: str, port: int, title: str, shown: str) -> None:
        super().__init__(shlex.join(setup.command), host=host, port=port, title=title)
        self.setup, self.limits, self.shown = setup, limits, shown
        self.tabs: dict[TabProcess, web.WebSocketResponse] = {}
        self.cookie = token_cookie(port)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._check_origin)  # first: a foreign page is refused before the token
        app.middlewares.append(self._check_token)
        return app

    @web.middleware
    async def _check_origin(self, request: web.Request, handler) -> web.StreamResponse:
        """A request a browser sent for another site's page (its Origin is not this server), the
        websocket's above all, gets 403; so does, on loopback, one whose Host is not a loopback name
        with this server's port (DNS rebinding). See `serve_limits.origin_accepted`, `host_accepted`."""
        host, origin = request.headers.get("Host"), request.headers.get("Origin")
        if not host_accepted(host, self.host, self.port):
            refused = f"Host {_shown(host)} is not this server's"
        elif not origin_accepted(origin, host, request.scheme, self.host, self.port):
            refused = f"Origin {_shown(origin)} is not this server's"
        else:
            return await handler(request)
        log.warning("refused a request from %s: %s", visible(str(request.remote)), refused)
        return web.Response(status=403, text=_PAGE.format(FOREIGN_PAGE_TEXT), content_type="text/html")

    @web.middleware
    async def _check_token(self, request: web.Request, handler) -> web.StreamResponse:
        """Every request, the websocket's too, carries the token (403 without it); a page asked for
        with the token in its URL sets the cookie its scripts and websocket then carry."""
        given = request.query.get(TOKEN_PARAMETER)
        if not token_accepted(self.limits.token, given or request.cookies.get(self.cookie)):
            log.warning("refused a request from %s: no valid token", visible(str(request.remote)))
            return web.Response(status=403, text=_PAGE.format(FORBIDDEN_TEXT), content_type="text/html")
        response = await handler(request)
        if self.limits.token is not None and given and not response.prepared:
            response.set_cookie(self.cookie, self.limits.token, httponly=True, samesite="Strict")
        return response

    async def on_startup(self, app: web.Application) -> None:
        """Nothing yet: the port is not bound (`_announce` says when it is)."""

    def initialize_logging(self) -> None:
        """One line per event (textual-serve's rich handler wraps a long line into several); through
        `sys.stdout`, which `tensorweg` sanitises (a request's user agent is the client's text)."""
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logging.basicConfig(level="DEBUG" if self.debug else "INFO", handlers=[handler], force=True)

    def _announce(self, *_aiohttp_lines) -> None:
        print(f"tensorweg: serving {self.shown} (Ctrl+C stops)", flush=True)

    def serve(self, debug: bool = False) -> None:
        """textual-serve's `serve`, with SIGHUP (a closed SSH session) ending it as SIGINT does and
        the one line printed once the port is bound (aiohttp's `print` hook comes after the bind)."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self.request_exit)
        web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False, loop=loop,
                    print=self._announce, shutdown_timeout=SHUTDOWN_TIMEOUT)

    async def on_shutdown(self, app: web.Application) -> None:
        """Tell each page why its tab ends, then stop every tab's process. In this order: an app
        that quits closes its websocket itself, without a reason."""
        tabs = list(self.tabs.items())
        await asyncio.gather(*(_close(websocket, WSCloseCode.GOING_AWAY, SERVER_STOPPED) for _, websocket in tabs),
                             return_exceptions=True)
        await asyncio.gather(*(tab.stop() for tab, _ in tabs), return_exceptions=True)

    async def handle_index(self, request: web.Request) -> web.Response:
        """textual-serve's page, with its websocket on the address the browser used (for 0.0.0.0
        textual-serve wrote `ws://0.0.0.0/...`, which no other machine can reach) and the close
        reasons shown; a clear page instead when every tab is in use."""
        if len(self.tabs) >= self.limits.max_tabs:
            log.warning("refused a page to %s: all %d tabs in use (--max-tabs)", visible(str(request.remote)),
                        self.limits.max_tabs)
            return web.Response(status=503, text=_PAGE.format(tabs_full_message(self.limits.max_tabs)),
                                content_type="text/html")
        scheme = "wss" if request.secure else "ws"
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{scheme}://{request.host}{request.app.router['websocket'].url_for()}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.text = response.text.replace("<head>", "<head>\n" + CLOSE_REASON_SCRIPT, 1)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15)  # a vanished client is noticed within ~30 s
        await websocket.prepare(request)
        if len(self.tabs) >= self.limits.max_tabs:
            log.warning("refused a tab to %s: all %d tabs in use (--max-tabs)", visible(str(request.remote)),
                        self.limits.max_tabs)
            await _close(websocket, WSCloseCode.TRY_AGAIN_LATER, tabs_full_message(self.limits.max_tabs))
            return websocket
        tab = TabProcess(self.setup, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=websocket.close, download_manager=self.download_manager, debug=self.debug)
        self.tabs[tab] = websocket
        idle_watch = asyncio.create_task(self._close_when_idle(tab, websocket)) if self.limits.idle_timeout else None
        try:
            await tab.start(*self._size(tab, request.query.get("width"), request.query.get("height")))
            await self._process_messages(websocket, tab)
        except Exception as error:  # one tab's failure is not the server's (textual-serve logs it too)
            log.error("a tab failed: %s", visible(str(error)))
        finally:
            if idle_watch is not None:
                idle_watch.cancel()
            await tab.stop()
            del self.tabs[tab]
            await websocket.close()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: TabProcess) -> None:
        """textual-serve's, with the size capped and a malformed message ignored (not a traceback)."""
        async for message in websocket:
            envelope = _envelope(message)
            if envelope is None:
                continue
            kind, data = envelope
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await app_service.set_terminal_size(*self._size(app_service, data.get("width"), data.get("height")))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    def _size(self, tab: TabProcess, width: object, height: object) -> tuple[int, int]:
        asked = asked_size(width, height)
        size = capped_size(asked)
        if size != asked and not tab.size_capped:
            tab.size_capped = True
            log.warning("a tab asked for a %dx%d terminal: given %dx%d", *asked, *size)
        return size

    async def _close_when_idle(self, tab: TabProcess, websocket: web.WebSocketResponse) -> None:
        timeout = self.limits.idle_timeout
        while (left := tab.last_input + timeout - time.monotonic()) > 0:
            await asyncio.sleep(left)
        log.warning("closed a tab idle for %g s (--idle-timeout)", timeout)
        await _close(websocket, WSCloseCode.GOING_AWAY, idle_message(timeout))


def _shown(header: str | None) -> str:
    """A client's header in one log line: control characters shown, at most 80 characters."""
    if header is None:
        return "(none)"
    return repr(visible(header[:80] + ("..." if len(header) > 80 else "")))


def _envelope(message) -> tuple[str, object] | None:
    """A browser's message as (kind, data); None for anything else."""
    if message.type != WSMsgType.TEXT:
        return None
    try:
        envelope = json.loads(message.data)
    except ValueError:
        return None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return None
    return envelope[0], envelope[1] if len(envelope) > 1 else None


async def _close(websocket: web.WebSocketResponse, code: int, reason: str) -> None:
    await websocket.close(code=code, message=reason.encode("utf-8"))
