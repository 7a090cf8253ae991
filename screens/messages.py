"""Past-tense events the capture worker posts to the app (and tests inject).

The worker thread only posts these; handlers on the app own all state. Capture
messages carry the capture's `generation`: the app drops those of a capture it
has replaced (None: injected by a test, always taken).
"""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


class LevelCaptured(Message):
    """A level of one target is captured (in the staging directory) and can be shown.

    `bundle` reads the staging directory with this level already parsed and `trace`
    links its levels, both made on the capture's worker thread
    (explorer.capture.orchestrator.staging_reader), so the UI thread parses nothing.
    """

    def __init__(self, level: str, target: str, seconds: float, staging_dir: Path | None,
                 bundle=None, trace=None, generation: int | None = None) -> None:
        super().__init__()
        self.level = level
        self.target = target
        self.seconds = seconds
        self.staging_dir = staging_dir
        self.bundle = bundle
        self.trace = trace
        self.generation = generation


class KeptLevelsRead(Message):
    """A cached bundle the capture grows: `bundle` reads what it already has (the staging
    directory, its kept levels parsed and `trace` linking them, on the capture's thread)."""

    def __init__(self, bundle, trace, generation: int | None = None) -> None:
        super().__init__()
        self.bundle = bundle
        self.trace = trace
        self.generation = generation


class CaptureQueued(Message):
    """The capture waits for a slot in `tensorweg serve`'s queue (`place`), or no longer (None)."""

    def __init__(self, place, generation: int | None = None) -> None:
        super().__init__()
        self.place = place
        self.generation = generation


class LevelStarted(Message):
    def __init__(self, level: str, target: str, generation: int | None = None) -> None:
        super().__init__()
        self.level = level
        self.target = target
        self.generation = generation


class CaptureFailed(Message):
    """A level (or, with level "", the whole capture) failed; `error` is one line."""

    def __init__(self, level: str, target: str, error: str, generation: int | None = None) -> None:
        super().__init__()
        self.level = level
        self.target = target
        self.error = error
        self.generation = generation


class BundleLoaded(Message):
    """The finished bundle at `path` replaces whatever was being shown."""

    def __init__(self, path: Path, generation: int | None = None) -> None:
        super().__init__()
        self.path = path
        self.generation = generation


class LevelsWarmed(Message):
    """The open worker has built what every level of `bundle` shows: the level screens may be built."""

    def __init__(self, bundle) -> None:
        super().__init__()
        self.bundle = bundle


class CaptureNeeded(Message):
    """The cache does not hold the whole model asked for: the app captures it (`run_capture`)."""


class CachedBundleFound(Message):
    """The cache holds the whole model at `path`: it is being read like a bundle folder."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


class BundleOpened(Message):
    """The bundle at `path` was read and indexed off the UI thread; `trace` links its levels.

    `shown` (a `threading.Event`) is set once the screen shows its rows and selection: the worker
    waits for it before warming what later key presses need.
    """

    def __init__(self, path: Path, bundle, trace, shown=None) -> None:
        super().__init__()
        self.path = path
        self.bundle = bundle
        self.trace = trace
        self.shown = shown


class TargetsRead(Message):
    """The open worker has read what the side panes show of `targets` in `bundle` (their optimized
    modules, kernels and index): a pane that said "reading" for them can show them now."""

    def __init__(self, bundle, targets: tuple[str, ...]) -> None:
        super().__init__()
        self.bundle = bundle
        self.targets = targets


class BundleOpenFailed(Message):
    """The bundle at `path` could not be read; `error` is one line."""

    def __init__(self, path: Path, error: str) -> None:
        super().__init__()
        self.path = path
        self.error = error


class LevelRowsBuilt(Message):
    """A level screen's worker has built its rows for `key` (generation, language): the screen
    shows them now (`screens.level_screen.LevelScreen`)."""

    def __init__(self, key: tuple[int, str]) -> None:
        super().__init__()
        self.key = key
