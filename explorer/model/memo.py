"""Tables derived from a large frozen object (a parsed module, a computation), kept by identity.

Hashing a frozen `HloModule` walks all of it, so `functools.lru_cache` on one costs
as much as the walk it would save. These tables are keyed by the object's identity
(the object itself is kept with its table, so an id is never reused while cached)
and bounded: the least recently used table goes first.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Lock
from typing import TypeVar

T = TypeVar("T")

_KEPT = 256
_tables: dict[tuple[int, str], tuple[object, object]] = {}
_lock = Lock()  # the UI thread and a warming worker may ask at once


def derived(owner: object, kind: str, build: Callable[[], T]) -> T:
    """`build()` for (`owner`, `kind`), built once while `owner` stays among the last few used."""
    key = (id(owner), kind)
    with _lock:
        found = _tables.pop(key, None)
        if found is not None and found[0] is owner:
            _tables[key] = found
            return found[1]  # type: ignore[return-value]
    value = build()
    with _lock:
        if len(_tables) >= _KEPT:
            del _tables[next(iter(_tables))]  # the least recently used
        _tables[key] = (owner, value)
    return value
