"""Work asked for "after the next refresh" survives the screen on top being popped.

Textual 8.2.8's `call_after_refresh` hands the callback to whichever screen is on top when the
request is handled (`MessagePump._on_invoke_later`); that screen runs it after its next refresh,
and a screen popped before that refresh drops what it holds. A level screen under the tour
panel asks for such work: its selection's code mark and panes once its new rows are painted
(`LevelScreen._show_after_rows`), lines highlighted after a plain frame, and Textual's own `Lazy`
mounting the side panes. The panel held it, and the next step (`n`) pops the panel: a step
pressed right after one that brought new rows (step 5 of 'A tensor's way down to the registers',
then 6) left the optimized HLO unmarked at line 1, and nothing asked again
(test_snapshot_question_answered_wrong failed now and then under load).
"""

from __future__ import annotations

from textual.app import App
from textual.await_complete import AwaitComplete
from textual.dom import DOMNode, NoScreen
from textual.message_pump import MessagePump
from textual.screen import Screen


class KeepsRefreshWorkOfPoppedScreens(App):
    """An app whose popped screens hand the pending after-refresh work of the screens that stay
    (and of the app) to the screen now on top."""

    def pop_screen(self) -> AwaitComplete:
        leaving = self.screen
        popped = super().pop_screen()
        # Textual's own queue of it (Screen._callbacks, filled by Screen._invoke_later): the new
        # top runs it after its next refresh, as the popped screen would have.
        pending = leaving._callbacks[:]
        leaving._callbacks.clear()
        for callback, sender in pending:
            if _screen_of(sender) is not leaving:  # the popped screen's own work goes with it
                self.screen._invoke_later(callback, sender)
        return popped


def _screen_of(sender: MessagePump) -> Screen | None:
    """The screen a widget (or screen) is on; None for the app and for what left its screen."""
    if isinstance(sender, App) or not isinstance(sender, DOMNode):
        return None
    try:
        return sender.screen
    except NoScreen:
        return None
