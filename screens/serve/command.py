"""`tensorweg serve`: the explorer in web browsers, through textual-serve.

Each browser tab gets its own app process (`python -I -m screens.cli open ...`, started by textual-serve;
closing the tab ends it). What the tabs open is decided here, once: a lesson pack or a bundle
as it is, with captures forbidden (`screens.serve.policy`). A MODEL only with `--allow-capture`:
it is captured (or taken from the cache) before the server starts, so no learner waits for the
first compile, and the tabs open the model itself, so `c` captures the targets it lacks (without
--allow-capture, a MODEL captured before is served from the cache as a bundle); those
captures wait in one queue shared by every tab, at most `--max-captures` at once
(`explorer.capture.queue`, in a folder that lives as long as the server). Listening beyond this
machine is explicit, warned, and admits only requests that carry the token (`--token`, or one
made here). How the tabs are started, limited and stopped: `screens.serve.limits` (the rules)
and `screens.serve.server` (textual-serve's server, holding to them).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import re
import signal
import socket
import sys
from pathlib import Path

from explorer.capture.options import capture_flags
from explorer.capture.queue import CaptureQueue
from explorer.cli.commands import capture_files, capture_options, default_language, open_or_capture
from explorer.course.pack import PackLimits, bundle_argument, is_pack
from explorer.errors import TensorwegError
from explorer.views.suggested import capture_argv, command_line

from screens.serve.limits import TabLimits, TabSetup, is_loopback, new_token, public_url
from screens.serve.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE
from screens.serve.run_dir import run_dir as serve_run_dir

DEFAULT_MAX_CAPTURES = 1  # a compile takes a core or more for seconds to minutes: one at a time


def serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise TensorwegError(f"bad --port {args.port}: expected 1 to 65535")
    max_captures = _max_captures(args)
    limits = _tab_limits(args)
    bundle_path = bundle_argument(args.model, limits=_pack_limits(args))
    if bundle_path is None and not args.allow_capture:
        bundle_path = _captured_before(args)  # `tensorweg serve` alone: the sample captured before, as it is
    if bundle_path is None:
        options = capture_options(args)
        open_or_capture(args.model, options)  # the first compile happens before anyone connects
        tab_arguments = [_shown_model(args.model), *capture_flags(options, files=capture_files(args))]
    elif args.allow_capture:
        raise TensorwegError(f"--allow-capture: {args.model} is captured already and tabs cannot add to it; "
                             "name a MODEL to let the tabs capture")
    else:  # a pack's tabs start its first lesson in the tabs' --lang (Pack.start_tour)
        tab_arguments = [_shown_path(Path(args.model) if is_pack(Path(args.model)) else bundle_path)]
    _check_resolves(args.host, args.port)  # before the warning: a host that is not there is one error line
    if not is_loopback(args.host):
        print(_warning(args.host, max_captures), file=sys.stderr)
    command = tab_command([*tab_arguments, "--lang", args.lang or default_language()])
    address = public_url(args.host, args.port, socket.gethostname(), limits.token)
    with _signals_stop_serving(), serve_run_dir() as run_dir:
        setup = TabSetup(tuple(command), _tab_policy(run_dir, max_captures), run_dir, captures=max_captures is not None)
        server = _server_class()(setup, limits, host=args.host, port=args.port,
                                 title=f"tensorweg: {Path(args.model).name}",
                                 shown=f"{Path(args.model).name} on {address}")
        try:
            server.serve()
        except OSError as exc:  # aiohttp binds only now: a port in use, a host that does not resolve
            raise TensorwegError(f"cannot listen on {args.host}:{args.port}: {_listen_failure(exc)}") from None
    return 0


def _warning(host: str, max_captures: int | None) -> str:
    warning = f"warning: serving on {host}: anyone who can reach this address and has the token can open the explorer"
    if max_captures is not None:
        warning += f"; with --allow-capture any tab can start captures, up to {max_captures} at once (--max-captures)"
    return warning


@contextlib.contextmanager
def _signals_stop_serving():
    """SIGTERM and SIGHUP (a closed SSH session) end `serve` as Ctrl+C does, so the temp folder is
    removed; once the server runs, its event loop handles them (screens.serve.server). It returns with
    them blocked once its stop began (`vendored_textual_serve.Server.serve`): the process is ending, so
    any that came since (a second Ctrl+C) and any still to come are ignored, after the temp folder is
    gone: one clean stop, one exit status, however the signals fall."""
    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    for signum in previous:
        signal.signal(signum, signal.default_int_handler)
    try:
        yield
    finally:
        if set(stop_signals) <= signal.pthread_sigmask(signal.SIG_BLOCK, ()):  # the server ran and stopped
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)  # ignored: what waited is dropped
        else:  # no server ran (an in-process caller's stand-in)
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def _tab_limits(args: argparse.Namespace) -> TabLimits:
    if args.max_tabs < 1:
        raise TensorwegError(f"bad --max-tabs {args.max_tabs}: at least 1")
    if args.idle_timeout < 0:
        raise TensorwegError(f"bad --idle-timeout {args.idle_timeout}: seconds, 0 or more (0: never)")
    if args.token is not None and not re.fullmatch(r"[A-Za-z0-9_-]{16,}", args.token):
        raise TensorwegError("bad --token: at least 16 characters, each a letter, a digit, - or _")
    token = args.token if args.token is not None or is_loopback(args.host) else new_token()
    return TabLimits(max_tabs=args.max_tabs, idle_timeout=args.idle_timeout, token=token)


def _pack_limits(args: argparse.Namespace) -> PackLimits:
    if args.max_pack_members < 1:
        raise TensorwegError(f"bad --max-pack-members {args.max_pack_members}: at least 1")
    if not (math.isfinite(args.max_pack_disk) and args.max_pack_disk > 0):
        raise TensorwegError(f"bad --max-pack-disk {args.max_pack_disk:g}: GiB, more than 0")
    return PackLimits(max_members=args.max_pack_members, max_cache_bytes=int(args.max_pack_disk * (1 << 30)))


def _captured_before(args: argparse.Namespace) -> Path:
    """MODEL as the cache holds it from an earlier capture with these options (the explorer opens
    it from there too), served as a bundle; one error line when it was never captured."""
    from explorer.capture.orchestrator import cached_capture  # noqa: PLC0415 (the capture machinery: only here)

    options = capture_options(args)
    path = cached_capture(args.model, options)
    if path is None:
        raise TensorwegError(f"{args.model}: not captured yet, and serve opens lesson packs and bundles only; "
                             f"capture it first (`{command_line(capture_argv(args.model, options))}`, or "
                             "`tensorweg pack`) or pass --allow-capture")
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


def _tab_policy(run_dir: Path, max_captures: int | None) -> tuple[tuple[str, str], ...]:
    """The variables that tell each tab what it may do (screens.serve.policy)."""
    if max_captures is None:
        return ((CAPTURE_VARIABLE, "0"),)
    return (CAPTURE_VARIABLE, "1"), (QUEUE_VARIABLE, str(CaptureQueue.create(run_dir / "queue", max_captures).folder))


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
    from screens.serve.server import ClassServer  # noqa: PLC0415 (aiohttp loads only for `serve`)

    return ClassServer
