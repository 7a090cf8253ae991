"""Tables derived from a large frozen object (a parsed module, a computation), kept by identity.

Hashing a frozen `HloModule` walks all of it, so `functools.lru_cache` on one costs
as much as the walk it would save. These tables are keyed by the object's identity
(the object itself is kept with its table, so an id is never reused while cached)
and bounded: the least recently used table goes first.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Event, Lock, get_ident
from typing import TypeVar

T = TypeVar("T")

_KEPT = 256  # tables of one kind: a kind's churn (one per computation) never evicts another kind's
_tables: dict[str, dict[int, tuple[object, object]]] = {}
_lock = Lock()  # the UI thread and a warming worker may ask at once
# What a thread builds now: a second thread asking waits for it (a deep model's one kernel took a
# worker and the warm-up 1.5 s each, side by side, when both asked for its brief at once).
_building: dict[tuple[str, int], tuple[object, Event, int]] = {}
WAIT_S = 5.0


def derived(owner: object, kind: str, build: Callable[[], T]) -> T:
    """`build()` for (`owner`, `kind`), built once while `owner` stays among the last few used of its kind."""
    key = id(owner)
    with _lock:
        tables = _tables.setdefault(kind, {})
        found = tables.pop(key, None)
        if found is not None and found[0] is owner:
            tables[key] = found
            return found[1]  # type: ignore[return-value]
        other = _building.get((kind, key))
        # The same thread asking again inside its own build builds it, never waits on itself.
        mine = other is None or other[0] is not owner or other[2] == get_ident()
        building = _building[(kind, key)] = (owner, Event(), get_ident()) if other is None or mine else other
    if not mine:  # another thread builds it now: wait for its table rather than build it twice
        if building[1].wait(WAIT_S):
            return derived(owner, kind, build)
        return build()  # bounded: a build that itself waits on this thread must never hold it
    try:
        value = build()
        with _lock:
            tables = _tables.setdefault(kind, {})
            if len(tables) >= _KEPT:
                del tables[next(iter(tables))]  # the least recently used
            tables[key] = (owner, value)
        return value
    finally:
        with _lock:
            if _building.get((kind, key)) is building:
                del _building[(kind, key)]
        building[1].set()


def built_already(owner: object, kind: str) -> bool:
    """Whether `derived` holds a table for (`owner`, `kind`) now (a thread that only reads asks first)."""
    with _lock:
        found = _tables.get(kind, {}).get(id(owner))
        return found is not None and found[0] is owner
