"""A key's turn: work done ahead of need steps aside while the UI thread serves a key.

Threads share the interpreter's lock. The warm-up after opening a 5,000-layer model parses, links
and lists for seconds; a key pressed meanwhile got a share of the lock (1 in 10 samples under
py-spy --gil) and took effect 0.2-2 s later. The UI thread calls `key_turn()` for each key; work
that only builds ahead (`ahead_of_need()`, the warm-up) calls `step_aside()` between its small
steps and sleeps until the key's turn is over. Work a key waits for (a jump's answer, a level's rows)
never steps aside.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# Long enough for a key's frame on a loaded two-core machine (a visit: about 100 ms), short enough
# that a learner holding a key down still lets the warm-up on between presses.
KEY_TURN_S = 0.15

_turn_ends = [0.0]  # monotonic seconds; one writer (the UI thread), a stale read costs one step
_this_thread = threading.local()  # .ahead: this thread's work is ahead of need


def key_turn() -> None:
    """A key came: work ahead of need waits KEY_TURN_S from now."""
    _turn_ends[0] = time.monotonic() + KEY_TURN_S


@contextmanager
def ahead_of_need() -> Iterator[None]:
    """Within it (on this thread), `step_aside()` waits out a key's turn."""
    before = getattr(_this_thread, "ahead", False)
    _this_thread.ahead = True
    try:
        yield
    finally:
        _this_thread.ahead = before


def step_aside() -> None:
    """Between two small steps of work: on a thread ahead of need, sleep while a key is served."""
    if not getattr(_this_thread, "ahead", False):
        return
    while (left := _turn_ends[0] - time.monotonic()) > 0:
        time.sleep(min(left, KEY_TURN_S))
