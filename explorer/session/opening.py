"""Reading a bundle for the explorer, and warming what later keys need: work for a thread.

Nothing here touches the session's state: `read_bundle` returns an event for `SessionService.apply`,
and `warm_after_open` reports through `emit`. Both run off the UI thread (the explorer's open worker,
a daemon thread), except when the session reads a small first level before the first frame
(`SessionService.read_before_first_frame`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from pathlib import Path

from explorer.errors import TensorwegError
from explorer.key_turns import ahead_of_need, step_aside
from explorer.model.bundle import Bundle
from explorer.session.events import BundleOpened, BundleOpenFailed, Emit, LevelsWarmed, TargetsRead
from explorer.views.trace import build_trace
from explorer.views.warm import level_rows, prepare_first_screen, prepare_levels

# How long the warm-up waits for the first screen to show the rows and their selection, and then
# for its panes to be drawn.
FIRST_SELECTION_WAIT_S = 2.0


def shown_target(bundle: Bundle, asked: str) -> str:
    """The target a bundle is shown on: the one asked for if it has it, else its first."""
    try:
        targets = bundle.targets
    except TensorwegError:  # a staging reader without its manifest yet
        return asked
    return asked if asked in targets or not targets else targets[0]


def read_bundle(path: Path, level: str, target: str, lang: str) -> BundleOpened | BundleOpenFailed:
    """Read and index the bundle at `path`, and its first screen's rows (`level` on the target it is
    shown on). Touches nothing shared."""
    try:
        bundle = Bundle.open(path)
        trace = build_trace(bundle)  # the cross-level index; modules are parsed when a level needs them
        level_rows(bundle, level, shown_target(bundle, target), lang)  # the first list, cached
    except TensorwegError as exc:
        return BundleOpenFailed(path, str(exc))
    # A large module is millions of objects that live as long as the bundle is open: out of the
    # cyclic collector's sight, whose full passes over them paused key presses for 0.8 s.
    gc.freeze()
    return BundleOpened(path, bundle, trace)


def warm_after_open(opened: BundleOpened, level: str, target: str, lang: str, emit: Emit,
                    cancelled: Callable[[], bool], warm_ui: Callable[[], None] = lambda: None) -> None:
    """What later key presses show, built ahead (on a daemon thread: quitting never waits for it).

    First it waits until the screen shows the rows and their selection (`opened.shown`), as its turns
    on the interpreter would slow the UI thread down; then the first selection's panes (a
    `TargetsRead` per target); once those are drawn (`opened.panes_drawn`), the UI's own renderers
    (`warm_ui`), each layer's facts and every level's tables (`LevelsWarmed` at the end).
    """
    bundle = opened.bundle
    with ahead_of_need():
        _warm(opened, bundle, level, shown_target(bundle, target), lang, emit, cancelled, warm_ui)


def _warm(opened: BundleOpened, bundle: Bundle, level: str, target: str, lang: str, emit: Emit,
          cancelled: Callable[[], bool], warm_ui: Callable[[], None]) -> None:
    def cancelled_or_aside() -> bool:  # between two layers, two levels: a key pressed meanwhile goes first
        step_aside()
        return cancelled()

    unread = list(bundle.targets)

    def read(done: str) -> None:
        if done in unread:
            unread.remove(done)
            emit(TargetsRead(bundle, (done,)))

    try:  # whatever happens here, the session hears that every target was read: it waits for that
        opened.shown.wait(FIRST_SELECTION_WAIT_S)
        from explorer.views.panes import warm_layer_facts  # noqa: PLC0415 (kept off the first frame)

        prepare_first_screen(bundle, level, target, lang, read)
    except TensorwegError:
        return  # the pane says what is wrong when it asks itself
    finally:
        if unread:  # not prepared (a damaged level, no rows): the pane reads them when asked
            emit(TargetsRead(bundle, tuple(unread)))
    opened.panes_drawn.wait(FIRST_SELECTION_WAIT_S)
    warm_ui()
    warm_layer_facts(bundle, lang, cancelled_or_aside)
    prepare_levels(bundle, target, lang, cancelled_or_aside)
    gc.freeze()
    if not cancelled():
        emit(LevelsWarmed(bundle))


def start_warm_up(opened: BundleOpened, level: str, target: str, lang: str, emit: Emit,
                  cancelled: Callable[[], bool], warm_ui: Callable[[], None]) -> threading.Thread:
    """`warm_after_open` on a daemon thread."""
    thread = threading.Thread(target=warm_after_open, args=(opened, level, target, lang, emit, cancelled, warm_ui),
                              name="warm-after-open", daemon=True)
    thread.start()
    return thread
