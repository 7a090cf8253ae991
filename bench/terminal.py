"""A program in a real terminal, as a learner sees it: tmux runs it in a pane of a fixed size and
the bench reads the pane's text (`capture-pane`), as often as it can, until what it waits for shows.

Every figure is taken the same way for tensorweg and for the hello-world app beside it
(`bench/hello_world_app.py`), so the tmux client's own cost (a few ms per poll) is in both.
"""

from __future__ import annotations

import atexit
import os
import shlex
import subprocess
import time
from collections.abc import Callable

TIMEOUT_S = 120.0
POLL_S = 0.002  # between two looks at the pane: each look is a tmux client process anyway
# The screen counts as settled once it has not changed for this long.
QUIET_S = 0.4
# What the pane shows once the program has ended and the shell is back (`Pane.start`).
PROMPT = "SHELL-PROMPT-BACK"
# A tmux server of the bench's own (never another user's sessions), kept up by one idle session
# for the whole run: a server that exits as its last session is killed refuses the next one.
SOCKET = f"tensorweg-bench-{os.getpid()}"


def tmux(*arguments: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", "-L", SOCKET, *arguments], **options)


def _start_server() -> None:
    tmux("new-session", "-d", "-s", "keeper", "sleep", "86400", check=True)
    atexit.register(lambda: tmux("kill-server", stderr=subprocess.DEVNULL))  # our own server only


_server_started: list[bool] = []


class Pane:
    """One tmux session running one command; `close()` kills it."""

    def __init__(self, command: str, size: tuple[int, int], env: dict[str, str] | None = None) -> None:
        self.session = f"tensorweg-bench-{time.time_ns()}"
        self.command = command
        self.size = size
        self.env = env or {}

    def start(self) -> float:
        """Start the command; returns the time it was started (perf_counter). When it ends, the
        pane prints PROMPT (as a shell would show its prompt) and stays."""
        exports = "".join(f"export {name}={shlex.quote(value)}; " for name, value in self.env.items())
        script = f"{exports}{self.command}; printf '\\n{PROMPT}\\n'; exec sleep 600"
        if not _server_started:
            _start_server()
            _server_started.append(True)
        started = self.started = time.perf_counter()
        tmux("new-session", "-d", "-s", self.session, "-x", str(self.size[0]),
                        "-y", str(self.size[1]), "sh", "-c", script, check=True)
        return started

    # With the colours and attributes (`capture-pane -e`): a moved highlight is a change on screen,
    # though the text stays the same (a list's cursor row, in tensorweg). Markers are looked for in
    # the plain text, changes in the styled one once a bench sets this.
    styled = False
    started = float("nan")  # set by `start`

    def screen(self) -> str:
        flags = ("-p", "-e") if self.styled else ("-p",)
        return tmux("capture-pane", *flags, "-t", self.session, capture_output=True, text=True).stdout

    def send(self, key: str) -> float:
        """Press `key` (tmux's key names: Down, q, 4); returns the time just before it was sent."""
        pressed = time.perf_counter()
        tmux("send-keys", "-t", self.session, key, check=True)
        return pressed

    def wait_for(self, shows: Callable[[str], bool], since: float) -> tuple[float, str]:
        """Seconds from `since` until the screen `shows` what is waited for, and that screen
        (nan when it never does)."""
        while time.perf_counter() - since < TIMEOUT_S:
            screen = self.screen()
            if shows(screen):
                return time.perf_counter() - since, screen
            time.sleep(POLL_S)
        return float("nan"), ""

    def settle(self, since: float) -> tuple[float, str]:
        """Seconds from `since` to the screen's last change before it stayed the same for QUIET_S."""
        called = time.perf_counter()
        last_screen, last_change = self.screen(), called
        while time.perf_counter() - last_change < QUIET_S:
            if time.perf_counter() - called > TIMEOUT_S:
                return float("nan"), last_screen
            time.sleep(POLL_S)
            screen = self.screen()
            if screen != last_screen:
                last_screen, last_change = screen, time.perf_counter()
        return last_change - since, last_screen

    def close(self) -> None:
        tmux("kill-session", "-t", self.session, stderr=subprocess.DEVNULL)
