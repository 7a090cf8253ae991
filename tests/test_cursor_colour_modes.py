"""The list cursor is visible on every level in every colour mode a learner's terminal may have.

The installed command runs in a pseudo-terminal of 80x24 with the environment of a truecolour, a
256-colour, a 16-colour (`TERM=xterm`) and a monochrome (`NO_COLOR=1`) terminal; its output is
replayed in pyte, a terminal emulator, and the list's rows are read back as a learner sees them.
On each level (keys 1-5) exactly one row of the list must stand out from the others and from the
header (reverse video, or a background of its own), and after `Down` the one that stands out is the
next row. This is what failed before: with NO_COLOR the cursor was bold only, like the header; and
on a scrolled list `Down` redrew the wrong row, so the cursor vanished (issue 35).
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections import Counter
from pathlib import Path

import pyte
import pytest

from pilot_support import BUNDLE, needs_bundle

pytestmark = needs_bundle

COLUMNS, LINES = 80, 24
DOWN = "\x1b[B"
MODES = {
    "truecolor": {"TERM": "xterm-256color", "COLORTERM": "truecolor"},
    "256-colours": {"TERM": "xterm-256color"},
    "16-colours": {"TERM": "xterm"},
    "no-colour": {"TERM": "xterm-256color", "NO_COLOR": "1"},
}
WAIT_S = 30  # a bound for a key's effect to show: a frame that never comes fails, it does not hang
BOX_DRAWING = range(0x2500, 0x2580)


class Terminal:
    """The installed command in a pseudo-terminal, its screen kept by pyte."""

    def __init__(self, arguments: list[str], env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        command = Path(sys.executable).with_name("tensorweg")
        self.process = subprocess.Popen([str(command), *arguments], stdin=slave, stdout=slave, stderr=slave,
                                        env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.screen = pyte.Screen(COLUMNS, LINES)
        self.stream = pyte.ByteStream(self.screen)

    def press(self, key: str) -> None:
        os.write(self.master, key.encode())

    def read(self, seconds: float) -> None:
        """Feed what the app wrote within `seconds` to the emulator."""
        ready, _, _ = select.select([self.master], [], [], seconds)
        if ready:
            try:
                self.stream.feed(os.read(self.master, 1 << 16))
            except OSError:  # the app is gone: the next check says what was on screen
                time.sleep(seconds)

    def settle(self, quiet: float = 0.5) -> None:
        """Read until the app has written nothing for `quiet` seconds (bounded): a level's first frame
        may show its list before the selection carried down from the level above reaches it."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready:
                return
            self.read(0)

    def line(self, y: int) -> str:
        return "".join(self.screen.buffer[y][x].data for x in range(COLUMNS))

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self.master)


def list_rows(terminal: Terminal) -> tuple[tuple, list[tuple[str, tuple]]]:
    """The list's header look and its rows as (text, look), where a look is (reverse, background)
    of the row's first written cell: the rows run from below the header to the first pane's frame."""
    def look(y: int) -> tuple:
        cell = next((cell for cell in terminal.screen.buffer[y].values() if cell.data.strip()), None)
        return (cell.reverse, cell.bg) if cell is not None else (False, "default")

    rows = []
    for y in range(2, LINES):
        text = terminal.line(y)
        if not text.strip() or ord(text[0]) in BOX_DRAWING:
            break
        rows.append((text.strip(), look(y)))
    return look(1), rows


def cursor_rows(terminal: Terminal) -> list[int]:
    """The rows that stand out: their look is neither the one most rows have nor the header's."""
    header, rows = list_rows(terminal)
    if len(rows) < 3:
        return []
    usual, _ = Counter(seen for _, seen in rows).most_common(1)[0]
    return [index for index, (_, seen) in enumerate(rows) if seen not in (usual, header)]


def wait_for(terminal: Terminal, shown, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not shown():
        if time.monotonic() > deadline or terminal.process.poll() is not None:
            screen = "\n".join(terminal.line(y) for y in range(LINES))
            header, rows = list_rows(terminal)
            looks = "\n".join(f"{text[:30]:30} {seen}" for text, seen in [("(header)", header), *rows])
            raise AssertionError(f"{what}; the screen:\n{screen}\nthe list's looks (reverse, background):\n{looks}")
        terminal.read(0.2)


@pytest.mark.parametrize("mode", list(MODES))
def test_the_cursor_stands_out_on_every_level_and_follows_down(mode, tmp_path):
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C.UTF-8", **MODES[mode]}
    if "TENSORWEG_CACHE_DIR" in os.environ:
        env["TENSORWEG_CACHE_DIR"] = os.environ["TENSORWEG_CACHE_DIR"]
    terminal = Terminal([str(BUNDLE)], env)
    try:
        for level in "12345":
            terminal.press(level)
            shown = lambda: f"| {level} " in terminal.line(0) and len(cursor_rows(terminal)) == 1  # noqa: E731, B023
            wait_for(terminal, shown, f"{mode}, level {level}: no single list row stands out")
            terminal.settle()
            wait_for(terminal, shown, f"{mode}, level {level}: no single list row stands out once drawn")
            (before,) = cursor_rows(terminal)
            if mode == "no-colour":  # without colours only reverse video can tell the cursor
                assert list_rows(terminal)[1][before][1][0], f"level {level}: the cursor row is not reverse"
            terminal.press(DOWN)
            wait_for(terminal, lambda: cursor_rows(terminal) == [before + 1],  # noqa: B023 (read at once)
                     f"{mode}, level {level}: after Down the row below row {before} does not stand out")
    finally:
        terminal.close()
