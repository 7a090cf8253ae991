"""The class server: textual-serve's two classes (vendored, `screens.serve.vendored_textual_serve`)
holding their tabs to `screens.serve.limits`.

textual-serve starts each tab's app with a copy of the server's environment, and when the websocket
closes it asks the app to quit and waits, forever if the app does not; it neither counts tabs nor asks
who connects. Two subclasses, through the copies' public hooks:

- `TabProcess` (an `AppService`) execs the tab's command in a new session, so in its own process
  group, with the scrubbed environment, its own temp folder inside the server's and Linux's
  parent-death signal. `stop` asks the app to quit; after QUIT_GRACE seconds it sends SIGTERM to the
  group, after TERM_GRACE more SIGKILL, then removes the temp folder. Every caller of `stop` waits for
  the same stop. Only keys a living app took keep the tab from counting as idle.
- `ClassServer` (a `Server`) refuses a request sent by another site's page (its Origin) and, on
  loopback, one for another Host name (DNS rebinding), wants the token on every request (the URL's
  `?token=`, then a cookie for the page's own requests), counts tabs (`--max-tabs`), caps each tab's
  terminal size, closes a tab idle for `--idle-timeout`, closes the websocket of a tab whose app died
  (its slot free at once), stops every tab when it stops (SIGINT, SIGTERM and SIGHUP alike, once however
  many arrive), and prints its one line once the port is bound, not before.

A tab the server closes gets the reason in the websocket's close frame; the page shows it in its
"Session ended" dialog (CLOSE_REASON_SCRIPT). Each refusal and closing is one line in the server's log,
a malformed request's too (`OneLineRefusals`); the access log shows the token as `...` (`MaskedAccessLog`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import sys
import time
from datetime import UTC, datetime

from aiohttp import WSCloseCode, web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http_exceptions import BadHttpMessage

from explorer.safe_text import visible

from screens.serve.limits import (
    TOKEN_PARAMETER,
    TabLimits,
    TabSetup,
    asked_size,
    capped_size,
    ended_message,
    host_accepted,
    idle_message,
    masked_token,
    origin_accepted,
    tab_environment,
    tabs_full_message,
    token_accepted,
    token_cookie,
)
from screens.serve.vendored_textual_serve import AppService, Server

log = logging.getLogger("textual-serve")

QUIT_GRACE = 2.0  # seconds a tab has to quit when asked, before SIGTERM
TERM_GRACE = 3.0  # seconds after SIGTERM, before SIGKILL
SHUTDOWN_TIMEOUT = 10.0  # seconds aiohttp waits for the handlers when the server stops
SERVER_STOPPED = "The server stopped."

# First in the page's head, before textual-serve's script: the page's "Session ended" dialog says why
# the server closed the tab (all tabs in use, idle too long, its app died, server stopped).
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
</script>"""
_PAGE = "<!DOCTYPE html><html><head><title>tensorweg</title></head><body><p>{}</p></body></html>"
# Linux: the kernel ends a tab whose server died, even by SIGKILL, when no stop could run.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
_PR_SET_PDEATHSIG = 1
FOREIGN_PAGE_TEXT = "This server answers only pages it served itself, at the address it was started on."
FORBIDDEN_TEXT = "This server admits only those who have its address with the token: ask whoever started it."


class TabProcess(AppService):
    """One tab's app process, started and stopped as a capture worker is (see the module's docstring)."""

    def __init__(self, setup: TabSetup, **kwargs) -> None:
        super().__init__(setup.command, **kwargs)
        self.setup = setup
        self.temp_dir = setup.run_dir / "tabs" / self.app_service_id
        self.last_input = time.monotonic()
        self.size_capped = False  # logged once per tab: a client resizing in a loop fills no log
        self.stopping: asyncio.Future | None = None

    def build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return tab_environment(super().build_environment(width, height), self.setup, self.temp_dir)

    def process_options(self) -> dict:
        return {"start_new_session": True, "preexec_fn": _end_with_the_server if _LIBC is not None else None}

    async def open_app_process(self, width: int = 80, height: int = 24):
        self.temp_dir.mkdir(parents=True)
        return await super().open_app_process(width, height)

    @property
    def ended(self) -> bool:
        """Its app has ended (its output closed): killed, crashed or quit."""
        return self.task is not None and self.task.done()

    async def send_bytes(self, data: bytes) -> bool:
        """Keys and clicks: what keeps a tab from counting as idle, when its app is there to take them."""
        if self.ended:
            return False
        sent = await super().send_bytes(data)
        if sent:
            self.last_input = time.monotonic()
        return sent

    async def stop(self) -> None:
        if self.stopping is None:
            self.stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self.stopping)  # a handler cancelled at shutdown leaves the stop running

    async def _stop(self) -> None:
        process = self.process
        if process is not None:
            await self.send_meta({"type": "quit"})
            if not await _ended(process, QUIT_GRACE):
                _signal_group(process.pid, signal.SIGTERM)
                if not await _ended(process, TERM_GRACE):
                    log.warning("a tab's app ignored SIGTERM for %g s: killed", TERM_GRACE)
                    _signal_group(process.pid, signal.SIGKILL)
                    await process.wait()
            _signal_group(process.pid, signal.SIGKILL)  # whatever the app left in its group
            if self.task is not None:  # its stdout is closed now: the reader ends (unless a stray holds it)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.task, TERM_GRACE)
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
        super().__init__(setup.command, host=host, port=port, title=title)
        self.setup, self.limits, self.shown = setup, limits, shown
        self.tabs: dict[TabProcess, web.WebSocketResponse] = {}
        self.cookie = token_cookie(port)

    async def make_app(self) -> web.Application:
        app = await super().make_app()
        app.middlewares.append(self.check_origin)  # first: a foreign page is refused before the token
        app.middlewares.append(self.check_token)
        return app

    @web.middleware
    async def check_origin(self, request: web.Request, handler) -> web.StreamResponse:
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
    async def check_token(self, request: web.Request, handler) -> web.StreamResponse:
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

    def initialize_logging(self) -> None:
        """One line per event, through `sys.stdout`, which `tensorweg` sanitises (a request's user agent
        is the client's text); a request aiohttp cannot parse is one line too."""
        super().initialize_logging()
        logging.getLogger("aiohttp.server").addFilter(OneLineRefusals())

    def announce(self) -> None:
        print(f"tensorweg: serving {self.shown} (Ctrl+C stops)", flush=True)

    def serve(self, debug: bool = False) -> None:
        super().serve(debug, shutdown_timeout=SHUTDOWN_TIMEOUT, access_log_class=MaskedAccessLog,
                      access_log=logging.getLogger("aiohttp.access"))

    async def on_shutdown(self, app: web.Application) -> None:
        """Tell each page why its tab ends, then stop every tab's process. In this order: an app
        that quits closes its websocket itself, without a reason."""
        tabs = list(self.tabs.items())
        await asyncio.gather(*(_close(websocket, WSCloseCode.GOING_AWAY, SERVER_STOPPED) for _, websocket in tabs),
                             return_exceptions=True)
        await asyncio.gather(*(tab.stop() for tab, _ in tabs), return_exceptions=True)

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page with the close reasons shown; a clear page instead when every tab is in use."""
        if len(self.tabs) >= self.limits.max_tabs:
            log.warning("refused a page to %s: all %d tabs in use (--max-tabs)", visible(str(request.remote)),
                        self.limits.max_tabs)
            return web.Response(status=503, text=_PAGE.format(tabs_full_message(self.limits.max_tabs)),
                                content_type="text/html")
        return self.page(request, head=CLOSE_REASON_SCRIPT)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15)  # a vanished client is noticed within ~30 s
        await websocket.prepare(request)
        if len(self.tabs) >= self.limits.max_tabs:
            log.warning("refused a tab to %s: all %d tabs in use (--max-tabs)", visible(str(request.remote)),
                        self.limits.max_tabs)
            await _close(websocket, WSCloseCode.TRY_AGAIN_LATER, tabs_full_message(self.limits.max_tabs))
            return websocket
        tab = TabProcess(self.setup, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=websocket.close, debug=self.debug)
        self.tabs[tab] = websocket
        idle_watch = asyncio.create_task(self._close_when_idle(tab, websocket)) if self.limits.idle_timeout else None
        try:
            await tab.start(*self.resize(tab, request.query.get("width"), request.query.get("height")))
            await self._relay_while_alive(websocket, tab)
        except Exception as error:  # one tab's failure is not the server's
            log.error("a tab failed: %s", visible(str(error)))
        finally:
            if idle_watch is not None:
                idle_watch.cancel()
            await tab.stop()
            self.tabs.pop(tab, None)  # its slot is free: the next learner gets a tab
            await websocket.close()
        return websocket

    async def _relay_while_alive(self, websocket: web.WebSocketResponse, tab: TabProcess) -> None:
        """The browser's messages until the page leaves or the tab's app ends. An app that quit (`q`)
        closed the websocket itself; one that died (killed, crashed) leaves it open, so it is closed
        here with the reason, and the handler's end frees the slot."""
        relay = asyncio.create_task(self.process_messages(websocket, tab))
        try:
            await asyncio.wait({relay, tab.task}, return_when=asyncio.FIRST_COMPLETED)
            if tab.ended and not websocket.closed:
                self.tabs.pop(tab, None)  # its slot is free before its page hears: the next learner gets a tab
                returncode = await _returncode(tab.process)
                log.warning("a tab's app ended by itself (%s): its page was told", _status_text(returncode))
                await _close(websocket, WSCloseCode.INTERNAL_ERROR, ended_message(returncode))
        finally:
            relay.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relay

    def resize(self, app_service: AppService, width: object, height: object) -> tuple[int, int]:
        asked = asked_size(width, height)
        size = capped_size(asked)
        if size != asked and not app_service.size_capped:
            app_service.size_capped = True
            log.warning("a tab asked for a %dx%d terminal: given %dx%d", *asked, *size)
        return size

    async def _close_when_idle(self, tab: TabProcess, websocket: web.WebSocketResponse) -> None:
        timeout = self.limits.idle_timeout
        while (left := tab.last_input + timeout - time.monotonic()) > 0:
            await asyncio.sleep(left)
        log.warning("closed a tab idle for %g s (--idle-timeout)", timeout)
        await _close(websocket, WSCloseCode.GOING_AWAY, idle_message(timeout))


class MaskedAccessLog(AbstractAccessLogger):
    """aiohttp's access log line, the token shown as `...` wherever the URL carries it (the request
    line, the Referer of the page's own requests); a request aiohttp could not parse is left to
    `OneLineRefusals`, which says why."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        if request.method == _UNPARSED:
            return
        line = masked_token(f"{request.method} {request.path_qs} HTTP/{request.version.major}.{request.version.minor}")
        referer = masked_token(request.headers.get("Referer", "-"))
        when = datetime.now(UTC).strftime("%d/%b/%Y:%H:%M:%S %z")
        self.logger.info('%s [%s] "%s" %s %s "%s" "%s"', request.remote, when, line, response.status,
                         response.body_length, referer, request.headers.get("User-Agent", "-"))


_UNPARSED = "UNKNOWN"  # aiohttp's method for a request whose head it could not parse


class OneLineRefusals(logging.Filter):
    """aiohttp logs a request it cannot parse (control characters in a header, say) as an error with
    its traceback: a dozen lines any client can add to the log. It gets its 400 all the same; here
    the record gives way to one line that says why."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, BadHttpMessage):
            return True
        reason = str(error.message).strip().splitlines()[0] if error.message else type(error).__name__
        remote = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        log.warning("refused a malformed request from %s: %s", visible(str(remote)), reason)
        return False


async def _returncode(process: asyncio.subprocess.Process | None) -> int | None:
    """The exit status of an app whose output ended (reaped within a moment), None if it is not."""
    if process is None:
        return None
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 2)
    return process.returncode


def _status_text(returncode: int | None) -> str:
    if returncode is None:
        return "its output ended"
    return f"signal {-returncode}" if returncode < 0 else f"exit status {returncode}"


def _shown(header: str | None) -> str:
    """A client's header in one log line: control characters shown, at most 80 characters."""
    if header is None:
        return "(none)"
    return repr(visible(header[:80] + ("..." if len(header) > 80 else "")))


async def _close(websocket: web.WebSocketResponse, code: int, reason: str) -> None:
    await websocket.close(code=code, message=reason.encode("utf-8"))
