"""The one definition of the capture workers' protocol, shared by workers and orchestrator.

A worker reads one JSON request (one line) on stdin and reports progress as JSON
lines on its real stdout:

    {"event": "level_started", "level": "hlo", "target": "cpu"}
    {"event": "level_done", "level": "hlo", "target": "cpu", "seconds": 0.12}
    {"event": "level_failed", "level": "hlo", "target": "cpu", "error": "one line message"}
    {"event": "fatal", "error": "one line message"}          # bad input: nothing captured

`WorkerEvent` is what the orchestrator reads back; `ProtocolWriter` is what a
worker writes with. Importing this module never imports a compiler.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO

# Levels a worker reports without a target (they do not depend on one).
from explorer.levels import TARGET_INDEPENDENT_LEVELS

LEVEL_STARTED = "level_started"
LEVEL_DONE = "level_done"
LEVEL_FAILED = "level_failed"
FATAL = "fatal"
EVENT_KINDS = (LEVEL_STARTED, LEVEL_DONE, LEVEL_FAILED, FATAL)

ERROR_LIMIT = 400  # characters of one error line, everywhere
EXIT_BAD_INPUT = 2
# The request key that makes a worker end when the orchestrator's end of its stdin closes.
EXIT_WITH_PARENT = "exit_with_parent"

# Lines TensorFlow and Python put before the message that matters.
_PREAMBLE_PREFIXES = ("in user code:", "file \"", "traceback (most recent call last)", "during handling of",
                      "the above exception", "arguments received by", "•", "^", "~")
_KERAS_WRAPPER = "Exception encountered when calling"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # Keras bolds parts of its messages


@dataclass(frozen=True)
class WorkerEvent:
    """One protocol line, validated: `kind` is one of EVENT_KINDS."""

    kind: str
    level: str = ""
    target: str = ""
    error: str = ""
    seconds: float = 0.0

    def to_line(self) -> str:
        event: dict = {"event": self.kind}
        if self.level:
            event["level"] = self.level
        if self.target:
            event["target"] = self.target
        if self.kind == LEVEL_DONE:
            event["seconds"] = round(self.seconds, 3)
        if self.error:
            event["error"] = self.error
        return json.dumps(event) + "\n"


def parse_event(line: str | bytes) -> WorkerEvent | None:
    """The event on one stdout line, or None for anything else (stray output belongs in the log)."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    try:
        raw = json.loads(line)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("event") not in EVENT_KINDS:
        return None
    level = str(raw.get("level") or "")
    target = "" if level in TARGET_INDEPENDENT_LEVELS else str(raw.get("target") or "")
    if level and level not in TARGET_INDEPENDENT_LEVELS and not target:
        target = "cpu"  # the TF worker's target levels are cpu's
    try:
        seconds = float(raw.get("seconds") or 0.0)
    except (TypeError, ValueError):
        seconds = 0.0
    if not 0.0 <= seconds < 1e9:  # NaN, Infinity or negative: not a duration
        seconds = 0.0
    error = " ".join(str(raw.get("error") or "").split())[:ERROR_LIMIT]
    return WorkerEvent(str(raw["event"]), level, target, error, seconds)


def one_line(error: BaseException | str, limit: int = ERROR_LIMIT) -> str:
    """The line of a (TF/XLA/Keras) message that says what went wrong.

    TensorFlow wraps errors raised while tracing in a preamble ("in user code:",
    then `File ...` lines and source lines); the reason is the last
    `SomeError: ...` line. Other messages keep their first line.
    """
    text = _ANSI.sub("", str(getattr(error, "message", None) or error))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(error).__name__ if isinstance(error, BaseException) else "unknown error"
    line = lines[0]
    if line.lower().startswith(_PREAMBLE_PREFIXES):
        kept = [candidate for candidate in lines if not candidate.lower().startswith(_PREAMBLE_PREFIXES)]
        reasons = [index for index, candidate in enumerate(kept) if _looks_like_reason(candidate)]
        index = reasons[-1] if reasons else len(kept) - 1
        line = kept[index] if kept else lines[-1]
        # Keras: "ValueError: Exception encountered when calling X.call()." The reason follows.
        if _KERAS_WRAPPER in line and index + 1 < len(kept):
            line = f"{line.split(':', 1)[0]}: {kept[index + 1]}"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _looks_like_reason(line: str) -> bool:
    """`ValueError: ...`, `InvalidArgumentError: ...`, `INVALID_ARGUMENT: ...`."""
    head, colon, _ = line.partition(":")
    return bool(colon) and " " not in head and (head.endswith(("Error", "Exception")) or head.isupper())


class ProtocolWriter:
    """What a worker writes progress with (thread-safe: the TF worker reports from two threads)."""

    def __init__(self, stream: IO[str], target: str = "") -> None:
        self.stream = stream
        self.target = target  # default target of a JAX worker's events
        self.started: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def send(self, event: WorkerEvent) -> None:
        with self._lock:
            self.stream.write(event.to_line())
            self.stream.flush()

    def level_started(self, level: str, target: str = "") -> None:
        target = target or self.target
        self.started[(level, target)] = time.perf_counter()
        self.send(WorkerEvent(LEVEL_STARTED, level, target))

    def level_done(self, level: str, target: str = "") -> None:
        target = target or self.target
        seconds = time.perf_counter() - self.started.get((level, target), time.perf_counter())
        self.send(WorkerEvent(LEVEL_DONE, level, target, seconds=seconds))

    def level_failed(self, level: str, error: BaseException | str, target: str = "") -> None:
        self.send(WorkerEvent(LEVEL_FAILED, level, target or self.target, one_line(error)))

    def fatal(self, error: BaseException | str) -> None:
        self.send(WorkerEvent(FATAL, error=one_line(error)))


def take_over_stdout() -> IO[str]:
    """Keep a dup of the real stdout for the protocol and point fd 1 at stderr.

    TensorFlow, libtpu and the CUDA plugin write from C++ straight to fd 1, so
    redirecting `sys.stdout` alone is not enough.
    """
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def read_request() -> dict:
    """The request: the first line of stdin (a JSON object); ValueError when it is not one.

    With `exit_with_parent` the orchestrator keeps its end of stdin open; when that
    process goes away (even killed outright) the pipe closes and this worker ends too,
    so no compiler is left running without anyone to read its output.
    """
    request = json.loads(sys.stdin.readline() or "null")
    if not isinstance(request, dict):
        raise ValueError("the request is not a JSON object")
    if request.get(EXIT_WITH_PARENT):
        threading.Thread(target=_exit_when_stdin_closes, name="parent-watch", daemon=True).start()
    return request


def _exit_when_stdin_closes() -> None:
    while sys.stdin.buffer.read(1):
        pass
    os._exit(1)
