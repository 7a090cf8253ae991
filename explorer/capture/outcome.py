"""What a capture's level statuses and its workers' ends mean for the caller, decided in one place.

Two answers the orchestrator (explorer.capture.orchestrator) gives from them:

- **No target compiled.** A capture whose every target asked for failed at every level (`tvm:cpu`
  alone for an LSTM: TVM's ONNX importer has no `Loop`) holds nothing the learner asked to see: it
  is never cached and ends as one line with the compiler's reason. Where some targets compiled, the
  bundle is kept and the caller is told which did not (`CaptureFinished.failed_targets`).
- **A full disk.** A worker that hits ENOSPC fails a level with Python's `[Errno 28] No space left on
  device`, dies of its traceback, or, in XLA's own dump writing, aborts (SIGABRT): the signature in
  its message or in the tail of its stderr (the capture log) tells it apart from a crash. Where the
  disk was too full even for that line, the free space left beside the bundle tells.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from explorer.capture.placement import shown_path
from explorer.levels import TARGET_LEVELS
from explorer.model.records import LevelStatus

# How the system, Python, TensorFlow and XLA word a full disk (compared in lower case).
NO_SPACE_SIGNATURES = ("no space left on device", "disk quota exceeded", "[errno 28]", "enospc")
# Less free space than this beside the bundle, after a worker died, means the disk filled up:
# the worker's own last words may not have fit into its log.
NEARLY_FULL_BYTES = 1 << 20

Statuses = Mapping[tuple[str, str], LevelStatus]


def says_no_space(text: str) -> bool:
    """Whether a worker's message (or its stderr's tail) says that a write found the disk full."""
    lowered = text.lower()
    return any(signature in lowered for signature in NO_SPACE_SIGNATURES)


def no_space_message(folder: Path) -> str:
    """The one line for a capture that found the disk beside its bundle (`folder`) full."""
    return f"no space left on {shown_path(folder)}: the capture could not write its files; nothing was cached"


def log_says_no_space(log: Path, start: int) -> bool:
    """Whether the capture log, from byte `start` (this capture's part), says a write found the disk
    full: XLA logs a dump it could not write and goes on, so a level may lack what the dump held."""
    try:
        with log.open("rb") as stream:
            stream.seek(start)
            tail = b""
            while block := stream.read(1 << 20):
                text = (tail + block).decode("utf-8", "replace")
                if says_no_space(text):
                    return True
                tail = block[-64:]  # a signature cut in two by the block boundary
    except OSError:
        return False
    return False


def nearly_full(folder: Path) -> bool:
    """Whether the file system holding `folder` has (almost) no space left for this user."""
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL_BYTES
    except OSError:
        return False


def failed_targets(statuses: Statuses, targets: Iterable[str]) -> tuple[str, ...]:
    """The targets none of whose levels is `ok` (failed or unavailable at every level)."""
    return tuple(target for target in targets
                 if not any(_status(statuses, target, level).status == "ok" for level in TARGET_LEVELS))


def nothing_compiled(statuses: Statuses, targets: tuple[str, ...], note: str) -> str:
    """The one line for a capture none of whose `targets` compiled ("" when one did): the targets,
    `note` (", nothing was cached"), then the first reason a compiler gave."""
    failed = failed_targets(statuses, targets)
    if not targets or len(failed) < len(targets):
        return ""
    reasons = [status.error for target in failed for level in TARGET_LEVELS
               if (status := _status(statuses, target, level)).error]
    reason = reasons[0] if reasons else "no level could be compiled"
    return f"every level of {' and '.join(failed)} failed{note}: {reason}"


def _status(statuses: Statuses, target: str, level: str) -> LevelStatus:
    return statuses.get((target, level)) or LevelStatus("pending")
