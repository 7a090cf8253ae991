"""What the screens will ask for, built ahead on a worker thread so the UI thread only looks it up.

`explorer.views` keeps every table it builds per bundle (`explorer.views.tables.per_bundle`):
calling these off the UI thread (the app's open and capture workers) fills those caches first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from explorer.errors import TensorwegError
from explorer.levels import LIST_LEVELS, level_named
from explorer.model.built import NotBuilt, only_built, only_read
from explorer.views.items import LevelItem, RowGroup
from explorer.views.rows import created_by_compiler, row_groups, rows
from explorer.views.trace import descend

if TYPE_CHECKING:
    from explorer.model.bundle import Bundle


class LevelRows(NamedTuple):
    items: tuple[LevelItem, ...]
    created: frozenset[str]
    groups: dict[str, RowGroup]


def prepare_first_screen(bundle: Bundle, level: str, target: str, lang: str,
                         read: Callable[[str], None] = lambda target: None) -> None:
    """The tables the first screen reads: its rows and what the side panes show for its first row
    (buffer maps, the layer's per-target lines, explanations). `read(target)` is called once a
    target's lines are built (the shown target first)."""
    if level not in LIST_LEVELS:
        return
    first = rows(bundle, level, target, lang)[:1]  # cached: the worker built them before posting
    if first:
        name = first[0].name
        prepare_selection(bundle, level, target, name, lang, read)
        # Enter from this screen: the shown target's whole index (its HLO before optimisation, the
        # graph's links) and the rows one level down; on the UI thread that took 1.1 s of NASNetMobile's 2.7 s.
        bundle.index.part(target)
        descent = descend(bundle, level, name, target)
        if descent is not None:
            rows(bundle, descent.level, target, lang)


def prepare_selection(bundle: Bundle | None, level: str, target: str, name: str, lang: str,
                      read: Callable[[str], None] = lambda target: None) -> None:
    """What the side panes and the kernels' code view show for `name` (its memory facts, its lines on
    every captured target, its explanations, its kernel's code): built off the UI thread, which then
    only looks them up. `read(target)` is called once a target's lines are built (`target` first)."""
    # Imported here, on a worker: the app imports this module for its first frame.
    from explorer.views.explain import explanations  # noqa: PLC0415 (kept off the first frame)
    from explorer.views.kernel_code import kernel_codes  # noqa: PLC0415 (kept off the first frame)
    from explorer.views.panes import device_lines, memory_facts  # noqa: PLC0415 (kept off the first frame)

    if bundle is None:
        return
    memory_facts(bundle, level, target, name, lang)
    try:
        targets = bundle.targets
    except TensorwegError:  # a staging reader has no manifest yet: the target on screen is enough
        targets = (target,)
    for other in sorted(targets, key=lambda each: each != target):
        device_lines(bundle, level, name, target, other, lang)
        read(other)
    explanations(bundle, level, target, name, lang)
    if level_named(level).lists_kernels:
        kernel_codes(bundle, target, name, lang)


def if_read(show: Callable[[], None]) -> bool:
    """Run `show()` reading nothing of the bundle not read yet (`explorer.model.built.only_read`):
    whether it could. False: it needs a file or an index not read yet, and `show()` stopped there
    (the caller has a worker `prepare_selection` or the like, then shows again)."""
    try:
        with only_read():
            show()
    except NotBuilt:
        return False
    return True


def level_rows(bundle: Bundle | None, level: str, target: str, lang: str) -> LevelRows:
    """What a level's list shows: its rows, the items no layer owns, the groups over them."""
    items = rows(bundle, level, target, lang)
    created = created_by_compiler(bundle, level, target) if items else frozenset()
    groups = row_groups(bundle, level, target, lang) if items else {}
    return LevelRows(items, created, groups)


def built_level_rows(bundle: Bundle | None, level: str, target: str, lang: str) -> LevelRows | None:
    """`level_rows` if every table it needs is built already, else None (nothing is built here)."""
    try:
        with only_built():
            return level_rows(bundle, level, target, lang)
    except NotBuilt:
        return None


def prepare_levels(bundle: Bundle, target: str, lang: str, cancelled: Callable[[], bool]) -> None:
    """Every level's rows, once the first screen is ready: a level's first visit then only fills
    its list (of a first `4` on 30,000 optimized instructions, 0.24 s of 0.39 s was building its
    rows). Stops when `cancelled()`."""
    for level in LIST_LEVELS:
        if cancelled():
            return
        try:
            if bundle.status(level, target).status == "ok":
                level_rows(bundle, level, target, lang)
        except TensorwegError:
            continue  # a damaged level: its screen says so when shown
    if not cancelled():
        warm_passport(bundle, target, lang)


def warm_passport(bundle: Bundle, target: str, lang: str) -> None:
    """The tables a first `P` reads (the memory level and its buffer lines, the HLO name tables, the
    kernels' code): on ResNet50's cpu target they took 450 ms of the first passport; after this, ~10 ms."""
    from explorer.views.passport import passport  # noqa: PLC0415 (the passport's modules: not before the first frame)

    if target not in bundle.targets or not bundle.layers:
        return
    try:
        passport(bundle, target, bundle.layers[-1].name, lang=lang)
    except TensorwegError:
        return  # a damaged level: the passport says so when asked
