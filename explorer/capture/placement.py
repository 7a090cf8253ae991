"""Where a capture's bundle goes: reusing a cached one, the output folder, orphan cleanup.

A cached bundle is reused when every level asked for is settled (finished, or
failed with the compiler's own message); a damaged manifest or an unfinished
level is captured again. How a bundle grows and is swapped into place in one
step: explorer.capture.growth.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from explorer.capture.cache import cache_root
from explorer.errors import TensorwegError
from explorer.levels import TARGET_INDEPENDENT_LEVELS, level_named
from explorer.model.bundle import TARGET_LEVELS, Bundle, is_bundle
from explorer.model.records import CaptureOptions

# A failed level with this error did not finish (older bundles): never a cache hit.
UNFINISHED = "not captured:"
KEPT_LOGS = 10  # logs of failed captures kept in the cache's logs/ folder


def wanted_levels(options: CaptureOptions) -> list[tuple[str, str]]:
    """(target, level) of every level a capture with `options` records; target "" for layers and graph."""
    wanted = [("", level) for level in TARGET_INDEPENDENT_LEVELS]
    return wanted + [(target, level) for target in options.targets for level in TARGET_LEVELS]


def reusable(path: Path, options: CaptureOptions) -> Bundle | None:
    """The bundle at `path` if every level `options` asks for is settled there; None means capture.

    A damaged manifest or a level that never finished is not reused: the next
    capture replaces or grows the bundle, so the cache heals itself. Targets the
    bundle has beyond `options.targets` do not matter.
    """
    if not is_bundle(path):
        return None
    try:
        bundle = Bundle.open(path)
    except TensorwegError:
        return None
    return bundle if all(settled(bundle, level, target) for target, level in wanted_levels(options)) else None


def settled(bundle: Bundle, level: str, target: str) -> bool:
    """Whether `level` of `target` has an outcome that capturing again would only repeat.

    "ok" with its file there, "unavailable" (no libtpu), or "failed" with the
    compiler's own message are kept; "pending", a level whose worker ended
    before it ("not captured: ..."), or an "ok" whose file is gone are captured again.
    """
    status = bundle.manifest.status(level, target)
    if status.status == "ok":
        return level_present(bundle, level, target)
    if status.status == "failed":
        return not status.error.startswith(UNFINISHED)
    return status.status == "unavailable"


def level_present(bundle: Bundle, level: str, target: str) -> bool:
    this = level_named(level)
    return ((bundle.target_dir(target) if this.per_target else bundle.path) / this.file).is_file()


def check_output_dir(final: Path) -> None:
    if final.exists() and not is_bundle(final) and (not final.is_dir() or any(final.iterdir())):
        raise TensorwegError(f"{final.name}: output exists and is not a tensorweg bundle; refusing to overwrite")


def prepare_folder(folder: Path) -> None:
    """The folder the bundle goes into exists and is writable; a clear error otherwise."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TensorwegError(f"cannot create the folder {shown_path(folder)}: {exc.strerror or exc}") from None
    if not folder.is_dir():
        raise TensorwegError(f"{shown_path(folder)} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise TensorwegError(f"cannot write into {shown_path(folder)}: permission denied")


def remove_abandoned(folder: Path) -> None:
    """A capture killed outright (the terminal closed) cannot clean up after
    itself; its staging and set-aside directories name its process, so the next capture can."""
    for leftover in [*folder.glob(".staging-*-*"), *folder.glob(".old-*-*")]:
        pid_text = leftover.name.split("-")[1]
        if pid_text.isdigit() and not _process_alive(int(pid_text)):
            shutil.rmtree(leftover, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def keep_log(staging: Path) -> Path | None:
    """The workers' log of a failed capture, kept in the cache's `logs/` (the newest few)."""
    # Here, not at the top: `artifacts` loads the HLO parser, and the explorer's start reads a cached
    # bundle through this module (explorer.capture.ready_bundle) before its first frame.
    from explorer.capture.artifacts import normalise_log  # noqa: PLC0415 (start-up: only for a failed capture)

    log = staging / "capture.log"
    if not log.is_file():
        return None
    try:
        normalise_log(staging)
        logs = cache_root() / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        kept = logs / f"capture-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        shutil.copyfile(log, kept)
        for old in sorted(logs.glob("capture-*.log"))[:-KEPT_LOGS]:
            old.unlink(missing_ok=True)
        return kept
    except OSError:
        return None


def shown_path(path: Path) -> str:
    """A path as messages show it: under the home folder as `~/...` (no user's absolute path in output)."""
    text = str(path)
    home = os.path.expanduser("~")
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home):]
    return text
