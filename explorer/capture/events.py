"""What a capture tells its caller while it runs: one past-tense event class per kind.

Callers (the CLI's progress lines, the UI's capture worker, tests) dispatch on the type
(`match event: case LevelCaptured(): ...`), so a new kind is a new class every `match`
can be checked against, not a string compared in five places. The worker protocol's
own events (explorer.capture.protocol) are the wire format; these are what the
orchestrator makes of them.

While capturing, `staging_dir` is the growing staging bundle: read a `LevelCaptured`'s
level with `explorer.capture.orchestrator.staging_reader`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LevelStarted:
    """A worker began `level` of `target` ("" for the target-free levels)."""

    level: str
    target: str = ""
    staging_dir: str = ""


@dataclass(frozen=True)
class LevelCaptured:
    """`level` of `target` is captured into `staging_dir` and can be shown."""

    level: str
    target: str = ""
    seconds: float = 0.0
    staging_dir: str = ""


@dataclass(frozen=True)
class LevelFailed:
    """`level` of `target` failed (or is unavailable on this platform); `error` is one line.

    A cache hit reports the levels that failed in the cached capture this way too.
    """

    level: str
    target: str = ""
    error: str = ""
    seconds: float = 0.0
    staging_dir: str = ""


@dataclass(frozen=True)
class KeptLevelsStaged:
    """A cached bundle grows: its levels are in `staging_dir` (linked, byte for byte) and can be
    shown while the workers capture what it lacked."""

    staging_dir: str


@dataclass(frozen=True)
class CacheHit:
    """The bundle at `bundle_dir` is reused; `note` says how many of its levels failed ("" when none)."""

    bundle_dir: str
    note: str = ""


@dataclass(frozen=True)
class CaptureFinished:
    """Every level has an outcome and the bundle is in place at `bundle_dir`. `failed_targets`: the
    targets asked for that failed at every level (the others compiled; with none, CaptureFailed instead)."""

    bundle_dir: str
    failed_targets: tuple[str, ...] = ()


CaptureEvent = LevelStarted | LevelCaptured | LevelFailed | KeptLevelsStaged | CacheHit | CaptureFinished
