"""The server's temp folder (`$TMPDIR/tensorweg-serve-*`: the capture queue, each tab's temp folder).

The server removes it when it stops, however it is asked to (Ctrl+C, SIGTERM, SIGHUP). A server
killed outright cannot; so it holds an `fcntl.flock` on a file in the folder for as long as it lives,
and the next server to start removes every such folder whose lock it can take: the kernel let go of
it when its owner died. A lock file appears only once locked (it is locked under another name, then
renamed), so a server that is just starting is never mistaken for a dead one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "tensorweg-serve-"
OWNER_LOCK = ".owner-lock"


@contextlib.contextmanager
def run_dir() -> Iterator[Path]:
    """A new temp folder, held while the block runs and removed after it; abandoned ones removed first."""
    remove_abandoned(Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix=PREFIX) as name:
        folder = Path(name)
        fd = os.open(folder / ".owner-lock-partial", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(folder / ".owner-lock-partial", folder / OWNER_LOCK)  # the lock goes with the file
            yield folder
        finally:
            os.close(fd)


def remove_abandoned(parent: Path) -> None:
    """Remove the servers' folders in `parent` whose owner has died (their lock is free)."""
    for folder in parent.glob(f"{PREFIX}*"):
        try:
            fd = os.open(folder / OWNER_LOCK, os.O_RDWR)
        except OSError:  # not locked yet, another user's, or from a tensorweg without the lock: left alone
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its server is alive
            os.close(fd)
            continue
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(fd)
