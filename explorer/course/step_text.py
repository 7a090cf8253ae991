"""A tour step's text with the learner's own capture in it (docs/tours.md, "Figures from the capture").

A `text:` may quote `{name}` for the figures in `TEXT_FIGURES`: the selected item's figures that fill
the course texts' placeholders (`explorer.views.explain.figures`: `{bytes}`, `{padding_bytes}`,
`{vector_width_bits}`), and `{vector_register}`, the widest vector register the kernel computing the
item uses (x86: `xmm`, `ymm` or `zmm`). A lesson written on an AVX2 machine says `ymm`; the same step on
an AVX-512 machine's capture says `zmm`, because the name is read from that capture, never from the
lesson. A sentence whose figure this capture lacks is left out, as in the course texts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.course.lessons import resolve_tour_step
from explorer.levels import level_named
from explorer.texts.lookup import fill_placeholders
from explorer.views.explain import figures
from explorer.views.passport import kernel_of
from explorer.views.passport.output import output_tensor
from explorer.views.tables import kernel

if TYPE_CHECKING:
    from explorer.course.tours import TourStep
    from explorer.model.bundle import Bundle
    from explorer.model.records import KernelRecord


def step_text(bundle: Bundle | None, step: TourStep, lang: str) -> str:
    """The step's text with the figures of the item it selects in `bundle` filled in."""
    if "{" not in step.text:
        return step.text
    selected = resolve_tour_step(bundle, step) if bundle is not None else None
    return fill_placeholders(step.text, step_figures(bundle, step, selected), lang)


def step_figures(bundle: Bundle | None, step: TourStep, selected: str | None) -> dict[str, object]:
    """The figures a step's text may quote, for its selected item on its target (absent ones left out)."""
    if bundle is None or not selected:
        return {}
    found: dict[str, object] = dict(figures(bundle, step.level, step.target, selected))
    record = _kernel_computing(bundle, step, selected)
    if record is not None and record.vector_registers:
        # `vector_registers` is ordered narrow to wide (explorer.capture.disassembly.vector_registers).
        found["vector_register"] = record.vector_registers[-1].rstrip("0123456789")
    return found


def _kernel_computing(bundle: Bundle, step: TourStep, selected: str) -> KernelRecord | None:
    """The kernel that computes the item: itself on the kernels level; for a layer, the kernel of its
    output tensor (the one its passport follows); for an optimized instruction, the kernel naming it."""
    level = level_named(step.level)
    if level.lists_kernels:
        return kernel(bundle, step.target, selected)
    if step.target not in bundle.targets or not (level.lists_layers or level.optimized):
        return None
    tensor = output_tensor(bundle, step.target, selected).name if level.lists_layers else selected
    return kernel_of(bundle, step.target, tensor) if tensor else None
