"""What an app process started by `tensorweg serve` (one per browser tab) may do.

The server passes its policy to the tabs' processes in the environment (textual-serve
starts each with a copy of the server's); one definition of the variable, here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.capture.queue import CaptureQueue

# Set by `tensorweg serve` for its tabs: "0" when learners may not start a capture.
CAPTURE_VARIABLE = "TENSORWEG_SERVE_CAPTURE"
# With --allow-capture: the folder of the queue the tabs' captures wait in (explorer.capture.queue).
QUEUE_VARIABLE = "TENSORWEG_SERVE_QUEUE"
# textual-serve runs each tab's app with this driver (stdin/stdout are pipes, not a terminal).
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def captures_forbidden(environ=os.environ) -> bool:
    return environ.get(CAPTURE_VARIABLE) == "0"


def capture_queue(environ=os.environ) -> CaptureQueue | None:
    """The server's capture queue, for a tab that may capture; None outside `serve`."""
    folder = environ.get(QUEUE_VARIABLE)
    if not folder:
        return None
    from explorer.capture.queue import CaptureQueue  # noqa: PLC0415 (start-up: the queue loads only in a `serve` tab that may capture)

    return CaptureQueue(Path(folder))


def in_browser(environ=os.environ) -> bool:
    """True in a tab's app process: it talks to textual-serve, not to a terminal."""
    return environ.get("TEXTUAL_DRIVER") == WEB_DRIVER
