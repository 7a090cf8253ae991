"""`tensorweg serve`: the explorer in web browsers, through textual-serve.

Each browser tab gets its own app process (`tensorweg open BUNDLE`, started by textual-serve;
closing the tab ends it). What the tabs open is decided here, once: a lesson pack or a bundle
as it is; a MODEL only with `--allow-capture`, and then it is captured (or taken from the cache)
before the server starts, so no learner waits for a compiler. The tabs' processes run with
captures forbidden (`screens.serve_policy`). Listening beyond this machine is explicit and warned.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys
from pathlib import Path

from explorer.commands import capture_options, default_language, open_or_capture
from explorer.errors import TensorwegError
from explorer.pack import bundle_argument, is_pack

from screens.serve_policy import CAPTURE_VARIABLE


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
    bundle_path = bundle_argument(args.model)
    opened = Path(args.model) if is_pack(Path(args.model)) else bundle_path  # a pack's tabs start its first lesson
    if bundle_path is None:
        if not args.allow_capture:
            raise TensorwegError(f"{args.model}: serve opens lesson packs and bundles only; "
                                 "capture it first (`tensorweg pack`) or pass --allow-capture")
        opened = open_or_capture(args.model, capture_options(args)).path
    if not is_loopback(args.host):
        print(f"warning: serving on {args.host}: anyone who can reach this address and port can open the explorer",
              file=sys.stderr)
    os.environ[CAPTURE_VARIABLE] = "0"  # the tabs' processes inherit it
    command = shlex.join([sys.executable, "-m", "screens.cli", "open", _shown_path(opened),
                          "--lang", args.lang or default_language()])
    server = _server_class()(command, host=args.host, port=args.port, title=f"tensorweg: {Path(args.model).name}")
    server.shown = f"{Path(args.model).name} on http://{args.host}:{args.port}"
    server.serve()
    return 0


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
