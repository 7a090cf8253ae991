"""Work off the UI thread that never holds the process when the learner quits.

Textual's thread workers run on asyncio's default executor, whose threads the interpreter joins
at exit: `q` pressed while the open worker still warmed ResNet50's tables took 1.9 s to give the
shell back, and a level built for a minute would have held it that long. What runs here runs on
daemon threads: quitting leaves them behind (they only build caches and post messages).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import TypeVar

Result = TypeVar("Result")


def start_daemon(work: Callable[[], object], name: str) -> threading.Thread:
    """Run `work()` on a daemon thread (it must catch what it expects and only post messages)."""
    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    return thread


async def in_daemon_thread(work: Callable[[], Result], name: str) -> Result:
    """`await` the result of `work()` run on a daemon thread (its exception is raised here).

    For an async Textual worker: cancelling the worker (the app quits, a newer build replaces
    it) stops the waiting at once; the thread finishes on its own, unwaited."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(outcome: tuple[bool, object]) -> None:
        if done.cancelled():
            return
        ok, value = outcome
        if ok:
            done.set_result(value)
        else:
            done.set_exception(value)  # type: ignore[arg-type]

    def run() -> None:
        try:
            outcome = (True, work())
        except BaseException as exc:
            outcome = (False, exc)
        with suppress(RuntimeError):  # the app has ended and its loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, outcome)

    start_daemon(run, name)
    return await done
