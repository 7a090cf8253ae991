"""Shared test set-up: an isolated cache, paths, and the stand-in capture workers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from explorer.capture import orchestrator

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
FAKE_WORKER = ROOT / "tests" / "fake_workers" / "fake_worker.py"
REAL_COMMAND = orchestrator.worker_command


def committed(path: Path) -> Path:
    """`path`, a fixture committed with the tests: missing, the test fails (it never skips)."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    assert path.exists(), f"committed fixture missing: {shown} (restore it: git checkout -- {shown})"
    return path


def lines_run(fn, *args):
    """(Python lines run by `fn(*args)` and what it returned): work counted, not timed.

    A test that guards against a slow algorithm compares the count at two sizes (linear work
    doubles with the input, quadratic work quadruples); timings belong in bench/.
    """
    count = 0

    def line_counter(frame, event, arg):
        nonlocal count
        count += event == "line"
        return line_counter

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: line_counter)
    try:
        result = fn(*args)
    finally:
        sys.settrace(previous)
    return count, result


@pytest.fixture(scope="session")
def recorded_bundle() -> Path:
    """The recorded mnist_cnn bundle the UI and view tests read (pilot_support.needs_bundle);
    session-scoped so its check runs before any module fixture opens the bundle."""
    return committed(FIXTURES / "bundles" / "mnist_cnn" / "manifest.json").parent


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Each test gets its own capture cache so results never leak between tests."""
    if "TENSORWEG_CACHE_DIR" not in os.environ or os.environ.get("TENSORWEG_TEST_SHARED_CACHE") != "1":
        monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def files_under(folder: Path) -> list[str]:
    """Every file and folder below `folder`, relative: what a refused input must leave as it was."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture
def empty_workplace(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """(current folder, cache): both empty; the cache is TENSORWEG_CACHE_DIR."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(cache))
    return cwd, cache


def fake_command(module: str) -> list[str]:
    """The real command (interpreter and flags), running the stand-in instead of `-m module`."""
    real = REAL_COMMAND(module)
    assert real[-2:] == ["-m", module]
    return [*real[:-2], str(FAKE_WORKER), module]


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Returns a function that sets the stand-in's behaviour; worker pids land in tmp_path/pids.

    The orchestrator starts tests/fake_workers/fake_worker.py instead of the real workers
    (tests/test_capture_orchestrator.py, tests/test_bundle_grow.py)."""
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setattr(orchestrator, "worker_command", fake_command)
    monkeypatch.setenv("TENSORWEG_FAKE_PIDS", str(pids))

    def behave(behaviour: str) -> Path:
        monkeypatch.setenv("TENSORWEG_FAKE_WORKER", behaviour)
        return pids

    return behave


# The unit lane (`-m "not e2e"`) never loads a compiler: a test that does belongs to the e2e lane.
COMPILER_MODULES = ("tensorflow", "keras", "jax", "tvm")


def _compilers_loaded() -> frozenset[str]:
    return frozenset(name for name in COMPILER_MODULES if name in sys.modules)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_LOADED_BEFORE] = _compilers_loaded()  # before any fixture of this item runs


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "teardown" and item.get_closest_marker("e2e") is None and report.passed:
        loaded = sorted(_compilers_loaded() - item.stash.get(_LOADED_BEFORE, frozenset()))
        if loaded:
            report.outcome = "failed"
            report.longrepr = (f"{item.nodeid} is not marked e2e but loaded {', '.join(loaded)}: "
                               "mark it e2e or keep the compilers out of it")
    return report


_LOADED_BEFORE = pytest.StashKey[frozenset]()
