"""Where a capture's bundle goes: reusing a cached one, the output folder, the atomic move.

A cached bundle is reused only when every level finished; anything else (a
damaged manifest, an unfinished level) is captured again and replaced. The
finished staging directory is renamed into place in one step, and a bundle
another capture put there first is taken as it is (two captures of the same
model race harmlessly).
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path

from explorer.bundle import Bundle, TARGET_LEVELS, is_bundle
from explorer.cache import cache_root
from explorer.capture.artifacts import normalise_log
from explorer.capture.protocol import TARGET_INDEPENDENT_LEVELS
from explorer.errors import TensorwegError
from explorer.records import CaptureOptions

# A failed level with this error did not finish (older bundles): never a cache hit.
UNFINISHED = "not captured:"
KEPT_LOGS = 10  # logs of failed captures kept in the cache's logs/ folder


def wanted_levels(options: CaptureOptions) -> list[tuple[str, str]]:
    """(target, level) of every level a capture with `options` records; target "" for layers and graph."""
    wanted = [("", level) for level in TARGET_INDEPENDENT_LEVELS]
    return wanted + [(target, level) for target in options.targets for level in TARGET_LEVELS]


def reusable(path: Path, options: CaptureOptions) -> Bundle | None:
    """The bundle at `path` if every level finished there; None means capture (again).

    A damaged manifest or a level that never finished is not reused: the next
    capture replaces the bundle, so the cache heals itself.
    """
    if not is_bundle(path):
        return None
    try:
        bundle = Bundle.open(path)
    except TensorwegError:
        return None
    for target, level in wanted_levels(options):
        status = bundle.manifest.status(level, target)
        if status.status not in ("ok", "failed", "unavailable") or status.error.startswith(UNFINISHED):
            return None
        if status.status == "ok" and not _level_present(bundle, level, target):
            return None
    return bundle


def _level_present(bundle: Bundle, level: str, target: str) -> bool:
    if level == "layers":
        return (bundle.path / "layers.json").is_file()
    if level == "graph":
        return (bundle.path / "graph.json").is_file()
    name = {"hlo": "hlo.txt", "optimized-hlo": "optimized_hlo.txt", "kernels": "kernels.json",
            "memory": "memory.json"}[level]
    return (bundle.target_dir(target) / name).is_file()


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


def move_into_place(staging: Path, final: Path, options: CaptureOptions, replace_existing: bool) -> Path:
    """Rename staging to final in one step; a bundle that another capture put there first is a cache hit.

    A bundle being replaced (`--no-cache`, `-o` onto an old bundle, a damaged
    cache entry) is first renamed aside, so readers see the old or the new one.
    """
    for attempt in range(5):
        try:
            staging.rename(final)
            return final
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise TensorwegError(f"cannot move the bundle into {shown_path(final)}: {exc.strerror or exc}") from None
        if not replace_existing and reusable(final, options) is not None:
            shutil.rmtree(staging, ignore_errors=True)  # another capture of the same model won the race
            return final
        aside = final.with_name(f".old-{os.getpid()}-{attempt}-{final.name}")
        try:
            final.rename(aside)
        except FileNotFoundError:
            continue  # someone else moved it meanwhile: try again
        except OSError as exc:
            raise TensorwegError(f"cannot replace {shown_path(final)}: {exc.strerror or exc}") from None
        try:
            staging.rename(final)
            return final
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise TensorwegError(f"cannot move the bundle into {shown_path(final)}: {exc.strerror or exc}") from None
        finally:
            shutil.rmtree(aside, ignore_errors=True)
    raise TensorwegError(f"{shown_path(final)} keeps changing while this capture finishes; capture again")


def keep_log(staging: Path) -> Path | None:
    """The workers' log of a failed capture, kept in the cache's `logs/` (the newest few)."""
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
