"""Bundles that grow: what a bundle lacks, a staging copy of what it has, and one atomic swap.

A bundle is captured per worker: the TensorFlow worker does layers, graph and
`cpu`, one Keras-on-JAX worker does each GPU/TPU target. Growing a bundle
plans which workers must run (`plan`), stages the new version beside the old
one with hard links to every file it keeps (`stage_kept`: kept levels stay
byte-identical and cost no copy), lets only those workers write into it, and
then, holding a lock on the folder, takes in whatever another capture added
meanwhile (`take_settled`) and exchanges the two directories in one rename
(`swap_into_place`). A reader of the old bundle sees the old or the new one,
never a mix; two racing growers end with one bundle that has both additions.

Every file a worker writes goes under a temporary name and is renamed
(explorer.model.serial.write_text_atomic), so a hard-linked file is never written
through; the only file appended to, `capture.log`, is copied.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from explorer.capture.cache import tool_versions
from explorer.capture.model_source import ModelSource
from explorer.capture.placement import settled, shown_path
from explorer.capture.protocol import TARGET_INDEPENDENT_LEVELS
from explorer.errors import TensorwegError
from explorer.model.bundle import MANIFEST, TARGET_LEVELS, Bundle, is_bundle, target_dirname
from explorer.model.records import CaptureOptions, LevelStatus

# What the TensorFlow worker writes at the bundle's top (its cpu target lives in targets/cpu).
TENSORFLOW_FILES = ("identity.json", "signature.json", "model.json", "layers.json", "graph.json", "scopes.json")
# What the GPU/TPU workers compile from, written by the TensorFlow worker. Where it runs again,
# these are the only top-level files carried over (it replaces them by renaming), so GPU/TPU
# workers start at once; everything else at the top is its to write afresh.
ARCHITECTURE_FILES = ("model.json", "signature.json")
# Files of a bundle that a new version never shares with the old: rewritten or appended to.
NOT_SHARED = (MANIFEST, "capture.log")

Statuses = dict[tuple[str, str], LevelStatus]


@dataclass(frozen=True)
class GrowPlan:
    """What one capture runs, and what it keeps of the bundle it grows.

    base: the bundle grown (None: everything is captured).
    targets: the grown bundle's targets: the base's first, then the new ones.
    tensorflow: the TensorFlow worker runs (layers and graph; `cpu` when `cpu` is set).
    accelerators: the GPU/TPU targets captured.
    kept: statuses carried over from the base for the levels not captured again.
    """

    base: Bundle | None
    targets: tuple[str, ...]
    tensorflow: bool
    cpu: bool
    accelerators: tuple[str, ...]
    kept: Statuses = field(default_factory=dict)


def same_capture(bundle: Bundle, source: ModelSource, options: CaptureOptions) -> bool:
    """Whether `bundle` holds this model (bytes), compiled with these options and tools: then it may grow."""
    manifest = bundle.manifest
    return (manifest.model.sha256 == source.content_hash and manifest.model.kind == source.kind
            and manifest.options.without_targets() == options.without_targets()
            and tuple(map(tuple, manifest.tools)) == tool_versions())


def open_growable(path: Path, source: ModelSource, options: CaptureOptions) -> Bundle | None:
    """The bundle at `path` when it can grow into what `options` asks for; None: capture from nothing."""
    if not is_bundle(path):
        return None
    try:
        bundle = Bundle.open(path)
        return bundle if same_capture(bundle, source, options) else None
    except TensorwegError:
        return None  # damaged: replaced by a whole capture


def plan(base: Bundle | None, options: CaptureOptions) -> GrowPlan:
    """Which workers run so that every level `options` asks for is settled, keeping what `base` has."""
    # A training step is compiled for every target by the JAX worker (cpu too: XLA:CPU through JAX);
    # the TensorFlow worker still writes layers, graph and the architecture the JAX workers read.
    by_tensorflow = ("cpu",) if options.mode == "inference" else ()
    if base is None:
        return GrowPlan(None, options.targets, True, "cpu" in options.targets and bool(by_tensorflow),
                        tuple(t for t in options.targets if t not in by_tensorflow))
    targets = base.targets + tuple(t for t in options.targets if t not in base.targets)
    lacking = tuple(t for t in options.targets
                    if not all(settled(base, level, t) for level in TARGET_LEVELS))
    accelerators = tuple(t for t in lacking if t not in by_tensorflow)
    cpu = "cpu" in lacking and bool(by_tensorflow)
    no_architecture = bool(accelerators) and not all((base.path / name).is_file() for name in ARCHITECTURE_FILES)
    tensorflow = (cpu or no_architecture
                  or not all(settled(base, level, "") for level in TARGET_INDEPENDENT_LEVELS))
    captured = set(accelerators) | ({"cpu"} if cpu else set()) | ({""} if tensorflow else set())
    kept = {(t, level): status for t, level, status in base.manifest.levels if t not in captured}
    return GrowPlan(base, targets, tensorflow, cpu, accelerators, kept)


def stage_kept(growth: GrowPlan, staging: Path) -> None:
    """Hard-link into `staging` every file of the base that this capture keeps (copy where links fail)."""
    base = growth.base
    if base is None:
        return
    recaptured_dirs = {target_dirname(t) for t in growth.accelerators + (("cpu",) if growth.cpu else ())}
    for entry in base.path.iterdir():
        if entry.name in NOT_SHARED or entry.name.startswith("."):
            continue
        if entry.name == "targets" and entry.is_dir() and not entry.is_symlink():
            (staging / "targets").mkdir(exist_ok=True)
            for target_dir in entry.iterdir():
                if target_dir.name not in recaptured_dirs:
                    _link_tree(target_dir, staging / "targets" / target_dir.name)
        elif not growth.tensorflow or entry.name in ARCHITECTURE_FILES:
            _link_tree(entry, staging / entry.name)
    log = base.path / "capture.log"
    if log.is_file():  # the workers append to it: the old bundle's copy must not change
        shutil.copyfile(log, staging / "capture.log")


def _link_tree(source: Path, destination: Path) -> None:
    if source.is_symlink():
        return  # a bundle holds none; one put there is not followed out of the bundle
    if source.is_dir():
        destination.mkdir(exist_ok=True)
        for child in source.iterdir():
            _link_tree(child, destination / child.name)
    elif source.is_file():
        try:
            os.link(source, destination)
        except OSError:  # a file system without hard links
            shutil.copy2(source, destination)


@contextmanager
def folder_locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (flock on the directory itself: no lock file is left behind).

    Held only while a finished capture is merged and swapped in (milliseconds),
    so captures of one bundle commit one after the other.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise TensorwegError(f"cannot lock {shown_path(folder)}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def take_settled(final: Path, staging: Path, source: ModelSource, options: CaptureOptions,
                 statuses: Statuses, targets: tuple[str, ...]) -> tuple[Statuses, tuple[str, ...]]:
    """Before the swap (lock held): what the bundle now at `final` has settled wins over this capture's.

    Another capture may have grown the bundle since this one started. Its
    settled levels are linked into `staging` in place of ours (a level already
    in the bundle is never replaced), and its targets are added, so the swap
    loses nothing. Returns the merged statuses and targets.
    """
    current = open_growable(final, source, options)
    if current is None:
        return statuses, targets
    merged = dict(statuses)
    groups: list[tuple[str, tuple[str, ...]]] = [("", TARGET_INDEPENDENT_LEVELS)]
    groups += [(t, TARGET_LEVELS) for t in current.targets]
    for target, levels in groups:
        if not all(settled(current, level, target) for level in levels):
            continue
        if target:
            ours = staging / "targets" / target_dirname(target)
            shutil.rmtree(ours, ignore_errors=True)
            _link_tree(current.target_dir(target), ours)
        else:
            for name in TENSORFLOW_FILES:
                if (current.path / name).is_file():
                    (staging / name).unlink(missing_ok=True)
                    _link_tree(current.path / name, staging / name)
        for level in levels:
            merged[(target, level)] = current.manifest.status(level, target)
    return merged, targets + tuple(t for t in current.targets if t not in targets)


def swap_into_place(staging: Path, final: Path) -> None:
    """Put `staging` at `final` in one step; the old bundle (if any) is removed afterwards.

    On Linux the two directories are exchanged atomically (renameat2 with
    RENAME_EXCHANGE): a reader opening `final` finds the old or the new bundle,
    never nothing. Elsewhere the old one is renamed aside first.
    """
    try:
        staging.rename(final)
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise TensorwegError(f"cannot move the bundle into {shown_path(final)}: {exc.strerror or exc}") from None
    if not _exchange(staging, final):
        aside = final.with_name(f".old-{os.getpid()}-0-{final.name}")
        try:
            final.rename(aside)
            staging.rename(final)
        except OSError as exc:
            raise TensorwegError(f"cannot replace {shown_path(final)}: {exc.strerror or exc}") from None
        staging = aside
    shutil.rmtree(staging, ignore_errors=True)  # the old version, now under the staging name


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directory entries atomically; False where the system cannot (then the caller falls back)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise TensorwegError(f"cannot replace {shown_path(second)}: {os.strerror(code)}")
