"""Who may start a capture, decided in one place for every key and every screen.

A `tensorweg serve` tab opening a pack or a bundle may not capture at all; a tab of `serve MODEL
--allow-capture` may, but each capture waits for one of `--max-captures` slots in a queue all tabs
share (`explorer.capture.queue`). In a terminal a learner captures what they named. The session asks
`CapturePolicy.refusal` before any capture starts (the `c` key, the filmstrip's `c`, the compare
screen's `M`, a capture at start), and hands the queue's gate to every capture it starts, so no screen
can start a capture past the policy or around the queue.

A bundle records the model it was captured from. That name came with the bundle, which may come from
anyone: the session captures it again only when it names a file or a sample (reading a `.keras` file
or a SavedModel runs no Python of the file's), never a `module:function`, which would import and run
code the learner did not name.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.labels import label

if TYPE_CHECKING:
    from explorer.capture.queue import CaptureQueue, WaitCallback

# Set by `tensorweg serve` for its tabs' processes (textual-serve starts each with a copy of the
# server's environment): "0" when learners may not start a capture.
CAPTURE_VARIABLE = "TENSORWEG_SERVE_CAPTURE"
# With --allow-capture: the folder of the queue the tabs' captures wait in (explorer.capture.queue).
QUEUE_VARIABLE = "TENSORWEG_SERVE_QUEUE"

# A capture's gate: entered before any worker starts, held until the capture ends.
Gate = Callable[[threading.Event], AbstractContextManager[None]]


@dataclass(frozen=True)
class CapturePolicy:
    """allowed: captures may start here at all (False: a `serve` tab of a pack or a bundle).
    queue: the line shared by a server's tabs (None: capture at once)."""

    allowed: bool = True
    queue: CaptureQueue | None = None

    def refusal(self, spec: str, lang: str) -> str:
        """Why a capture of `spec` may not start ("" when it may), as one line for the status bar."""
        if not self.allowed:
            return label("notify.capture_forbidden", lang)
        if not spec:
            return label("notify.capture_needs_model", lang)
        return ""

    def gate(self, waiting: WaitCallback) -> Gate | None:
        """The queue's gate for one capture, telling `waiting` each new place in line, then None once
        the wait is over; None: no queue."""
        queue = self.queue
        if queue is None:
            return None

        def enter(cancel: threading.Event) -> AbstractContextManager[None]:
            return queue.slot(cancel, waiting)

        return enter


def policy_from_environment(environ=os.environ) -> CapturePolicy:
    """This process's policy: a `serve` tab's, from what the server set, else a terminal's (captures
    allowed, no queue)."""
    if environ.get(CAPTURE_VARIABLE) == "0":
        return CapturePolicy(allowed=False)
    folder = environ.get(QUEUE_VARIABLE)
    if not folder:
        return CapturePolicy()
    from pathlib import Path  # noqa: PLC0415 (as below)

    from explorer.capture.queue import CaptureQueue  # noqa: PLC0415 (start-up: the queue loads only in a `serve` tab that may capture)

    return CapturePolicy(queue=CaptureQueue(Path(folder)))


def recorded_spec_is_safe(spec: str) -> bool:
    """Whether a model name read from a bundle may be captured again: not a `module:function`."""
    from explorer.capture.model_source import names_code  # noqa: PLC0415 (the model classifier loads with a capture)

    return bool(spec) and not names_code(spec)

