"""Runs the capture workers and assembles their output into a bundle.

The caller's process never imports a compiler: TensorFlow (layers, graph,
cpu) runs in one worker process and each GPU/TPU target in a Keras-on-JAX
worker of its own, started as soon as the TensorFlow worker has saved the
model's Keras config. Workers write into a staging directory next to the
final bundle, which is swapped into place only when every level has
finished, so an interrupted capture leaves no half bundle and nothing
half-captured is ever cached.

A bundle grows: a capture of a model that already has a bundle (same bytes,
options and tools; the targets may differ) runs only the workers for what it
lacks and keeps the rest, hard-linked, byte for byte (explorer.capture.growth).

Workers start isolated (`python -I`: no current directory, no PYTHONPATH, no
user site on their import path) with their current directory, TMPDIR, Keras
home and compiler log directories inside the staging directory, so a
`sitecustomize.py` beside a downloaded model never runs and nothing lands
outside the bundle.

This module is the entry (`capture`, `cached_bundle`, `cached_capture`, `capture_meshes`,
`staging_reader`, `worker_command`): it decides where a capture goes and what becomes of it. The
rooms it uses: `capture_run` (one capture's worker processes and their events), `worker_requests`
(what each worker is started with), `staging_manifest` (the staging bundle's manifest), `growth`
(keeping what a bundle has), `placement` (the cache and output folders), `outcome` (what a failed
capture says).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TypeGuard

from explorer.capture.artifacts import normalise_log
from explorer.capture.cache import cached_bundle_path
from explorer.capture.capture_run import OWNER_FILE, WORK_DIR, CaptureRun, EventCallback
from explorer.capture.events import CacheHit, CaptureEvent, CaptureFinished, LevelCaptured, LevelFailed
from explorer.capture.growth import (
    GrowPlan,
    folder_locked,
    open_growable,
    plan,
    stage_kept,
    swap_into_place,
    take_settled,
)
from explorer.capture.model_source import ModelSource, resolve
from explorer.capture.outcome import failed_targets, no_space_message, nothing_compiled
from explorer.capture.placement import (
    check_output_dir,
    keep_log,
    prepare_folder,
    remove_abandoned,
    settled,
    shown_path,
    wanted_levels,
)
from explorer.capture.ready_bundle import settled_cached_bundle
from explorer.capture.staging_manifest import write_manifest
from explorer.errors import CaptureCancelled, CaptureFailed, TensorwegError, no_space_left
from explorer.levels import LEVELS
from explorer.model.bundle import MANIFEST, Bundle, is_bundle
from explorer.model.records import CaptureOptions
from explorer.model.sharding import check_mesh_options
from explorer.targets import availability, parse_targets, require_installed

# What a capture holds while its workers run, given its cancel event (explorer.capture.queue).
Gate = Callable[[threading.Event], AbstractContextManager]


def staging_reader(event: CaptureEvent, previous: Bundle | None = None) -> Bundle | None:
    """For a `LevelCaptured` event: a Bundle of the staging directory with that level parsed.

    Call it on the thread that receives events (not the UI thread): levels
    `previous` (the reader of the same staging directory) already parsed are
    kept, only the new level's files are read. None when the staging directory
    is gone (the capture ended meanwhile).
    """
    if not isinstance(event, LevelCaptured) or not event.staging_dir:
        return None
    path = Path(event.staging_dir)
    if previous is None or previous.path != path:
        previous = Bundle(path)
    try:
        return previous.after_level(event.level, event.target)
    except TensorwegError:
        if not (path / MANIFEST).is_file():
            return None
        raise


def cached_bundle(spec: str, options: CaptureOptions) -> Path | None:
    """The cached bundle for this model and options, or None (no compiler is started)."""
    bundle = settled_cached_bundle(spec, options)
    return bundle.path if bundle is not None else None


def cached_capture(spec: str, options: CaptureOptions) -> Path | None:
    """The cached bundle of this model and options, whichever of `options.targets` it holds (a
    capture for cpu alone included), or None when the model was never captured with them."""
    path = cached_bundle_path(resolve(spec), options)
    return path if is_bundle(path) else None


def worker_command(module: str) -> list[str]:
    """How a worker starts: isolated from the current directory and PYTHON* variables."""
    return [sys.executable, "-I", "-m", module]


def capture(
    spec: str,
    options: CaptureOptions,
    out_dir: Path | None = None,
    on_event: EventCallback | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    gate: Gate | None = None,
) -> Path:
    """Capture every level of `spec` for `options.targets`; return the bundle directory.

    A bundle of the same model, options and tools already there (the cache's,
    or `out_dir`'s) is reused when it has every level asked for, and grown by
    what it lacks otherwise; `use_cache=False` captures everything again and
    replaces it. Raises TensorwegError (one line) for bad input (mesh options no
    worker could compile included: explorer.model.sharding.check_mesh_options), CaptureCancelled
    when `cancel` is set (or SIGTERM/SIGHUP arrive while this runs in the main
    thread), and CaptureFailed when the capture produced nothing trustworthy (a
    worker was killed, the staging directory vanished, every compiler level
    failed, the disk filled up) or nothing asked for (every level of every target
    in `options.targets` failed, a cache hit too: explorer.capture.outcome); the
    bundle there before is then left as it was.

    `gate(cancel)`, when given, is entered before any worker starts and held until the
    capture ends (`tensorweg serve`'s queue: at most N captures at once); a cache hit
    never waits for it.
    """
    options = replace(options, targets=parse_targets(",".join(options.targets)))
    # Here, not in each caller: the CLI, the compare screen's `M` and API callers all get the
    # one-line reason before a worker starts, instead of a bundle whose levels failed.
    check_mesh_options(options)
    require_installed(options.targets)
    source = resolve(spec)
    emit = on_event or (lambda event: None)
    cancel = cancel or threading.Event()
    # Absolute: the workers run in a folder of their own, where a relative path means another place.
    final = Path(out_dir).absolute() if out_dir else cached_bundle_path(source, options)
    base = open_growable(final, source, options) if use_cache else None
    if _complete(base, options):
        _emit_cache_hit(base, options, emit)
        return final
    with gate(cancel) if gate is not None else nullcontext():
        if gate is not None and use_cache:  # while it waited, another capture may have added what it lacked
            base = open_growable(final, source, options)
            if _complete(base, options):
                _emit_cache_hit(base, options, emit)
                return final
        return _capture_into(final, source, options, base, out_dir, emit, cancel, use_cache)


def _complete(base: Bundle | None, options: CaptureOptions) -> TypeGuard[Bundle]:
    return base is not None and all(settled(base, level, target) for target, level in wanted_levels(options))


def _unavailable(growth: GrowPlan) -> dict[str, str]:
    """The GPU/TPU/TVM targets to capture whose compiler this machine lacks, with why (their levels
    are recorded as unavailable when the others' workers start)."""
    return {target: missing for target in growth.accelerators if (missing := availability(target))}


def _capture_into(final: Path, source: ModelSource, options: CaptureOptions, base: Bundle | None,
                  out_dir: Path | None, emit: EventCallback, cancel: threading.Event, use_cache: bool) -> Path:
    """Run the workers for what `base` lacks (everything without one) and swap the result into `final`."""
    if out_dir is not None:
        check_output_dir(final)  # a cache entry that is no bundle (damaged) is simply replaced
    prepare_folder(final.parent)
    remove_abandoned(final.parent)
    growth = plan(base, options)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=final.parent))
    except OSError as exc:
        if no_space_left(exc):
            raise CaptureFailed(no_space_message(final.parent)) from None
        raise TensorwegError(f"cannot write into {shown_path(final.parent)}: {exc.strerror or exc}") from None
    with _signals_cancel(cancel):
        try:
            stage_kept(growth, staging)
            run = CaptureRun(source, replace(options, targets=growth.targets), staging, emit, cancel, growth,
                             asked=options.targets, command=worker_command, unavailable=_unavailable(growth))
            identity = run.execute()
            shutil.rmtree(staging / WORK_DIR, ignore_errors=True)
            normalise_log(staging)
            with folder_locked(final.parent):  # growers of one bundle commit one after the other
                statuses, targets = run.statuses, growth.targets
                if use_cache:  # what another capture added meanwhile is kept, not captured over
                    statuses, targets = take_settled(final, staging, source, options, statuses, targets)
                write_manifest(staging, source, replace(options, targets=targets), identity, statuses)
                (staging / OWNER_FILE).unlink()
                swap_into_place(staging, final)
        except CaptureFailed as failure:
            log = keep_log(staging)
            shutil.rmtree(staging, ignore_errors=True)
            suffix = f" (worker log: {shown_path(log)})" if log else ""
            raise CaptureFailed(f"{failure}{suffix}", log) from None
        except OSError as error:  # staging, the manifest, the log, the swap: never a traceback
            shutil.rmtree(staging, ignore_errors=True)
            if no_space_left(error):
                raise CaptureFailed(no_space_message(final.parent)) from None
            raise TensorwegError(f"cannot write into {shown_path(final.parent)}: {error.strerror or error}") from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    emit(CaptureFinished(str(final), failed_targets(run.statuses, options.targets)))
    return final


# --- the cache -------------------------------------------------------------------------


def _emit_cache_hit(bundle: Bundle, options: CaptureOptions, emit: EventCallback) -> None:
    """Reuse `bundle`, naming its failed levels; one that compiled none of the targets asked for (they
    failed in an earlier, partly successful capture) has nothing to show: CaptureFailed, as a capture would."""
    statuses = {(target, level): status for target, level, status in bundle.manifest.levels}
    reason = nothing_compiled(statuses, options.targets, " in the cached capture")
    if reason:
        raise CaptureFailed(reason)
    failed = [(target, level, status) for target, level in wanted_levels(options)
              if (status := bundle.manifest.status(level, target)).status == "failed"]
    note = (f"{len(failed)} level(s) failed in the cached capture; --no-cache captures them again"
            if failed else "")
    emit(CacheHit(str(bundle.path), note))
    for target, level, status in failed:
        emit(LevelFailed(level, target, status.error, status.seconds, str(bundle.path)))


@contextmanager
def _signals_cancel(cancel: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGHUP (the terminal went away) cancel the capture, so its cleanup runs.

    Only the main thread can handle signals; elsewhere (the UI's worker thread)
    the owner cancels through `cancel`.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}

    def handler(signum, frame):
        cancel.reason = signal.Signals(signum).name  # type: ignore[attr-defined]
        cancel.set()

    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


__all__ = ["CaptureCancelled", "CaptureEvent", "CaptureFailed", "LEVELS", "Bundle",
           "cached_bundle", "capture", "staging_reader", "wanted_levels", "worker_command"]


def capture_meshes(spec: str, wanted: tuple[CaptureOptions, ...], cancel=None) -> dict[str, str]:
    """`M`: capture each wanted mesh into the cache, one after the other; return mesh -> the one-line
    reason for each the capture refused or could not make (the compare table shows it in that column).
    CaptureCancelled passes through: nothing more is captured."""

    refused = {}
    for options in wanted:
        try:
            capture(spec, options, cancel=cancel)
        except CaptureCancelled:
            raise
        except TensorwegError as exc:
            refused[options.mesh] = str(exc)
    return refused
