"""Issue 35: a learner copies from a pane. Text selected in a side pane or the code view goes to the
clipboard with ctrl+c (Textual's own selection and copy), the status line says how much; with nothing
selected ctrl+c quits as before. (The old explanation pane shadowed Textual's `_render` and the copy
ended the app with a TypeError.)"""

from __future__ import annotations

import pytest

from explorer.labels import label

from screens.app import create_app

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle


@pytest.mark.parametrize("pane", ["#explanation", "#memory", "#code"])
@sync
async def test_text_selected_in_a_pane_is_copied_by_ctrl_c(pane):
    app = create_app(BUNDLE, level="hlo", target="cpu", select="convolution.1")
    async with app.run_test(size=(160, 50)) as pilot:
        await opened(pilot)
        for _ in range(5):
            await pilot.pause()
        widget = app.screen.query_one(pane)
        widget.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected and len(selected.strip()) > 10
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running  # copied, not quit, not crashed
        assert app.clipboard == selected
        assert app.session.note.text == label("notify.copied", "en").format(count=len(selected))


@sync
async def test_ctrl_c_with_nothing_selected_quits():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
