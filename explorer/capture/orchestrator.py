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
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass, replace
from pathlib import Path

from explorer.capture.artifacts import normalise_log
from explorer.capture.cache import cached_bundle_path, tool_versions
from explorer.capture.events import (
    CacheHit,
    CaptureEvent,
    CaptureFinished,
    KeptLevelsStaged,
    LevelCaptured,
    LevelFailed,
    LevelStarted,
)
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
from explorer.capture.outcome import (
    failed_targets,
    log_says_no_space,
    nearly_full,
    no_space_message,
    nothing_compiled,
    says_no_space,
)
from explorer.capture.placement import (
    UNFINISHED,
    check_output_dir,
    keep_log,
    prepare_folder,
    remove_abandoned,
    reusable,
    settled,
    shown_path,
    wanted_levels,
)
from explorer.capture.protocol import (
    EXIT_WITH_PARENT,
    FATAL,
    LEVEL_DONE,
    LEVEL_FAILED,
    LEVEL_STARTED,
    WorkerEvent,
    one_line,
    parse_event,
)
from explorer.errors import CaptureCancelled, CaptureFailed, TensorwegError, no_space_left
from explorer.levels import LEVELS
from explorer.model.bundle import MANIFEST, SCHEMA_VERSION, TARGET_LEVELS, Bundle, is_bundle, target_dirname
from explorer.model.normalise import normalise_paths
from explorer.model.records import CaptureOptions, LevelStatus, Manifest, ModelIdentity
from explorer.model.serial import dump_json, load_json
from explorer.model.sharding import check_mesh_options
from explorer.safe_text import visible
from explorer.targets import availability, get_target, parse_targets, require_installed

# The folder inside staging that workers run in: their TMPDIR, Keras home, compiler logs.
WORK_DIR = ".work"
# Marks a staging directory as this capture's; if it goes, the capture is not trusted.
OWNER_FILE = ".capture-owner"


EventCallback = Callable[[CaptureEvent], None]
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
    path = cached_bundle_path(resolve(spec), options)
    return path if reusable(path, options) is not None else None


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


def _complete(base: Bundle | None, options: CaptureOptions) -> bool:
    return base is not None and all(settled(base, level, target) for target, level in wanted_levels(options))


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
            run = _CaptureRun(source, replace(options, targets=growth.targets), staging, emit, cancel, growth,
                              asked=options.targets)
            identity = run.execute()
            shutil.rmtree(staging / WORK_DIR, ignore_errors=True)
            normalise_log(staging)
            with folder_locked(final.parent):  # growers of one bundle commit one after the other
                statuses, targets = run.statuses, growth.targets
                if use_cache:  # what another capture added meanwhile is kept, not captured over
                    statuses, targets = take_settled(final, staging, source, options, statuses, targets)
                _write_manifest(staging, source, replace(options, targets=targets), identity, statuses)
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


# --- one capture -------------------------------------------------------------------------


@dataclass
class _Worker:
    """One worker process, what it captures, and its reader thread."""

    name: str
    process: subprocess.Popen
    reader: threading.Thread | None = None
    ended: bool = False


class _CaptureRun:
    """One capture: the workers, their events and the per-level statuses."""

    def __init__(self, source: ModelSource, options: CaptureOptions, staging: Path,
                 emit: EventCallback, cancel: threading.Event, growth: GrowPlan, asked: tuple[str, ...]) -> None:
        self.source = source
        self.options = options  # targets: every target of the bundle, kept ones too
        self.asked = asked  # the targets the caller asked for: if none of them compiles, nothing is kept
        self.growth = growth
        self.staging = staging
        self.work = staging / WORK_DIR
        self.emit = emit
        self.cancel = cancel
        self.events: queue.Queue = queue.Queue()
        self.workers: list[_Worker] = []
        self.statuses: dict[tuple[str, str], LevelStatus] = dict(growth.kept)
        self.fatal = ""
        self.crashes: list[str] = []
        self.no_space = False  # a worker (or the manifest) found the disk full: nothing is kept

    def execute(self) -> ModelIdentity | None:
        self.work.mkdir()
        (self.work / "keras").mkdir()
        (self.staging / OWNER_FILE).write_text(str(os.getpid()), encoding="utf-8")
        if self.growth.base is not None:  # the staging bundle reads as the old one until levels arrive
            _write_manifest(self.staging, self.source, self.options, self._identity(), self.statuses)
        self.log = (self.staging / "capture.log").open("ab")
        self.log_start = self.log.tell()  # a grown bundle's log holds earlier captures' lines before
        try:
            if self.growth.tensorflow:
                self._start("TensorFlow worker", "explorer.capture.tf_worker", {
                    "model": self.source.spec,
                    "cwd": os.getcwd(),
                    "unsafe": self.options.unsafe,
                    "batch": self.options.batch,
                    "input_shapes": {name: list(dims) for name, dims in self.options.input_shapes},
                    "staging_dir": str(self.staging),
                    "targets": ["cpu"] if self.growth.cpu else [],
                    # Always: a GPU/TPU target added to this bundle later compiles from it, without TensorFlow.
                    "architecture": True,
                    "passes": self.options.passes,
                    # The what-if variants (explorer.capture.variants): model.json carries the dtype on.
                    "dtype": self.options.dtype,
                    "xla_flags": [list(pair) for pair in self.options.xla_flags],
                })
            if self.growth.base is not None:  # what the cache had shows while the workers run
                self.emit(KeptLevelsStaged(str(self.staging)))
            pending = list(self.growth.accelerators)
            while True:
                self._check_cancel()
                if pending and not self.fatal and self._model_ready():
                    for target in pending:
                        self._start_accelerator(target)
                    pending = []
                if all(worker.ended for worker in self.workers):
                    break
                try:
                    item = self.events.get(timeout=0.1)
                except queue.Empty:
                    item = None
                if isinstance(item, _Worker):
                    self._ended(item)
                elif item is not None:
                    self._handle(item)
                if not (self.staging / OWNER_FILE).is_file():
                    raise CaptureFailed("the staging folder was removed during the capture; nothing was cached")
            self._check_cancel()
        finally:
            self._stop_all()
            self.log.close()
        return self._finish(pending)

    def _finish(self, pending: list[str]) -> ModelIdentity | None:
        """Decide what the finished workers leave: a trusted bundle, or an error."""
        if self.fatal:
            raise TensorwegError(self.fatal)
        if not (self.staging / OWNER_FILE).is_file():
            raise CaptureFailed("the staging folder was removed during the capture; nothing was cached")
        # Before the crashes: XLA aborts (SIGABRT) when its dump finds the disk full, or logs it and goes on.
        if self.no_space or log_says_no_space(self.staging / "capture.log", self.log_start):
            raise CaptureFailed(no_space_message(self.staging.parent))
        if self.crashes:
            unfinished = self._unfinished(f"{UNFINISHED} the {' and the '.join(self.crashes)}")
            levels = ", ".join(f"{level}" + (f" [{target}]" if target else "") for target, level in unfinished)
            raise CaptureFailed(f"capture incomplete: the {' and the '.join(self.crashes)}; "
                                f"not captured: {levels}; nothing was cached")
        for target in pending:
            reason = "GPU and TPU targets need a Keras model; this model's Keras config could not be written"
            for level in TARGET_LEVELS:
                self._record(LEVEL_FAILED, level, target, reason)
        self._unfinished(f"{UNFINISHED} the worker ended before this level")
        compiled = [key for key in wanted_levels(self.options) if key[1] != "layers"]
        if not any(self.statuses[key].status == "ok" for key in compiled):
            reason = next((self.statuses[key].error for key in compiled if self.statuses[key].error),
                          "no level could be compiled")
            raise CaptureFailed(f"every compiler level failed: {reason}")
        reason = nothing_compiled(self.statuses, self.asked, ", nothing was cached")
        if reason:
            raise CaptureFailed(reason)
        return self._identity()

    # --- workers --------------------------------------------------------------

    def _start(self, name: str, module: str, request: dict) -> None:
        process = subprocess.Popen(
            worker_command(module), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            cwd=self.work, env=self._environment(), start_new_session=True,
        )
        # stdin stays open: when this process ends, even killed, the worker sees it close and ends too.
        try:
            process.stdin.write((json.dumps({**request, EXIT_WITH_PARENT: True}) + "\n").encode("utf-8"))
            process.stdin.flush()
        except BrokenPipeError:
            pass  # it ended at once; its reader reports how
        worker = _Worker(name, process)
        worker.reader = threading.Thread(target=self._read_events, args=(worker,), name=f"capture-{name}",
                                         daemon=True)
        self.workers.append(worker)
        worker.reader.start()

    def _environment(self) -> dict[str, str]:
        """The workers' environment: temporary files, Keras's home and compiler logs go into
        the staging directory (removed with it), never into the user's home or /tmp."""
        work = str(self.work)
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
        env.update({
            "TMPDIR": work, "TMP": work, "TEMP": work,  # tempfile, autograph, jax's dump folders
            "KERAS_HOME": str(self.work / "keras"),  # keras.json is written on first import
            "TPU_LOG_DIR": work,  # libtpu's tpu_logs
            "CUDA_CACHE_PATH": str(self.work / "cuda-cache"),
        })
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        return env

    def _start_accelerator(self, target: str) -> None:
        """A worker compiling from model.json: Keras-on-JAX for GPU/TPU, the TVM worker for `tvm:cpu`."""
        missing = availability(target)
        if missing:
            for level in TARGET_LEVELS:
                self._record("unavailable", level, target, missing)
            return
        out_dir = self.staging / "targets" / target_dirname(target)
        out_dir.mkdir(parents=True, exist_ok=True)
        signature = load_json(list[tuple[str, tuple[int, ...], str]], self.staging / "signature.json")
        compiler = get_target(target).compiler
        module = "explorer.capture.tvm_worker" if compiler == "tvm" else "explorer.capture.jax_worker"
        self._start(f"{target} worker", module, {
            "model_file": str(self.staging / "model.json"),
            "unsafe": self.options.unsafe,
            "signature": [[name, list(shape), dtype] for name, shape, dtype in signature],
            "target": target,
            "out_dir": str(out_dir),
            "passes": self.options.passes,
            # What is compiled (explorer.capture.jax_step_capture): inference or a training step, one chip or a mesh.
            "mode": self.options.mode, "optimizer": self.options.optimizer,
            "mesh": self.options.mesh, "shard": self.options.shard, "remat": self.options.remat,
            "layout_map": [[pattern, list(axes)] for pattern, axes in self.options.layout_map],
            "layout_map_file": self.options.layout_map_file,
            "dtype": self.options.dtype, "remat_layers": self.options.remat_layers,
            "xla_flags": [list(pair) for pair in self.options.xla_flags],
            "donate": self.options.donate,
        })

    def _read_events(self, worker: _Worker) -> None:
        """Reader thread: every line of the worker's stdout, then the worker itself when it has ended."""
        for raw in worker.process.stdout:
            event = parse_event(raw)
            if event is not None:
                self.events.put(event)
            elif raw.strip():  # stray output belongs in the log, not the user's terminal
                with suppress(OSError):  # a full disk: the reader must still report the worker's end
                    self.log.write(raw)
        worker.process.wait()
        self.events.put(worker)  # after its last event: the loop sees every line before the end

    def _ended(self, worker: _Worker) -> None:
        worker.ended = True
        code = worker.process.returncode
        if code == 0 or self.fatal:
            return
        if says_no_space(self._log_tail()) or nearly_full(self.staging):
            self.no_space = True  # not a crash: the worker could not write (XLA aborts on its dump)
        elif code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            hint = " (out of memory?)" if -code == signal.SIGKILL else ""
            self.crashes.append(f"{worker.name} was killed by {name}{hint}")
        else:
            last = self._last_log_line()
            self.crashes.append(f"{worker.name} stopped with exit status {code}" + (f" ({last})" if last else ""))
        self._stop_all()  # the other workers' levels would not make a whole bundle either

    def _last_log_line(self) -> str:
        """The last line the workers wrote to the log: a Python traceback ends with its reason."""
        lines = [line.strip() for line in self._log_tail().splitlines() if line.strip()]
        return self._clean(one_line(lines[-1])) if lines else ""

    def _log_tail(self) -> str:
        """The last few KiB of the workers' stderr (the capture log); "" when it cannot be read."""
        try:
            self.log.flush()
            with (self.staging / "capture.log").open("rb") as log:
                log.seek(max(0, log.seek(0, os.SEEK_END) - 4096))
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _model_ready(self) -> bool:
        return (self.staging / "model.json").is_file() and (self.staging / "signature.json").is_file()

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            reason = getattr(self.cancel, "reason", "")
            raise CaptureCancelled(f"capture cancelled{f' ({reason})' if reason else ''}; nothing was written")

    def _stop_all(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(worker.process.pid, signal.SIGKILL)  # the worker and anything it started
            with suppress(OSError):  # the request never reached a worker that ended at once
                worker.process.stdin.close()
        for worker in self.workers:
            worker.process.wait()
            if worker.reader is not threading.current_thread():
                worker.reader.join()  # its pipe is closed now: every line it read is queued

    # --- events and statuses ---------------------------------------------------

    def _handle(self, event: WorkerEvent) -> None:
        if event.kind == FATAL:
            self.fatal = self._clean(event.error) or "capture failed"
            self._stop_all()  # bad input: what the other workers would add is thrown away
            return
        if event.kind == LEVEL_STARTED:
            self.emit(LevelStarted(event.level, event.target, str(self.staging)))
            return
        status = "ok" if event.kind == LEVEL_DONE else "failed"
        if status == "failed" and says_no_space(event.error):
            self.no_space = True  # the level would be settled as failed and cached: the disk is to blame
        if status == "failed" and "not available" in event.error:
            status = "unavailable"
        self._record(status, event.level, event.target, self._clean(event.error), event.seconds)

    def _record(self, status: str, level: str, target: str, error: str = "", seconds: float = 0.0) -> None:
        """Note a level's outcome, rewrite the staging manifest (the UI reads it), then tell the caller."""
        self.statuses[(target, level)] = LevelStatus(status, error, round(seconds, 3))
        if not (self.staging / OWNER_FILE).is_file():
            return  # the staging folder was removed: nothing more is written or announced
        try:
            # The staging directory stays a readable bundle while it grows, so
            # the UI can show each level as soon as it is captured.
            _write_manifest(self.staging, self.source, self.options, self._identity(), self.statuses)
        except OSError as error:
            self.no_space = self.no_space or no_space_left(error)
            return
        if status == "ok":
            self.emit(LevelCaptured(level, target, seconds, str(self.staging)))
        else:
            self.emit(LevelFailed(level, target, error, seconds, str(self.staging)))

    def _unfinished(self, reason: str) -> list[tuple[str, str]]:
        """Mark every wanted level without an outcome as failed with `reason`; return them."""
        missing = [key for key in wanted_levels(self.options) if key not in self.statuses]
        for target, level in missing:
            self._record("failed", level, target, reason)
        return missing

    def _clean(self, error: str) -> str:
        """A worker's message without this machine's paths (the staging folder, installed packages),
        its control characters shown (`explorer.safe_text`): a model's layer names reach it raw."""
        return visible(normalise_paths(error.replace(str(self.staging), "<bundle>")))

    def _identity(self) -> ModelIdentity | None:
        path = self.staging / "identity.json"
        if not path.is_file():
            return None
        try:
            return load_json(ModelIdentity, path)
        except TensorwegError:
            return None


def _write_manifest(staging: Path, source: ModelSource, options: CaptureOptions,
                    identity: ModelIdentity | None, statuses: dict[tuple[str, str], LevelStatus]) -> None:
    name = identity.name if identity else source.display
    manifest = Manifest(
        schema_version=SCHEMA_VERSION,
        model=ModelIdentity(spec=source.display, kind=source.kind, name=name, sha256=source.content_hash),
        options=options,
        tools=tool_versions(),
        levels=tuple((t, lvl, st) for (t, lvl), st in sorted(statuses.items())),
        inputs=_inputs(staging),
    )
    dump_json(manifest, staging / MANIFEST)


def _inputs(staging: Path) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    path = staging / "signature.json"
    if not path.is_file():
        return ()
    try:
        return tuple(load_json(list[tuple[str, tuple[int, ...], str]], path))
    except TensorwegError:
        return ()


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
