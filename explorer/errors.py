"""Errors that reach the user as one line (`error: ...`)."""

from __future__ import annotations

import errno


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


class DataError(TensorwegError):
    """A stored JSON file that is unreadable or does not hold the record it should; names the file and field."""


class BundleError(TensorwegError):
    """A bundle that cannot be used as it is (no manifest, another schema, damaged files)."""


class CaptureCancelled(TensorwegError):
    """The user (or a signal) cancelled a capture; nothing was written or cached."""


class CaptureFailed(TensorwegError):
    """A capture that produced nothing usable (every compiler level failed, or a worker died).

    `log_path` is where the workers' log was kept for `--debug` (None when it could not be kept).
    """

    def __init__(self, message: str, log_path=None) -> None:
        super().__init__(message)
        self.log_path = log_path


# A full disk, or the user's quota on it: the write failed for want of space, not for a bug.
NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


def no_space_left(error: BaseException) -> bool:
    """Whether `error` is a write that found the disk (or the quota) full."""
    return isinstance(error, OSError) and error.errno in NO_SPACE_ERRNOS


def write_failed(error: OSError, folder: object, what: object) -> TensorwegError:
    """The one line for a write of `what` into `folder` that failed: a full disk says so, by the
    folder's name (`no space left on FOLDER`), never as a crash; anything else gives the system's reason."""
    if no_space_left(error):
        return TensorwegError(f"no space left on {folder}: {what} was not written")
    return TensorwegError(f"{what}: cannot write ({error.strerror or error})")
