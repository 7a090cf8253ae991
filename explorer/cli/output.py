"""The command line's one way out: every line a command prints passes `explorer.safe_text.visible`.

`main` swaps `sys.stdout` and `sys.stderr` for `VisibleStream`s while a command runs, so tables,
explanations, progress and `error:` lines all pass one choke point, whoever prints them (the
core's commands, the UI's `open`/`screenshot`/`serve` handlers). A layer name that holds
`ESC ] 0 ; ... BEL` is printed as `␛]0;...␇`; newlines and tabs stay (tables are multi-line).
The stream's encoding is honoured the same way: what it cannot hold is printed as a backslash
escape (`PYTHONIOENCODING=ascii` prints `f\\xfcr`), never raised as UnicodeEncodeError.
The UI draws on `sys.__stderr__` (Textual's driver): untouched; its screens show names through
the same sanitiser themselves.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from explorer.safe_text import visible


class VisibleStream:
    """A text stream's stand-in that writes only what can be shown (everything else is delegated)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        shown = visible(text, multiline=True)
        encoding = getattr(self._stream, "encoding", None)
        if encoding:
            shown = shown.encode(encoding, "backslashreplace").decode(encoding)
        self._stream.write(shown)
        return len(text)  # what the caller gave: a stand-in is longer than the character it shows

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self._stream, name)


@contextmanager
def visible_output() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` pass `visible` until the block ends."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(stdout), VisibleStream(stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr
