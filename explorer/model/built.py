"""Asking for what is built, never building it: the UI thread's question before it shows something.

A deep model's data takes seconds to read and link (a 5,000-layer model's kernels level held the UI
thread for 31 s, and every key waited for it). What would read a bundle's file, parse a module or
link an index calls `about_to_read` first, what would fill a per-bundle table `about_to_build`:
within `only_read()` the first raises `NotBuilt`, within `only_built()` both do. The caller then
shows what is there and has the rest built on a worker thread, which asks without either.

`only_built` is for a level's rows (a list of 5,000 rows is a table worth a worker); `only_read` for
what one item shows (the side panes, where a number key lands): their small per-item tables are
built at once from what is read, so a cursor move still shows its panes in its own frame.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

_asking = threading.local()  # .refused: what this thread may not do now ("", "read" or "build")


class NotBuilt(Exception):
    """Raised inside `only_read()` / `only_built()` where something would have to be read or built."""


@contextmanager
def _refusing(what: str) -> Iterator[None]:
    before = getattr(_asking, "refused", "")
    _asking.refused = "build" if "build" in (before, what) else what
    try:
        yield
    finally:
        _asking.refused = before


def only_read() -> AbstractContextManager[None]:
    """Within it (on this thread), a file not read or an index not linked raises NotBuilt."""
    return _refusing("read")


def only_built() -> AbstractContextManager[None]:
    """Within it (on this thread), anything not read or built yet, tables too, raises NotBuilt."""
    return _refusing("build")


# Items one walk over the traces may reach on a thread that only reads, before it is left to a worker:
# a kernel holding all of a 5,000-layer model's fusions, traced up to its layers for a number key,
# took the UI thread 70 ms alone (240 ms beside a level's loading threads).
WALK_LIMIT = 1_000


def about_to_walk(items: int, what: str) -> None:
    """Called before a walk over `items` items: NotBuilt within either when they are more than WALK_LIMIT."""
    if items > WALK_LIMIT and getattr(_asking, "refused", ""):
        raise NotBuilt(what)


def about_to_read(what: str) -> None:
    """Called where `what` is about to be read, parsed or linked: NotBuilt within either."""
    if getattr(_asking, "refused", ""):
        raise NotBuilt(what)


def about_to_build(what: str) -> None:
    """Called where the table `what` is about to be built: NotBuilt within `only_built()`."""
    if getattr(_asking, "refused", "") == "build":
        raise NotBuilt(what)
