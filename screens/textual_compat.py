"""The one place the UI uses a private name of Textual, and why (tests/test_textual_compat.py holds it).

`App._handle_exception(error)`: Textual hands every exception raised in a handler, an action or a
worker (as `WorkerFailed`) to it, and then exits with a traceback. A `TensorwegError` (a damaged
bundle, a level that cannot be read) must end the app with the CLI's one `error:` line and exit
status 2 instead, as every other command does; Textual has no public hook for "an exception reached
the app" (harlequin overrides the same method for the same reason). The test fails when Textual is
bumped and says what to check upstream.
"""

from __future__ import annotations

from textual.app import App
from textual.worker import WorkerFailed

from explorer.errors import TensorwegError


class EndsOnCoreErrors(App):
    """A `TensorwegError` inside the app ends it with one line from the CLI (`failure`), not a traceback."""

    failure: TensorwegError | None = None

    def _handle_exception(self, error: Exception) -> None:
        cause = error.error if isinstance(error, WorkerFailed) else error  # raised in a thread worker
        if isinstance(cause, TensorwegError) and "debug" not in self.features:
            self.failure = cause
            self.exit(return_code=2)
            return
        super()._handle_exception(error)
