"""A key's turn (explorer.key_turns): work built ahead waits while the UI serves a key, other work never."""

from __future__ import annotations

import threading

import pytest

from explorer import key_turns
from explorer.key_turns import KEY_TURN_S, ahead_of_need, key_turn, step_aside


class Clock:
    """time.monotonic and time.sleep as the module sees them: sleeping moves the clock."""

    def __init__(self) -> None:
        self.now, self.slept = 100.0, []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The module's clock, and no key's turn yet."""
    clock = Clock()
    monkeypatch.setattr(key_turns, "time", clock)
    monkeypatch.setattr(key_turns, "_turn_ends", [0.0])
    return clock


def test_work_ahead_of_need_sleeps_out_a_key_s_turn_and_other_work_goes_on(clock):
    step_aside()
    with ahead_of_need():
        step_aside()
    assert clock.slept == []  # no key: nothing waits
    key_turn()
    clock.now += KEY_TURN_S / 3
    step_aside()  # a jump's answer, a level's rows: work a key waits for never steps aside
    assert clock.slept == []
    with ahead_of_need():
        step_aside()
        assert abs(sum(clock.slept) - 2 * KEY_TURN_S / 3) < 1e-9  # until the turn is over, not longer
        step_aside()
    assert len(clock.slept) == 1


def test_only_the_thread_that_builds_ahead_steps_aside(clock):
    key_turn()
    with ahead_of_need():
        other = threading.Thread(target=step_aside)  # another thread: not marked
        other.start()
        other.join()
        assert clock.slept == []


def test_the_warm_up_after_opening_builds_ahead_of_need(monkeypatch):
    """The open's warm-up runs marked, so its parse and link steps give way to a key."""
    from explorer.session import opening

    seen = []
    monkeypatch.setattr(opening, "_warm", lambda *args: seen.append(getattr(key_turns._this_thread, "ahead", False)))

    class Opened:
        bundle = None

    monkeypatch.setattr(opening, "shown_target", lambda bundle, target: target)
    opening.warm_after_open(Opened(), "layers", "cpu", "en", lambda event: None, lambda: False)
    assert seen == [True]
    assert getattr(key_turns._this_thread, "ahead", False) is False
