"""What the session's background work reports: one past-tense event class per kind.

Opening a bundle, warming its tables and capturing a model run on threads (`explorer.session.opening`,
`explorer.session.capturing`); they never touch the session's state. They hand these events to an
`Emit` callback, which the UI turns into a message on its own thread, where `SessionService.apply`
takes them. Capture events carry the capture's `generation`: one from a capture the session has
replaced is dropped (None: made by a test, always taken).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.capture.queue import QueuePlace
    from explorer.model.bundle import Bundle
    from explorer.views.trace import Trace


@dataclass(frozen=True)
class LevelStarted:
    """A capture's worker began `level` of `target` ("" for the target-free levels)."""

    level: str
    target: str = ""
    generation: int | None = None


@dataclass(frozen=True)
class LevelCaptured:
    """A level of one target is captured (in the staging directory) and can be shown.

    `bundle` reads the staging directory with this level already parsed and `trace` links its levels,
    both made on the capture's thread, so the UI thread parses nothing. Without them (a test), the
    session reads `staging_dir` itself.
    """

    level: str
    target: str = ""
    seconds: float = 0.0
    staging_dir: Path | None = None
    bundle: Bundle | None = None
    trace: Trace | None = None
    generation: int | None = None


@dataclass(frozen=True)
class KeptLevelsRead:
    """A cached bundle the capture grows: `bundle` reads what it already has (its kept levels parsed)."""

    bundle: Bundle
    trace: Trace
    generation: int | None = None


@dataclass(frozen=True)
class CaptureQueued:
    """The capture waits for a slot in `tensorweg serve`'s queue (`place`), or no longer (None)."""

    place: QueuePlace | None
    generation: int | None = None


@dataclass(frozen=True)
class CaptureFailed:
    """A level (or, with level "", the whole capture) failed; `error` is one line."""

    level: str
    target: str
    error: str
    generation: int | None = None


@dataclass(frozen=True)
class BundleLoaded:
    """The capture is done: the finished bundle at `path` replaces whatever is shown (it is read next)."""

    path: Path
    generation: int | None = None


@dataclass(frozen=True)
class MeshesCaptured:
    """`M`'s captures ended; `refused`: mesh -> why it could not be captured, for `target`."""

    target: str
    refused: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CaptureNeeded:
    """The cache does not hold the whole model asked for: the session captures it."""


@dataclass(frozen=True)
class CachedBundleFound:
    """The cache holds the whole model at `path`: it is being read like a bundle folder."""

    path: Path


@dataclass(frozen=True, eq=False)
class BundleOpened:
    """The bundle at `path` was read and indexed off the UI thread; `trace` links its levels.

    `shown` is set once the screen shows its rows and their selection: the warm-up waits for it.
    `panes_drawn` once the side panes are drawn with every target read: its later work waits for that.
    """

    path: Path
    bundle: Bundle
    trace: Trace
    shown: threading.Event = field(default_factory=threading.Event)
    panes_drawn: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class BundleOpenFailed:
    """The bundle at `path` could not be read; `error` is one line."""

    path: Path
    error: str


@dataclass(frozen=True, eq=False)
class TargetsRead:
    """The warm-up has read what the side panes show of `targets` in `bundle`."""

    bundle: Bundle
    targets: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class LevelsWarmed:
    """Everything every level of `bundle` shows is built: the UI may build its level views ahead."""

    bundle: Bundle


SessionEvent = (LevelStarted | LevelCaptured | KeptLevelsRead | CaptureQueued | CaptureFailed | BundleLoaded
                | MeshesCaptured | CaptureNeeded | CachedBundleFound | BundleOpened | BundleOpenFailed
                | TargetsRead | LevelsWarmed)

# Background work reports through this: the UI posts each event to its own thread.
Emit = Callable[[Any], None]
