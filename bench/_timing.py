"""What the capture benchmarks share: timing one command in a fresh process."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_timed(command: list[str], env: dict) -> float:
    """Wall seconds of `command` run from the repository root, its output discarded."""
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start
