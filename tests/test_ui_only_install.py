"""The app on an install without the `compilers` extra (`pip install -e .`, the UI alone) asked to
capture a model: where the level would be, it says in one line how to install the compilers, and
no capture worker starts. (The CLI refuses such a command before the UI: tests/test_pack.py.)"""

from __future__ import annotations

from explorer import targets
from explorer.model.records import CaptureOptions

from screens.app import create_app

from pilot_support import sync
from tests.test_capture_ui import wait_for


@sync
async def test_a_capture_without_the_compilers_says_how_to_install_them(fake, monkeypatch):
    pids = fake("ok")  # should the check ever let a capture through, only the stand-in worker runs
    monkeypatch.setattr(targets, "COMPILER_MODULES", ("tensorweg_test_no_such_compiler",))  # as if not installed
    app = create_app(model_spec="mlp", options=CaptureOptions(targets=("cpu",)), level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.load_error, "the capture to fail")
        assert app.load_error == targets.COMPILERS_INSTALL_HINT and app.is_running
        shown = str(app.explorer.view.query_one(".notice").render())
        assert "compilers are not installed" in shown and 'pip install -e ".[compilers]"' in shown
    assert list(pids.iterdir()) == []
