"""Shared test set-up: an isolated cache, and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Each test gets its own capture cache so results never leak between tests."""
    if "TENSORWEG_CACHE_DIR" not in os.environ or os.environ.get("TENSORWEG_TEST_SHARED_CACHE") != "1":
        monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
