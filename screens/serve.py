"""`tensorweg serve`: the explorer in web browsers, through textual-serve.

Each browser tab gets its own app process (`python -I -m screens.cli open ...`, started by textual-serve;
closing the tab ends it). What the tabs open is decided here, once: a lesson pack or a bundle
as it is, with captures forbidden (`screens.serve_policy`). A MODEL only with `--allow-capture`:
it is captured (or taken from the cache) before the server starts, so no learner waits for the
first compile, and the tabs open the model itself, so `c` captures the targets it lacks (without
--allow-capture, a MODEL captured before is served from the cache as a bundle); those
captures wait in one queue shared by every tab, at most `--max-captures` at once
(`explorer.capture.queue`, in a folder that lives as long as the server). Listening beyond this
machine is explicit and warned.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import shlex
import socket
import sys
import tempfile
from pathlib import Path

from explorer.capture.options import capture_flags
from explorer.capture.queue import CaptureQueue
from explorer.cli.commands import capture_options, default_language, open_or_capture
from explorer.course.pack import bundle_argument, is_pack
from explorer.errors import TensorwegError

from screens.serve_policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

DEFAULT_MAX_CAPTURES = 1  # a compile takes a core or more for seconds to minutes: one at a time


def is_loopback(host: str) -> bool:
    """Only this machine can connect: localhost, 127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise TensorwegError(f"bad --port {args.port}: expected 1 to 65535")
    max_captures = _max_captures(args)
    bundle_path = bundle_argument(args.model)
    if bundle_path is None and not args.allow_capture:
        bundle_path = _captured_before(args)  # `tensorweg serve` alone: the sample captured before, as it is
    if bundle_path is None:
        options = capture_options(args)
        open_or_capture(args.model, options)  # the first compile happens before anyone connects
        tab_arguments = [_shown_model(args.model), *capture_flags(options)]
    elif args.allow_capture:
        raise TensorwegError(f"--allow-capture: {args.model} is captured already and tabs cannot add to it; "
                             "name a MODEL to let the tabs capture")
    else:  # a pack's tabs start its first lesson
        tab_arguments = [_shown_path(Path(args.model) if is_pack(Path(args.model)) else bundle_path)]
    _check_resolves(args.host, args.port)  # before the warning: a host that is not there is one error line
    if not is_loopback(args.host):
        print(f"warning: serving on {args.host}: anyone who can reach this address and port can open the explorer",
              file=sys.stderr)
    command = shlex.join(tab_command([*tab_arguments, "--lang", args.lang or default_language()]))
    with tempfile.TemporaryDirectory(prefix="tensorweg-serve-") as run_dir:
        _tab_policy(Path(run_dir), max_captures)  # the tabs' processes inherit the environment
        server = _server_class()(command, host=args.host, port=args.port, title=f"tensorweg: {Path(args.model).name}")
        server.shown = f"{Path(args.model).name} on http://{args.host}:{args.port}"
        try:
            server.serve()
        except OSError as exc:  # aiohttp binds only now: a port in use, a host that does not resolve
            raise TensorwegError(f"cannot listen on {args.host}:{args.port}: {_listen_failure(exc)}") from None
    return 0


def _captured_before(args: argparse.Namespace) -> Path:
    """MODEL as the cache holds it from an earlier capture with these options (the explorer opens
    it from there too), served as a bundle; one error line when it was never captured."""
    from explorer.capture.orchestrator import cached_capture  # noqa: PLC0415 (the capture machinery: only here)

    path = cached_capture(args.model, capture_options(args))
    if path is None:
        raise TensorwegError(f"{args.model}: not captured yet, and serve opens lesson packs and bundles only; "
                             f"capture it first (`tensorweg capture {args.model}`, or `tensorweg pack`) "
                             "or pass --allow-capture")
    return path


def _check_resolves(host: str, port: int) -> None:
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise TensorwegError(f"cannot listen on {host}:{port}: {_listen_failure(exc)}") from None


def _listen_failure(exc: OSError) -> str:
    """Why the server could not listen, in a few words (asyncio's message repeats the address)."""
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host ({exc.strerror})"
    if exc.errno == errno.EADDRINUSE:
        return "the port is in use"
    return os.strerror(exc.errno) if exc.errno else str(exc)


def tab_command(arguments: list[str]) -> list[str]:
    """What textual-serve runs for each tab: `tensorweg open ARGUMENTS` in an isolated interpreter.

    `-I`, as the capture workers start: the current directory is not on `sys.path` (a `textual.py`
    there would run in every tab) and PYTHON* variables are ignored. The tab's paths stay relative
    to the current directory, where it starts."""
    return [sys.executable, "-I", "-m", "screens.cli", "open", *arguments]


def _max_captures(args: argparse.Namespace) -> int | None:
    """How many tabs may capture at once (None: none may)."""
    if args.max_captures is None:
        return DEFAULT_MAX_CAPTURES if args.allow_capture else None
    if not args.allow_capture:
        raise TensorwegError("--max-captures needs --allow-capture (without it the tabs never capture)")
    if args.max_captures < 1:
        raise TensorwegError(f"bad --max-captures {args.max_captures}: at least 1")
    return args.max_captures


def _tab_policy(run_dir: Path, max_captures: int | None) -> None:
    if max_captures is None:
        os.environ[CAPTURE_VARIABLE] = "0"
        os.environ.pop(QUEUE_VARIABLE, None)
        return
    os.environ[CAPTURE_VARIABLE] = "1"
    os.environ[QUEUE_VARIABLE] = str(CaptureQueue.create(run_dir / "queue", max_captures).folder)


def _shown_model(model: str) -> str:
    """A model file or folder relative to here (the tabs start here); a sample or module:function as named."""
    return _shown_path(Path(model)) if Path(model).exists() else model


def _shown_path(path: Path) -> str:
    """The bundle as the tabs' command names it: relative to here when it can be (no absolute paths shown)."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def _server_class():
    from textual_serve.server import Server  # noqa: PLC0415 (aiohttp loads only for `serve`)

    class TensorwegServer(Server):
        """textual-serve's server, announcing itself in one line instead of its logo and command."""

        shown = ""

        async def on_startup(self, app) -> None:
            print(f"tensorweg: serving {self.shown} (Ctrl+C stops)", flush=True)

    return TensorwegServer
