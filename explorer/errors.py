"""Errors that reach the user as one line (`error: ...`)."""

from __future__ import annotations


class TensorwegError(Exception):
    """A problem the user can act on; the CLI prints `error: <message>` and exits 2."""


class ParseError(TensorwegError):
    """Text (HLO, buffer assignment, tour file...) that does not parse; names line and column."""

    def __init__(self, message: str, line: int = 0, column: int = 0, source: str = "") -> None:
        self.reason = message
        self.line = line
        self.column = column
        self.source = source
        where = f"{source}:" if source else ""
        where += f"{line}:{column}: " if line else ""
        super().__init__(f"{where}{message}")
