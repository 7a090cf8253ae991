"""Runs the capture workers and assembles their output into a bundle.

The caller's process never imports a compiler: TensorFlow (layers, graph,
cpu) runs in one worker process and each GPU/TPU target in a Keras-on-JAX
worker of its own, started as soon as the TensorFlow worker has saved the
model as a `.keras` file. Workers write into a staging directory next to the
final bundle, which is renamed into place only when everything is written,
so an interrupted capture leaves no half bundle.
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
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from explorer.bundle import LEVELS, MANIFEST, SCHEMA_VERSION, TARGET_LEVELS, Bundle, is_bundle, target_dirname
from explorer.cache import cached_bundle_path, tool_versions
from explorer.capture.artifacts import normalise_log
from explorer.errors import TensorwegError
from explorer.model_source import ModelSource, resolve
from explorer.records import CaptureOptions, LevelStatus, Manifest, ModelIdentity
from explorer.serial import dump_json, from_jsonable

TARGET_INDEPENDENT_LEVELS = ("layers", "graph")


class CaptureCancelled(TensorwegError):
    """The user cancelled a capture; nothing was written."""


@dataclass(frozen=True)
class CaptureEvent:
    """Progress of a capture. kind: level_started, level_done, level_failed, cache_hit, finished."""

    kind: str
    level: str = ""
    target: str = ""
    error: str = ""
    seconds: float = 0.0
    staging_dir: str = ""


EventCallback = Callable[[CaptureEvent], None]


def cached_bundle(spec: str, options: CaptureOptions) -> Path | None:
    """The cached bundle for this model and options, or None (no compiler is started)."""
    path = cached_bundle_path(resolve(spec), options)
    return path if is_bundle(path) else None


def capture(
    spec: str,
    options: CaptureOptions,
    out_dir: Path | None = None,
    on_event: EventCallback | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
) -> Path:
    """Capture every level of `spec` for `options.targets`; return the bundle directory.

    Raises TensorwegError (one line) for bad input, CaptureCancelled when `cancel` is set.
    """
    from explorer.targets import parse_targets  # validates names before any process starts

    options = replace(options, targets=parse_targets(",".join(options.targets)))
    source = resolve(spec)
    emit = on_event or (lambda event: None)
    final = Path(out_dir) if out_dir else cached_bundle_path(source, options)
    if out_dir is None and use_cache and is_bundle(final):
        emit(CaptureEvent("cache_hit", staging_dir=str(final)))
        return final
    _check_output_dir(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_staging(final.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=final.parent))
    try:
        run = _CaptureRun(source, options, staging, emit, cancel or threading.Event())
        identity = run.execute()
        normalise_log(staging)
        _write_manifest(staging, source, options, identity, run.statuses)
        _move_into_place(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    emit(CaptureEvent("finished", staging_dir=str(final)))
    return final


def _remove_abandoned_staging(folder: Path) -> None:
    """A capture killed outright (the terminal closed) cannot clean up after
    itself; its staging directory names its process, so the next capture can."""
    for staging in folder.glob(".staging-*-*"):
        pid_text = staging.name.split("-")[1]
        if pid_text.isdigit() and not _process_alive(int(pid_text)):
            shutil.rmtree(staging, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def _check_output_dir(final: Path) -> None:
    if final.exists() and not is_bundle(final) and (not final.is_dir() or any(final.iterdir())):
        raise TensorwegError(f"{final.name}: output exists and is not a tensorweg bundle; refusing to overwrite")


class _CaptureRun:
    """One capture: the workers, their events and the per-level statuses."""

    def __init__(self, source: ModelSource, options: CaptureOptions, staging: Path,
                 emit: EventCallback, cancel: threading.Event) -> None:
        self.source = source
        self.options = options
        self.staging = staging
        self.emit = emit
        self.cancel = cancel
        self.events: queue.Queue = queue.Queue()
        self.processes: list[subprocess.Popen] = []
        self.statuses: dict[tuple[str, str], LevelStatus] = {}
        self.log = (staging / "capture.log").open("ab")
        self.fatal = ""

    def execute(self) -> ModelIdentity | None:
        accelerator_targets = [t for t in self.options.targets if t != "cpu"]
        try:
            tf_worker = self._start("explorer.capture.tf_worker", {
                "model": self.source.spec,
                "unsafe": self.options.unsafe,
                "batch": self.options.batch,
                "input_shapes": {name: list(dims) for name, dims in self.options.input_shapes},
                "staging_dir": str(self.staging),
                "targets": ["cpu"] if "cpu" in self.options.targets else [],
                "architecture": bool(accelerator_targets),
            })
            pending = list(accelerator_targets)
            while self._running() or not self.events.empty():
                self._check_cancel()
                try:
                    self._handle(self.events.get(timeout=0.1))
                except queue.Empty:
                    pass
                if pending and self._model_ready():
                    for target in pending:
                        self._start_accelerator(target)
                    pending = []
            if self.fatal:
                raise TensorwegError(self.fatal)
            if tf_worker.returncode not in (0, None) and not self._captured_anything():
                raise TensorwegError(f"capture worker stopped unexpectedly (exit {tf_worker.returncode}); see --debug")
            for target in pending:
                reason = "GPU and TPU targets need a Keras model; this model's Keras config could not be written"
                for level in TARGET_LEVELS:
                    self._set(target, level, LevelStatus("failed", reason))
        finally:
            self._stop_all()
            self.log.close()
        self._fill_missing()
        return self._identity()

    # --- workers --------------------------------------------------------------

    def _start(self, module: str, request: dict) -> subprocess.Popen:
        env = dict(os.environ)
        # A `module:function` model is imported from where the user runs tensorweg.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH", "")]))
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        process = subprocess.Popen(
            [sys.executable, "-m", module],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=env, preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
        process.stdin.write(json.dumps(request).encode())
        process.stdin.close()
        self.processes.append(process)
        threading.Thread(target=self._read_events, args=(process,), daemon=True).start()
        return process

    def _start_accelerator(self, target: str) -> None:
        from explorer.targets import availability

        missing = availability(target)
        if missing:
            for level in TARGET_LEVELS:
                self._set(target, level, LevelStatus("unavailable", missing))
                self.emit(CaptureEvent("level_failed", level, target, missing))
            return
        out_dir = self.staging / "targets" / target_dirname(target)
        out_dir.mkdir(parents=True, exist_ok=True)
        signature = json.loads((self.staging / "signature.json").read_text())
        self._start("explorer.capture.jax_worker", {
            "model_file": str(self.staging / "model.json"),
            "unsafe": self.options.unsafe,
            "signature": signature,
            "target": target,
            "out_dir": str(out_dir),
        })

    def _read_events(self, process: subprocess.Popen) -> None:
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace").strip()
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict) and "event" in event:
                self.events.put(event)
            elif line:  # stray output belongs in the log, not the user's terminal
                self.log.write(raw)
        process.wait()

    def _running(self) -> bool:
        return any(p.poll() is None for p in self.processes)

    def _model_ready(self) -> bool:
        return (self.staging / "model.json").is_file() and (self.staging / "signature.json").is_file()

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise CaptureCancelled("capture cancelled")

    def _stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait()

    # --- events and statuses ---------------------------------------------------

    def _handle(self, raw: dict) -> None:
        kind = raw.get("event", "")
        level = str(raw.get("level", ""))
        target = "" if level in TARGET_INDEPENDENT_LEVELS else str(raw.get("target", "") or "cpu")
        error = " ".join(str(raw.get("error", "")).split())
        seconds = float(raw.get("seconds", 0.0) or 0.0)
        if kind == "fatal":
            self.fatal = error or "capture failed"
            return
        if kind == "level_done":
            self._set(target, level, LevelStatus("ok", "", round(seconds, 3)))
        elif kind == "level_failed":
            status = "unavailable" if "not available" in error else "failed"
            self._set(target, level, LevelStatus(status, error, round(seconds, 3)))
        elif kind != "level_started":
            return
        if kind != "level_started":
            # The staging directory stays a readable bundle while it grows, so
            # the UI can show each level as soon as it is captured.
            _write_manifest(self.staging, self.source, self.options, self._identity(), self.statuses)
        self.emit(CaptureEvent(kind, level, target, error, seconds, str(self.staging)))

    def _set(self, target: str, level: str, status: LevelStatus) -> None:
        self.statuses[(target, level)] = status

    def _captured_anything(self) -> bool:
        return any(s.status == "ok" for s in self.statuses.values())

    def _fill_missing(self) -> None:
        wanted = [("", level) for level in TARGET_INDEPENDENT_LEVELS]
        wanted += [(target, level) for target in self.options.targets for level in TARGET_LEVELS]
        for key in wanted:
            if key not in self.statuses:
                self.statuses[key] = LevelStatus("failed", "not captured: the worker ended before this level")

    def _identity(self) -> ModelIdentity | None:
        path = self.staging / "identity.json"
        if not path.is_file():
            return None
        return from_jsonable(ModelIdentity, json.loads(path.read_text()))


def _die_with_parent() -> None:
    """Linux: a worker gets SIGKILL when the app that started it goes away (no orphans)."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


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
    return tuple((name, tuple(shape), dtype) for name, shape, dtype in json.loads(path.read_text()))


def _move_into_place(staging: Path, final: Path) -> None:
    """Atomic for readers: the old bundle (if any) is moved aside before the rename."""
    old = None
    if final.exists():
        old = final.with_name(f".old-{final.name}-{os.getpid()}")
        final.rename(old)
    staging.rename(final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


__all__ = ["CaptureCancelled", "CaptureEvent", "LEVELS", "Bundle", "cached_bundle", "capture"]
