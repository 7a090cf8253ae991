"""At most N captures at once across processes: `tensorweg serve --allow-capture`'s tabs queue.

Every browser tab is its own process, so the limit lives in a folder they share (made by the
server, one per run): N slot files and one ticket file per waiting capture. A capture holds its
ticket, then its slot, as an `fcntl.flock` on that file for as long as it needs it; the kernel
drops a lock when its process ends, however it ends, so a closed tab or a killed process never
keeps a slot or a place (a ticket found unlocked is removed). Tickets are numbered in arrival
order (a counter under the folder's lock), and a capture takes a free slot only when fewer
living tickets are older than its own than there are free slots: first come, first served.
Waiting polls a few times a second and checks `cancel`: run it off any UI thread.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import CaptureCancelled, TensorwegError

_SLOTS_FILE = "slots"  # how many captures may run at once (written once, by the server)
_LOCK_FILE = "lock"  # held for a moment while tickets are numbered or slots looked at
_COUNTER_FILE = "counter"
_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class QueuePlace:
    """Where a waiting capture stands: `ahead` captures before it (running or waiting longer),
    `running` of at most `slots` at once."""

    ahead: int
    running: int
    slots: int


WaitCallback = Callable[[QueuePlace | None], None]  # a new place; None once the wait is over


class CaptureQueue:
    """The shared queue in `folder` (made by `create`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        try:
            self.slots = int((self.folder / _SLOTS_FILE).read_text(encoding="ascii"))
        except (OSError, ValueError):
            raise TensorwegError(f"{self.folder.name}: not a capture queue") from None

    @classmethod
    def create(cls, folder: Path, slots: int) -> CaptureQueue:
        """A new queue letting `slots` (at least 1, checked by the caller) captures run at once."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for number in range(slots):
            (folder / f"slot-{number}").touch()
        (folder / _COUNTER_FILE).write_text("0", encoding="ascii")
        (folder / _SLOTS_FILE).write_text(str(slots), encoding="ascii")  # last: the queue is whole
        return cls(folder)

    @contextmanager
    def slot(self, cancel: threading.Event, on_wait: WaitCallback | None = None) -> Iterator[None]:
        """Hold one slot for the `with` block; wait in line for it first.

        `on_wait` hears each new place while waiting, then None. Raises CaptureCancelled when
        `cancel` is set while waiting (the place in line is given up).
        """
        report = on_wait or (lambda place: None)
        ticket, number = self._take_ticket()
        held = None
        try:
            last = None
            while True:
                if cancel.is_set():
                    raise CaptureCancelled("capture cancelled while it waited for a slot; nothing was written")
                held, place = self._try_slot(number)
                if held is not None:
                    break
                if place != last:
                    report(place)
                    last = place
                cancel.wait(_POLL_SECONDS)
            if last is not None:
                report(None)
        finally:
            _remove_ticket(self.folder / _ticket_name(number), ticket)
        try:
            yield
        finally:
            os.close(held)  # the lock goes with the descriptor

    # --- inside the folder's lock ---------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.folder / _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # held for microseconds by whoever has it
            yield
        finally:
            os.close(fd)

    def _take_ticket(self) -> tuple[int, int]:
        """A new ticket, locked by this process: (its descriptor, its number)."""
        with self._locked():
            counter = self.folder / _COUNTER_FILE
            number = int(counter.read_text(encoding="ascii")) + 1
            counter.write_text(str(number), encoding="ascii")
            fd = os.open(self.folder / _ticket_name(number), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)  # before the folder's lock is let go: never seen unlocked
        return fd, number

    def _try_slot(self, number: int) -> tuple[int | None, QueuePlace]:
        """A locked slot's descriptor when this ticket's turn has come, else None; and the place."""
        with self._locked():
            older = sum(1 for other in self._living_tickets() if other < number)
            free = self._free_slots()
            running = self.slots - len(free)
            # Its turn: every older ticket still finds a free slot after this one takes the first.
            taken = free.pop(0) if older < len(free) else None
            # A free slot an older ticket is about to take counts as running: between one capture's
            # end and the next one's start a waiter read "1 ahead, 0 running" (and a test, at times).
            starting = 0 if taken is not None else len(free)
            for fd in free:
                os.close(fd)
        return taken, QueuePlace(running + older, running + starting, self.slots)

    def _free_slots(self) -> list[int]:
        """A descriptor holding each slot no other capture holds (close the ones not kept)."""
        free = []
        for index in range(self.slots):
            fd = os.open(self.folder / f"slot-{index}", os.O_RDWR)
            if _try_lock(fd):
                free.append(fd)
            else:
                os.close(fd)
        return free

    def _living_tickets(self) -> list[int]:
        """The numbers of tickets whose process still waits; the others' files are removed."""
        living = []
        for path in self.folder.glob("ticket-*"):
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:
                continue
            if _try_lock(fd):  # nobody holds it: its process ended
                _remove_ticket(path, fd)
            else:
                os.close(fd)
                living.append(int(path.name.removeprefix("ticket-")))
        return living


def _ticket_name(number: int) -> str:
    return f"ticket-{number:012d}"


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _remove_ticket(path: Path, fd: int) -> None:
    with suppress(FileNotFoundError):
        path.unlink()
    os.close(fd)
