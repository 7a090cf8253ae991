"""What the app holds, and what follows from it: each level's status and notice, the title and
progress lines, where `t` goes (and what it selects there), which targets `c` captures.

The Textual app keeps its state in its own fields (the bundle and target it shows, a capture's
progress, the selections) and asks these questions of a `Session` it builds from them
(`TensorwegApp.session`): plain data in, words and decisions out, so the answers are decided
here once, tested without Pilot (tests/test_session.py), and the screens only draw them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

from explorer.capture.options import variant_words
from explorer.labels import label
from explorer.levels import LIST_LEVELS, TARGET_LEVELS, level_named, target_key
from explorer.targets import DEFAULT_TARGETS
from explorer.views.rows import rows
from explorer.views.trace import JumpQuestion, counterpart, layer_of

if TYPE_CHECKING:
    from pathlib import Path

    from explorer.capture.queue import QueuePlace
    from explorer.model.bundle import Bundle

_NOTHING: Mapping = MappingProxyType({})


class CaptureState(StrEnum):
    """What a running capture reported for a level; the values are the level statuses they mean."""

    RUNNING = "running"
    CAPTURED = "ok"
    FAILED = "failed"



@dataclass(frozen=True)
class LevelProgress:
    """One level of one target in the capture now running; `error` (one line) when it failed."""

    state: CaptureState
    error: str = ""


STARTED = LevelProgress(CaptureState.RUNNING)
CAPTURED = LevelProgress(CaptureState.CAPTURED)


def failed(error: str) -> LevelProgress:
    return LevelProgress(CaptureState.FAILED, error)


@dataclass(frozen=True)
class FollowedLayer:
    """What `t` follows at one level while the learner leaves the selection as `t` made it.

    made: the selection `t` made; layer: the layer it follows (the one `t` started from);
    origins: (target, item) for each target `t` left, the item selected there, so coming back
    to a target (cpu -> gpu -> tpu -> cpu) lands on the very item it left, not on a neighbour.
    """

    made: str
    layer: str
    origins: tuple[tuple[str, str], ...] = ()

    def origin(self, target: str) -> str:
        return dict(self.origins).get(target, "")


@dataclass(frozen=True)
class TargetSwitch:
    """Where `t` goes: the next target, and each per-target level's selection there.

    followed_layers: level -> what `t` follows there (`FollowedLayer`), so the next `t` keeps
    following that layer, and returns to each target's item, while the learner leaves the
    selection as it was.
    """

    target: str
    selections: Mapping[str, str]
    followed_layers: Mapping[str, FollowedLayer]


@dataclass(frozen=True)
class StatusNote:
    """A notification and the place it was made for: the level, the item selected there, the
    language. It is shown only there: another level, item, lesson step or language clears it."""

    text: str
    level: str
    item: str
    lang: str
    bold: bool = False

    def shown_at(self, level: str, item: str, lang: str) -> bool:
        return (self.level, self.item, self.lang) == (level, item, lang)


@dataclass(frozen=True)
class Session:
    """What the app holds at one moment.

    bundle: the bundle on screen (a capture's staging reader while it runs), None before one.
    requested_targets: what the capture asks for (shown as the targets until a manifest says).
    progress: (level, target key) -> what the capture now running reported for it.
    opening: a bundle being read in the background; load_error: why the last one could not be.
    queue_place: where this tab's capture waits in `tensorweg serve`'s line.
    trail: the descents so far, (level, name) each; selections: level -> the selected item.
    note: the last notification, with the place it was made for (`status_line`).
    """

    bundle: Bundle | None = None
    target: str = "cpu"
    lang: str = "en"
    requested_targets: tuple[str, ...] = ("cpu",)
    model_spec: str | None = None
    progress: Mapping[tuple[str, str], LevelProgress] = field(default_factory=lambda: _NOTHING)
    opening: Path | None = None
    load_error: str = ""
    queue_place: QueuePlace | None = None
    trail: tuple[tuple[str, str], ...] = ()
    selections: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    followed_layers: Mapping[str, FollowedLayer] = field(default_factory=lambda: _NOTHING)
    note: StatusNote | None = None

    # --- levels -------------------------------------------------------------------------

    def has_manifest(self) -> bool:
        return self.finished_bundle() is not None

    def finished_bundle(self) -> Bundle | None:
        """The bundle on screen once it has a manifest (a capture's staging reader has none yet)."""
        return self.bundle if self.bundle is not None and self.bundle.has_manifest() else None

    def captured_targets(self) -> tuple[str, ...]:
        """Targets of the bundle; while capturing, the ones requested."""
        finished = self.finished_bundle()
        return finished.targets if finished is not None else self.requested_targets

    def level_status(self, level: str) -> tuple[str, str]:
        """(status, error) for `level` on the target, from the capture or the manifest."""
        progress = self.progress.get((level, target_key(level, self.target)))
        if progress is not None:
            return progress.state.value, progress.error
        if self.bundle is None:
            if self.opening is not None:
                return ("opening", "")
            if self.load_error:
                return ("failed", self.load_error)
            # A capture starts with the app: say so from the first frame, before its first event.
            return ("running", "") if self.model_spec else ("pending", "")
        if not self.has_manifest():
            return ("pending", "")  # a staging directory: only what was reported is known
        status = self.bundle.status(level, self.target)
        return status.status, status.error

    def level_ready(self, level: str) -> bool:
        return self.bundle is not None and self.level_status(level)[0] == "ok"

    def level_title(self, level: str) -> str:
        return label(level_named(level).title_key, self.lang)

    def level_notice(self, level: str) -> str:
        """One line under the title when the level cannot be shown (yet); "" when it can."""
        status, error = self.level_status(level)
        if status == "ok":
            return ""
        lang = self.lang
        if status == "opening":
            return label("notice.opening", lang).format(bundle=self.opened_name())
        usable = [self.level_title(lvl) for lvl in LIST_LEVELS if lvl != level and self.level_status(lvl)[0] == "ok"]
        still = " " + label("notice.still_usable", lang).format(levels=", ".join(usable)) if usable else ""
        key = {"failed": "notice.failed", "running": "notice.running",
               "unavailable": "notice.unavailable"}.get(status, "notice.not_captured")
        return label(key, lang).format(level=self.level_title(level), target=self.target, error=error) + still

    def opened_name(self) -> str:
        """What is being opened: the model asked for (its cached bundle's folder is a hash), else the folder."""
        return self.model_spec or (self.opening.name if self.opening else "")

    # --- the lines above the list ---------------------------------------------------------

    def title_line(self, level: str) -> str:
        """The title bar's text (plain text: screens show it as Content, never as markup)."""
        if (finished := self.finished_bundle()) is not None:
            model = finished.model_name
        elif self.opening is not None and self.bundle is None:
            model = self.opened_name()
        else:
            model = self.model_spec or label("title.no_model", self.lang)
        number = LIST_LEVELS.index(level) + 1 if level in LIST_LEVELS else 4  # memory sits beside 4
        line = f"{model} | {number} {self.level_title(level)} | {self.target}"
        mode = mode_text(self.bundle) if self.has_manifest() else ""  # "train (adam) on 2x2, ..."
        line += f" | {mode}" if mode else ""
        trail = " > ".join(name.rsplit("/", 1)[-1] for _, name in self.trail[-3:])
        return line + (f" | {label('word.trail', self.lang)}: {trail}" if trail else "")

    def progress_line(self) -> str:
        """The capture's progress per level ("" when none runs), or its place in the serve queue."""
        if self.queue_place is not None:
            place = self.queue_place
            return label("text.capture_waiting", self.lang).format(
                ahead=place.ahead, running=place.running, slots=place.slots)
        if not self.progress:
            return ""
        return label("text.capture_progress", self.lang) + ": " + progress_summary(self.progress, self.lang)

    # --- keys -----------------------------------------------------------------------------

    def next_target(self) -> TargetSwitch | None:
        """`t`: the next captured target, each per-target level's selection moved to its counterpart
        there (the same layer's nearest item: `explorer.views.trace.counterpart`), or the top of the
        list where that layer has nothing. Back on a target `t` left while the learner kept the
        selection `t` made, the item it left there. None when there is only one target."""
        targets = self.captured_targets()
        if len(targets) < 2:
            return None
        new = targets[(targets.index(self.target) + 1) % len(targets)] if self.target in targets else targets[0]
        selections: dict[str, str] = {}
        followed: dict[str, FollowedLayer] = {}
        for level in TARGET_LEVELS:
            name = self.selections.get(level)
            if not name:
                continue
            # Keep following the layer `t` started from while the selection is the one `t` made:
            # cpu -> gpu -> tpu -> cpu comes back to the item it left, not to a neighbour's.
            before = self.followed_layers.get(level)
            if before is None or before.made != name:
                before = FollowedLayer(name, layer_of(self.bundle, level, name, self.target))
            origins = {**dict(before.origins), self.target: name}
            found = origins.get(new) or counterpart(self.bundle, level, name, self.target, new, before.layer)
            if not found:  # the layer has nothing at this level there: the list starts at its top
                first = rows(self.bundle, level, new)[:1]
                found = first[0].name if first else ""
            selections[level] = found
            followed[level] = FollowedLayer(found, before.layer, tuple(origins.items()))
        return TargetSwitch(new, MappingProxyType(selections), MappingProxyType(followed))

    def jump_question(self, from_level: str, level: str) -> JumpQuestion:
        """A number key from `from_level` to `level`: which item there the selection leads to (down as
        Enter goes, up to what it implements: `explorer.views.trace.jump`); its answer "" keeps `level`'s own."""
        return JumpQuestion(self.bundle, from_level, self.selections.get(from_level, ""), level, self.target,
                            self.selections.get(level, ""))

    def status_line(self, level: str) -> StatusNote | None:
        """The notification to show under `level`: only where it was made (same level, selection and
        language); a status line from another level or lesson step would describe something else."""
        note = self.note
        return note if note is not None and note.shown_at(level, self.selections.get(level, ""), self.lang) else None

    def held_targets(self) -> tuple[str, ...]:
        """The targets asked for, then those the bundle already holds, each once."""
        return tuple(dict.fromkeys(self.requested_targets + (self.bundle.targets if self.bundle is not None else ())))

    def missing_targets(self) -> tuple[str, ...]:
        """The default targets neither asked for nor in the bundle: what `c` captures."""
        held = self.held_targets()
        return tuple(target for target in DEFAULT_TARGETS if target not in held)

    def targets_to_capture(self) -> tuple[str, ...]:
        """`c`'s capture options' targets: those held, then the missing ones (the orchestrator grows
        the bundle: only the missing targets' workers run)."""
        return self.held_targets() + self.missing_targets()


def progress_summary(progress: Mapping[tuple[str, str], LevelProgress], lang: str) -> str:
    """A running capture in one line that fits 80 columns: how many levels are captured, which failed
    (by name: what the learner must know), then each level still running with how many of the
    capture's targets have it (`kernels 2/3..`). (A mark per level and target wrapped to a second line
    at 80 and 120 columns, and the last targets never showed: issue 39.)"""
    targets = list(dict.fromkeys(target for _, target in progress if target))
    states = progress.values()
    parts = [label("text.capture_done_count", lang).format(count=sum(s.state is CaptureState.CAPTURED for s in states))]
    failures = failed_levels(progress)
    if failures:
        parts.append(label("text.capture_failed_levels", lang).format(levels=", ".join(failures)))
    running = list(dict.fromkeys(level for (level, _), state in progress.items()
                                 if state.state is CaptureState.RUNNING))
    for level in running:
        if level in TARGET_LEVELS:
            done = sum(state.state is CaptureState.CAPTURED for (name, _), state in progress.items() if name == level)
            parts.append(f"{level} {done}/{len(targets)}..")
        else:
            parts.append(f"{level} ..")
    return "  ".join(parts)


def failed_levels(progress: Mapping[tuple[str, str], LevelProgress]) -> list[str]:
    """`level@target` (or `level`) of each level the capture reported failed, in the order reported."""
    return [f"{level}@{target}" if target else level
            for (level, target), state in progress.items() if state.state is CaptureState.FAILED]


def capture_outcome(progress: Mapping[tuple[str, str], LevelProgress], lang: str) -> str:
    """The last word on a capture that ended: everything captured, or which levels failed ("" for none ran)."""
    if not progress:
        return ""
    failures = failed_levels(progress)
    targets = ", ".join(dict.fromkeys(target for _, target in progress if target))
    captured = sum(state.state is CaptureState.CAPTURED for state in progress.values())
    if failures:
        return label("notify.capture_done_failed", lang).format(
            captured=captured, failed=len(failures), levels=", ".join(failures))
    return label("notify.capture_done", lang).format(captured=captured, targets=targets or "-")


def mode_text(bundle: Bundle | None) -> str:
    """What the bundle compiled, for the title line: "" for one inference call on one chip."""
    if bundle is None:
        return ""
    options = bundle.manifest.options
    variant = ", ".join(variant_words(options))  # "dtype bfloat16, xla_disable_hlo_passes=fusion"
    if options.mode == "inference" and not options.mesh:
        return variant
    text = f"train ({options.optimizer})" if options.mode == "train" else options.mode
    text += ", rematerialised" if options.remat else ""
    text += f" on {options.mesh}, {options.shard} parallel" if options.mesh else ""
    return text + (f", {variant}" if variant else "")
