"""Lessons over the open bundle: what a tour step's `select=` can pick, where a step takes the app,
and the lesson list (`T`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from explorer.labels import label
from explorer.levels import level_named, target_key

if TYPE_CHECKING:
    from explorer.course.tours import Tour, TourStep
    from explorer.model.bundle import Bundle
    from explorer.views.session import Session

from explorer.course.tours import Candidate, builtin_tours, missing_capture, resolve_selection, tour_command
from explorer.model.bundle import is_bundle
from explorer.views.programs import program_for
from explorer.views.rows import rows
from explorer.views.tables import per_bundle
from explorer.views.trace import layer_of


def tour_candidates(bundle: Bundle | None, level: str, target: str) -> tuple[Candidate, ...]:
    """The items of `level` as tour selectors see them (docs/tours.md), in display order.

    The per-target levels' items and kinds are the target's program's (`selector_items`): for XLA,
    HLO kinds are opcode, fusion kind and custom-call target; instructions inside
    fusion computations are left out, so `kind:convolution` finds the top-level
    convolution rather than one buried in a fusion. Memory: allocations by index.
    """
    if bundle is None:
        return ()
    return _tour_candidates(bundle, level, target_key(level, target) or target)


@per_bundle
def _tour_candidates(bundle: Bundle, level: str, target: str) -> tuple[Candidate, ...]:
    this = level_named(level)
    if this.from_program:  # the target's program: HLO instructions, Relax, TIR functions, kernels
        return tuple(Candidate(name, kinds, layer_of(bundle, level, name, target))
                     for name, kinds in program_for(bundle, target).selector_items(level))
    if this.maps_buffers:
        memory = bundle.memory(target)
        return tuple(Candidate(str(a.index), (a.kind, *a.flags)) for a in (memory.allocations if memory else ()))
    return tuple(Candidate(item.name, (item.kind,), layer_of(bundle, level, item.name, target))
                 for item in rows(bundle, level, target))


def resolve_tour_step(bundle: Bundle | None, step: TourStep) -> str | None:
    """The name of the item a tour step selects in this bundle, or None."""
    if step.selection is None:
        return None
    return resolve_selection(step.selection, tour_candidates(bundle, step.level, step.target))


@dataclass(frozen=True)
class TourPlace:
    """Where a tour step takes the app: `level` on `target`, with `selection` selected there
    (None: the step selects nothing, or the level is not ready to select in)."""

    level: str
    target: str
    selection: str | None


def tour_step_place(session: Session, step: TourStep) -> TourPlace:
    """Where `step` takes an app holding `session`: the step's level and target, and the item its
    selector picks in the bundle, judged on the step's target (its capture may still be running)."""
    there = replace(session, target=step.target)
    ready = there.bundle is not None and there.level_ready(step.level)
    return TourPlace(step.level, step.target, resolve_tour_step(there.bundle, step) if ready else None)


@dataclass(frozen=True)
class LessonChoice:
    """One line of the lesson list (`T`): `needs` is "" when the open bundle has the capture the
    lesson's steps select in, else what it lacks and the command that captures it (for a lesson
    written for another model: that model)."""

    name: str
    tour: Tour
    needs: str = ""


def lesson_choices(bundle: Bundle | None, lang: str) -> list[LessonChoice]:
    """The built-in lessons in `lang` (each has a twin in the other; all when none is), those the
    bundle has the capture for first: a lesson written for another model, or a training lesson on
    an inference bundle, selects nothing, so it names what it needs instead of starting."""
    tours = [(name, tour) for name, tour in builtin_tours() if tour.lang == lang] or builtin_tours()
    manifest = bundle.manifest if bundle is not None and is_bundle(bundle.path) else None  # None: capturing
    choices = []
    for name, tour in tours:
        missing = missing_capture(tour, manifest.model.spec, manifest.options) if manifest is not None else ""
        choices.append(LessonChoice(name, tour, _needs(name, tour, missing, manifest, lang)))
    return sorted(choices, key=lambda choice: bool(choice.needs))


def _needs(name: str, tour: Tour, missing: str, manifest, lang: str) -> str:
    if not missing:
        return ""
    command = tour_command(name, tour)
    if manifest.model.spec != tour.model:
        return label("tours.for_model", lang).format(model=tour.model, command=command)
    return label("tours.needs", lang).format(options=missing, command=command)
