"""What an app process started by `tensorweg serve` (one per browser tab) is.

The server passes its capture policy to the tabs' processes in the environment (textual-serve starts
each with a copy of the server's); the variables and their reading are the session's
(`explorer.session.policy`), one definition. This says only whether this process is such a tab.
"""

from __future__ import annotations

import os

from explorer.session.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE, policy_from_environment

__all__ = ["CAPTURE_VARIABLE", "QUEUE_VARIABLE", "captures_forbidden", "in_browser", "policy_from_environment"]

# textual-serve runs each tab's app with this driver (stdin/stdout are pipes, not a terminal).
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def captures_forbidden(environ=os.environ) -> bool:
    return not policy_from_environment(environ).allowed


def in_browser(environ=os.environ) -> bool:
    """True in a tab's app process: it talks to textual-serve, not to a terminal."""
    return environ.get("TEXTUAL_DRIVER") == WEB_DRIVER
