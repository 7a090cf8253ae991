"""The capture queue `tensorweg serve --allow-capture` shares between its tabs' processes:
real processes competing for slots (tests/fake_workers/queue_client.py stands in for a tab)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from explorer.capture.events import CacheHit
from explorer.capture.queue import CaptureQueue, QueuePlace
from explorer.errors import CaptureCancelled, TensorwegError

from tests.conftest import ROOT

CLIENT = ROOT / "tests" / "fake_workers" / "queue_client.py"


class Tab:
    """One client process in line; `expect` reads its lines until one starts with a word."""

    def __init__(self, queue: CaptureQueue, name: str, log) -> None:
        self.name = name
        self.process = subprocess.Popen(
            [sys.executable, str(CLIENT), str(queue.folder), name, str(log)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.lines: list[str] = []

    def expect(self, word: str) -> str:
        while True:
            line = self.process.stdout.readline()
            assert line, f"{self.name} ended before saying {word!r} (said {self.lines})"
            self.lines.append(line.strip())
            if line.startswith(word):
                return line.strip()

    def release(self) -> None:
        self.process.stdin.write("done\n")
        self.process.stdin.flush()
        assert self.process.wait(30) == 0

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)


@pytest.fixture
def tabs(tmp_path):
    started: list[Tab] = []
    log = tmp_path / "log"

    def start(queue: CaptureQueue, name: str) -> Tab:
        started.append(Tab(queue, name, log))
        return started[-1]

    yield start, log
    for tab in started:
        if tab.process.poll() is None:
            tab.kill()
        tab.process.stdout.close()
        tab.process.stdin.close()


def test_three_processes_share_one_slot_in_arrival_order(tmp_path, tabs):
    start, log = tabs
    queue = CaptureQueue.create(tmp_path / "queue", 1)
    first = start(queue, "first")
    first.expect("got")
    second = start(queue, "second")
    assert second.expect("waiting") == "waiting 1 1"  # one capture ahead: the running one
    third = start(queue, "third")
    assert third.expect("waiting") == "waiting 2 1"  # the running one and the one waiting longer
    first.release()
    second.expect("got")
    assert third.expect("waiting") == "waiting 1 1"  # moved up one place
    second.release()
    third.expect("got")
    third.release()
    # Never two at once, and in the order they came.
    assert log.read_text().split("\n")[:-1] == ["got first", "end first", "got second", "end second",
                                                "got third", "end third"]
    assert not list(queue.folder.glob("ticket-*"))  # every place in line was given up


def test_a_killed_holder_frees_its_slot_and_a_killed_waiter_its_place(tmp_path, tabs):
    start, log = tabs
    queue = CaptureQueue.create(tmp_path / "queue", 1)
    holder = start(queue, "holder")
    holder.expect("got")
    gone = start(queue, "gone")
    gone.expect("waiting")
    last = start(queue, "last")
    assert last.expect("waiting") == "waiting 2 1"
    gone.kill()  # a closed tab: its ticket's lock went with it
    assert last.expect("waiting") == "waiting 1 1"
    holder.kill()  # a tab closed in the middle of its capture
    last.expect("got")
    last.release()
    assert log.read_text().split("\n")[:-1] == ["got holder", "got last", "end last"]


def test_two_slots_let_two_run_and_the_third_waits(tmp_path, tabs):
    start, _log = tabs
    queue = CaptureQueue.create(tmp_path / "queue", 2)
    one = start(queue, "one")
    one.expect("got")
    two = start(queue, "two")
    two.expect("got")
    three = start(queue, "three")
    assert three.expect("waiting") == "waiting 2 2"
    two.release()
    three.expect("got")
    one.release()
    three.release()


def test_cancel_gives_up_the_place_in_line(tmp_path):
    queue = CaptureQueue.create(tmp_path / "queue", 1)
    places: list[QueuePlace | None] = []
    cancel = threading.Event()
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            with queue.slot(cancel, places.append):
                pass
        except CaptureCancelled as exc:
            outcome.append(exc)

    with queue.slot(threading.Event()):  # the slot is taken: the thread waits in line
        waiter = threading.Thread(target=wait)
        waiter.start()
        deadline = time.monotonic() + 10
        while not places and time.monotonic() < deadline:
            time.sleep(0.02)
        assert places == [QueuePlace(ahead=1, running=1, slots=1)]
        cancel.set()
        waiter.join(10)
    assert outcome and "cancelled" in str(outcome[0])
    assert not list(queue.folder.glob("ticket-*"))


def test_a_slot_an_older_capture_is_about_to_take_counts_as_running(tmp_path):
    """Between one capture's end and the next one's start the slot is free, and the next in line
    still waits: a capture behind it read "1 ahead, 0 running" (a CI run of the test above did).
    Here the older capture is in line (its ticket taken) and has not reached for the free slot."""
    queue = CaptureQueue.create(tmp_path / "queue", 1)
    older, _ = queue._take_ticket()  # a capture in line, between two polls
    places: list[QueuePlace | None] = []
    cancel = threading.Event()

    def heard(place: QueuePlace | None) -> None:
        places.append(place)
        cancel.set()  # one place is enough

    try:
        with pytest.raises(CaptureCancelled), queue.slot(cancel, heard):
            pass
    finally:
        os.close(older)
    assert places == [QueuePlace(ahead=1, running=1, slots=1)]


def test_a_folder_that_is_no_queue_is_refused(tmp_path):
    with pytest.raises(TensorwegError, match="not a capture queue"):
        CaptureQueue(tmp_path)


def test_a_capture_waits_at_the_gate_and_finds_what_the_one_before_captured(fake, tmp_path):
    """The orchestrator enters the gate only when workers must run, and looks at the cache again once
    through: two captures of one model queued on one slot start the workers once (stand-in workers)."""
    from explorer.capture import orchestrator
    from explorer.model.records import CaptureOptions

    pids = fake("slow_ok")
    queue = CaptureQueue.create(tmp_path / "queue", 1)
    options = CaptureOptions(targets=("cpu",))
    waited: list[QueuePlace | None] = []
    events: list[str] = []
    first_in = threading.Event()

    @contextmanager
    def first_gate(cancel):
        with queue.slot(cancel):
            first_in.set()  # the slot is the first capture's now
            yield

    first = threading.Thread(target=orchestrator.capture, args=("mlp", options), kwargs={"gate": first_gate})
    first.start()
    assert first_in.wait(30)
    path = orchestrator.capture("mlp", options, on_event=lambda event: events.append(type(event)),
                                gate=lambda cancel: queue.slot(cancel, waited.append))
    first.join(30)
    assert waited[0] == QueuePlace(ahead=1, running=1, slots=1) and waited[-1] is None
    assert events == [CacheHit] and len(list(pids.iterdir())) == 1  # only the first capture's worker ran
    # A cache hit never enters the gate.
    assert orchestrator.capture("mlp", options, gate=lambda cancel: pytest.fail("a cache hit waited")) == path
