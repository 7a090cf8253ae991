"""screens/textual_compat.py overrides Textual's one private hook the UI needs (`App._handle_exception`).

These tests hold what it relies on: the hook is still there, with the one argument it overrides, in the
Textual the project pins; and through it a core error inside the app ends the app with exit status 2 and
the error kept for the CLI's one line, not a traceback. When Textual is bumped and the first test fails,
check upstream's `App._handle_exception` (textual/app.py) before changing the pin's check.
"""

from __future__ import annotations

import importlib.metadata
import inspect

from textual.app import App

from explorer.errors import TensorwegError

from screens.textual_compat import EndsOnCoreErrors

from pilot_support import sync

CHECKED_WITH = "8.2.8"  # the Textual whose App._handle_exception textual_compat was read against


def test_the_private_hook_is_textuals_and_takes_the_one_error():
    assert importlib.metadata.version("textual") == CHECKED_WITH, (
        "Textual changed: read its App._handle_exception, then update screens/textual_compat.py and CHECKED_WITH")
    assert list(inspect.signature(App._handle_exception).parameters) == ["self", "error"]
    assert "_handle_exception" in EndsOnCoreErrors.__dict__


class Failing(EndsOnCoreErrors):
    def on_mount(self) -> None:
        self.run_worker(self.read_damaged, thread=True)

    def read_damaged(self) -> None:
        raise TensorwegError("damaged bundle: layers.json is not JSON")


@sync
async def test_a_core_error_in_a_worker_ends_the_app_with_status_2_and_the_error():
    app = Failing()
    async with app.run_test() as pilot:
        for _ in range(50):
            await pilot.pause(0.02)
            if not app.is_running:
                break
    assert app.return_code == 2
    assert str(app.failure) == "damaged bundle: layers.json is not JSON"


class Crashing(EndsOnCoreErrors):
    def on_mount(self) -> None:
        raise ValueError("a bug of ours")


@sync
async def test_any_other_error_is_left_to_textual():
    app = Crashing()
    try:
        async with app.run_test() as pilot:
            await pilot.pause()
    except ValueError:
        pass
    assert app.failure is None
    assert app.return_code == 1
