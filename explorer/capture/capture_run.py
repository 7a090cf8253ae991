"""One capture's worker processes: started, read, stopped, and what their events make of each level.

A `CaptureRun` starts the TensorFlow worker, then each GPU/TPU/TVM target's worker as soon as the
model's Keras config is in the staging directory; a reader thread per worker queues its events
(`explorer.capture.protocol`) and, after the last one, the worker itself, so the run's loop sees every
line before the end. Each level's outcome rewrites the staging manifest, then goes to the caller as an
event. A crash, a full disk, a vanished staging folder or a worker's fatal error ends the run with one
line (`CaptureFailed`, `TensorwegError`); a cancel kills every worker's process group.
`explorer.capture.orchestrator` decides where the run's staging goes and what becomes of it.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from explorer.capture.events import (
    CaptureEvent,
    KeptLevelsStaged,
    LevelCaptured,
    LevelFailed,
    LevelStarted,
)
from explorer.capture.growth import GrowPlan
from explorer.capture.model_source import ModelSource
from explorer.capture.outcome import log_says_no_space, nearly_full, no_space_message, nothing_compiled, says_no_space
from explorer.capture.placement import UNFINISHED, wanted_levels
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
from explorer.capture.staging_manifest import SIGNATURE_FILE, staged_identity, write_manifest
from explorer.capture.worker_requests import (
    LAYERS_PREVIEW_WORKER,
    TENSORFLOW_WORKER,
    accelerator_request,
    previews_layers,
    tensorflow_request,
    worker_environment,
)
from explorer.errors import CaptureCancelled, CaptureFailed, TensorwegError, no_space_left
from explorer.levels import level_named
from explorer.model.bundle import TARGET_LEVELS
from explorer.model.normalise import normalise_paths
from explorer.model.records import CaptureOptions, LevelStatus, ModelIdentity
from explorer.safe_text import visible

# The folder inside staging that workers run in: their TMPDIR, Keras home, compiler logs.
WORK_DIR = ".work"
# Marks a staging directory as this capture's; if it goes, the capture is not trusted.
OWNER_FILE = ".capture-owner"

EventCallback = Callable[[CaptureEvent], None]


@dataclass
class Worker:
    """One worker process, what it captures, and its reader thread."""

    name: str
    process: subprocess.Popen
    reader: threading.Thread | None = None
    ended: bool = False
    # The layers preview: only its first level_done counts; how it ends (a crash too) changes nothing.
    optional: bool = False


@dataclass(frozen=True)
class PreviewEvent:
    """An event of the optional layers preview worker (`explorer.capture.layers_preview_worker`)."""

    event: WorkerEvent


class CaptureRun:
    """One capture: the workers, their events and the per-level statuses.

    `command(module)` is how a worker starts (`orchestrator.worker_command`, which tests point at
    stand-in workers); `unavailable` holds the targets that cannot compile on this machine, with why.
    """

    def __init__(self, source: ModelSource, options: CaptureOptions, staging: Path, emit: EventCallback,
                 cancel: threading.Event, growth: GrowPlan, asked: tuple[str, ...],
                 command: Callable[[str], list[str]], unavailable: dict[str, str]) -> None:
        self.source = source
        self.options = options  # targets: every target of the bundle, kept ones too
        self.asked = asked  # the targets the caller asked for: if none of them compiles, nothing is kept
        self.growth = growth
        self.staging = staging
        self.work = staging / WORK_DIR
        self.emit = emit
        self.cancel = cancel
        self.command = command
        self.unavailable = unavailable
        self.events: queue.Queue = queue.Queue()
        self.workers: list[Worker] = []
        self.statuses: dict[tuple[str, str], LevelStatus] = dict(growth.kept)
        self.fatal = ""
        self.crashes: list[str] = []
        self.no_space = False  # a worker (or the manifest) found the disk full: nothing is kept
        self.previewed: set[tuple[str, str]] = set()  # levels the preview reported before their worker
        self.announced: set[tuple[str, str]] = set()  # levels whose start was passed on: once, by either worker

    def execute(self) -> ModelIdentity | None:
        self.work.mkdir()
        (self.work / "keras").mkdir()
        (self.staging / OWNER_FILE).write_text(str(os.getpid()), encoding="utf-8")
        if self.growth.base is not None:  # the staging bundle reads as the old one until levels arrive
            write_manifest(self.staging, self.source, self.options, staged_identity(self.staging), self.statuses)
        self.log = (self.staging / "capture.log").open("ab")
        self.log_start = self.log.tell()  # a grown bundle's log holds earlier captures' lines before
        try:
            if self.growth.tensorflow:
                self._start_tensorflow()
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
                self._take(item)
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
        compiled = [key for key in wanted_levels(self.options) if level_named(key[1]).compiled]
        if not any(self.statuses[key].status == "ok" for key in compiled):
            reason = next((self.statuses[key].error for key in compiled if self.statuses[key].error),
                          "no level could be compiled")
            raise CaptureFailed(f"every compiler level failed: {reason}")
        reason = nothing_compiled(self.statuses, self.asked, ", nothing was cached")
        if reason:
            raise CaptureFailed(reason)
        return staged_identity(self.staging)

    # --- workers --------------------------------------------------------------

    def _start(self, name: str, module: str, request: dict, optional: bool = False) -> None:
        process = subprocess.Popen(
            self.command(module), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            cwd=self.work, env=worker_environment(self.work), start_new_session=True,
        )
        # stdin stays open: when this process ends, even killed, the worker sees it close and ends too.
        assert process.stdin is not None  # stdin=PIPE above
        try:
            process.stdin.write((json.dumps({**request, EXIT_WITH_PARENT: True}) + "\n").encode("utf-8"))
            process.stdin.flush()
        except BrokenPipeError:
            pass  # it ended at once; its reader reports how
        worker = Worker(name, process, optional=optional)
        worker.reader = threading.Thread(target=self._read_events, args=(worker,), name=f"capture-{name}",
                                         daemon=True)
        self.workers.append(worker)
        worker.reader.start()

    def _start_tensorflow(self) -> None:
        """The TensorFlow worker, and beside it the layers preview where it applies: TensorFlow takes about
        twice as long as Keras-on-JAX to import, and a sample's rows come from the preview first."""
        request = tensorflow_request(self.source, self.options, self.staging, self.growth.cpu)
        self._start("TensorFlow worker", TENSORFLOW_WORKER, request)
        if ("", "layers") not in self.statuses and previews_layers(self.source, self.options):
            self._start("layers preview worker", LAYERS_PREVIEW_WORKER, request, optional=True)

    def _start_accelerator(self, target: str) -> None:
        """A worker started once model.json and signature.json are there: Keras-on-JAX for GPU/TPU, the TVM
        worker, or the ahead-of-time worker for an ARM target."""
        missing = self.unavailable.get(target)
        if missing:
            for level in TARGET_LEVELS:
                self._record("unavailable", level, target, missing)
            return
        module, request = accelerator_request(self.source, self.options, self.staging, target)
        self._start(f"{target} worker", module, request)

    def _read_events(self, worker: Worker) -> None:
        """Reader thread: every line of the worker's stdout, then the worker itself when it has ended."""
        assert worker.process.stdout is not None  # _start opens it with stdout=PIPE
        for raw in worker.process.stdout:
            event = parse_event(raw)
            if event is not None:
                self.events.put(PreviewEvent(event) if worker.optional else event)
            elif raw.strip():  # stray output belongs in the log, not the user's terminal
                with suppress(OSError):  # a full disk: the reader must still report the worker's end
                    self.log.write(raw)
        worker.process.wait()
        self.events.put(worker)  # after its last event: the loop sees every line before the end

    def _ended(self, worker: Worker) -> None:
        worker.ended = True
        code = worker.process.returncode
        if code == 0 or self.fatal or worker.optional:
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
        return (self.staging / "model.json").is_file() and (self.staging / SIGNATURE_FILE).is_file()

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
                assert worker.process.stdin is not None  # _start opens it with stdin=PIPE
                worker.process.stdin.close()
        for worker in self.workers:
            worker.process.wait()
            if worker.reader is not None and worker.reader is not threading.current_thread():
                worker.reader.join()  # its pipe is closed now: every line it read is queued

    # --- events and statuses ---------------------------------------------------

    def _take(self, item: Worker | PreviewEvent | WorkerEvent | None) -> None:
        """One item of the readers' queue: a worker that ended, or an event (None: nothing came)."""
        if isinstance(item, Worker):
            self._ended(item)
        elif isinstance(item, PreviewEvent):
            self._previewed(item.event)
        elif item is not None:
            self._handle(item)

    def _previewed(self, event: WorkerEvent) -> None:
        """The preview's layers: shown if their own worker has not reported them yet (its word is final)."""
        key = (event.target, event.level)
        if key in self.statuses:
            return
        if event.kind == LEVEL_STARTED:
            self._announce(key)
        elif event.kind == LEVEL_DONE:
            self.previewed.add(key)
            self._record("ok", event.level, event.target, seconds=event.seconds)

    def _announce(self, key: tuple[str, str]) -> None:
        """A level's start, passed on once: the preview and the TensorFlow worker both start the layers."""
        if key not in self.announced:
            self.announced.add(key)
            self.emit(LevelStarted(key[1], key[0], str(self.staging)))

    def _stop_preview(self) -> None:
        """The preview has nothing left to add once the level's own worker reported it."""
        for worker in self.workers:
            if worker.optional and worker.process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(worker.process.pid, signal.SIGKILL)

    def _handle(self, event: WorkerEvent) -> None:
        if event.kind == FATAL:
            self.fatal = self._clean(event.error) or "capture failed"
            self._stop_all()  # bad input: what the other workers would add is thrown away
            return
        key = (event.target, event.level)
        if event.kind == LEVEL_STARTED:
            self._announce(key)
            return
        if key in self.previewed:
            self._stop_preview()
            if event.kind != LEVEL_DONE:  # the bundle holds the level's own worker's word, not the preview's
                with suppress(OSError):
                    (self.staging / level_named(event.level).file).unlink(missing_ok=True)
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
            write_manifest(self.staging, self.source, self.options, staged_identity(self.staging), self.statuses)
        except OSError as write_error:
            self.no_space = self.no_space or no_space_left(write_error)
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
