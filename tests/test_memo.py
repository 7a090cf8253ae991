"""Tables derived by identity (explorer.model.memo): built once, even when two threads ask at once,
and one kind's churn never evicts another kind's table."""

from __future__ import annotations

import threading

from explorer.model import memo
from explorer.model.memo import built_already, derived


class Owner:
    pass


def test_two_threads_asking_at_once_build_the_table_once():
    owner, started, release, builds = Owner(), threading.Event(), threading.Event(), []

    def build():
        builds.append(1)
        started.set()
        release.wait(10)
        return "table"

    results = []
    first = threading.Thread(target=lambda: results.append(derived(owner, "test once", build)))
    first.start()
    started.wait(10)
    second = threading.Thread(target=lambda: results.append(derived(owner, "test once", build)))
    second.start()
    assert not built_already(owner, "test once")  # still being built
    release.set()
    first.join(10)
    second.join(10)
    assert results == ["table", "table"] and builds == [1]
    assert built_already(owner, "test once")


def test_a_kind_built_for_thousands_of_owners_keeps_another_kind_s_table():
    """A deep model's 5,000 computations each get a readers table; the one kernel's brief, derived
    once, must survive them (it took 1.5 s to read)."""
    kept = Owner()
    derived(kept, "test brief", lambda: "brief")
    owners = [Owner() for _ in range(memo._KEPT * 2)]
    for owner in owners:
        derived(owner, "test churn", lambda: "readers")
    assert built_already(kept, "test brief")
    assert not built_already(owners[0], "test churn")  # the churning kind is still bounded
    assert built_already(owners[-1], "test churn")


def test_a_build_that_asks_for_its_own_table_again_builds_it_rather_than_wait_on_itself():
    owner = Owner()

    def build():
        return derived(owner, "test again", lambda: "inner") + "+outer"

    done = []
    thread = threading.Thread(target=lambda: done.append(derived(owner, "test again", build)), daemon=True)
    thread.start()
    thread.join(10)
    assert done == ["inner+outer"]
