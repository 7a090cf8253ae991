"""One layer, or one whole model, compared across the captured targets (CPU, GPU, TPU).

Pure: reads a `Bundle` (real compiler output) and the target registry; no
compiler, no Textual. Every figure says where it comes from, and a figure the
capture does not have is `None` with the reason, never a guess:

* fusions/instructions of a layer: the top-level optimized-HLO instructions the
  cross-level index (`explorer.model.index`) assigns to it on that target;
* kernels: the target's `KernelRecord`s implementing those instructions;
* library calls: runtime symbols the kernel records name, custom-call targets
  (`__cudnn$conv...`, `__cublas$gemm`) and fusions XLA hands to Triton
  (`"kind":"__triton"` in the fusion's backend_config);
* layouts: each array output's minor-to-major order, tiles and memory space as
  the optimized HLO writes them, with bytes with and without tile padding
  (`explorer.hlo.layout_math`);
* FLOPs and time: `explorer.model.roofline`, an ESTIMATE from published peaks.

Each target's column is built by its compiler's program (`explorer.views.programs`: XLA's
from the optimized HLO, TVM's from its TIR functions); this module sets them side by side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.targets import DEFAULT_TARGETS
from explorer.views.programs import program_for
from explorer.views.programs.target_layer import (
    NOT_CAPTURED,
    TargetLayer,
    display_name,
    target_state,
)
from explorer.views.suggested import capture_hint

__all__ = ["LayerComparison", "TargetSummary", "comparison_targets", "layer_comparison", "target_layer",
           "target_summary"]


@dataclass(frozen=True)
class LayerComparison:
    model: str
    layer: str
    class_name: str
    targets: tuple[TargetLayer, ...]

    def target(self, name: str) -> TargetLayer:
        for found in self.targets:
            if found.target == name:
                return found
        raise KeyError(name)


@dataclass(frozen=True)
class TargetSummary:
    """Whole-model figures for one target; None (with a source saying why) where not captured.

    flops_source: "XLA cost analysis" or "summed from shapes" (the roofline's count).
    peak_memory_source: "xla" (XLA's own live ranges) or "derived" (from program order).
    xla_optimal_seconds: XLA's own cost-analysis time figure where it reports one
        that can be a time (positive and finite); None otherwise.
    xla_optimal_note: why XLA's figure is not shown when it reported one that is
        not physical (libtpu's compile-only cost analysis gives negative ones).
    """

    target: str
    display_name: str
    captured: bool
    status: str
    capture_hint: str = ""
    kernel_count: int | None = None
    kernels_note: str = ""
    fusion_count: int | None = None
    peak_memory_bytes: int | None = None
    peak_memory_source: str = NOT_CAPTURED
    flops: float | None = None
    flops_source: str = NOT_CAPTURED
    bytes_accessed: float | None = None
    bytes_accessed_source: str = NOT_CAPTURED
    estimated_seconds: float | None = None
    compute_bound: int = 0
    memory_bound: int = 0
    estimate_note: str = ""
    xla_optimal_seconds: float | None = None
    xla_optimal_note: str = ""


def comparison_targets(bundle: Bundle) -> tuple[str, ...]:
    """The bundle's targets, then the default targets it lacks (shown as not captured)."""
    return tuple(dict.fromkeys((*bundle.targets, *DEFAULT_TARGETS)))


# --- one layer across targets ----------------------------------------------------------------


def target_layer(bundle: Bundle, layer: str, target: str) -> TargetLayer:
    """`layer` on one target (the device pane shows one at a time), as its compiler's program reads it."""
    return program_for(bundle, target).target_layer(layer)


def layer_comparison(bundle: Bundle, layer: str) -> LayerComparison:
    """`layer` on every target of `comparison_targets(bundle)`, side by side.

    Raises TensorwegError for a layer the model does not have.
    """
    record = next((candidate for candidate in bundle.layers if candidate.name == layer), None)
    if record is None:
        known = ", ".join(candidate.name for candidate in bundle.layers) or "none captured"
        raise TensorwegError(f"no layer '{layer}' in {bundle.model_name} (layers: {known})")
    return LayerComparison(
        model=bundle.model_name, layer=layer, class_name=record.class_name,
        targets=tuple(target_layer(bundle, layer, t) for t in comparison_targets(bundle)))


# --- whole model per target -----------------------------------------------------------------


def target_summary(bundle: Bundle, target: str) -> TargetSummary:
    """Kernel and fusion counts, peak memory, FLOPs, bytes and the roofline ESTIMATE for `target`."""
    name = display_name(target)
    if target not in bundle.targets:
        return TargetSummary(target, name, False, NOT_CAPTURED, capture_hint(bundle, target))
    captured, status = target_state(bundle, target, ("optimized-hlo",))
    figures: dict = {}
    if bundle.status("kernels", target).status == "ok":
        kernels = bundle.kernels(target)
        figures["kernel_count"] = len(kernels)
        figures["kernels_note"] = next((k.notes for k in kernels if k.notes), "")
    memory = bundle.memory(target) if bundle.status("memory", target).status == "ok" else None
    if memory is not None:
        figures["peak_memory_bytes"] = memory.peak_bytes
        figures["peak_memory_source"] = memory.peak_source or "memory.json"
    cost = bundle.cost(target)
    if cost is not None:
        figures.update(flops=cost.flops, flops_source="XLA cost analysis",
                       bytes_accessed=cost.bytes_accessed, bytes_accessed_source="XLA cost analysis")
        optimal = dict(cost.extras).get("optimal_seconds")
        if optimal is not None:
            figures.update(_optimal_time(optimal))
    if captured:
        figures.update(program_for(bundle, target).summary_figures(from_shapes=cost is None))
    return TargetSummary(target, name, captured, status, "", **figures)


def _optimal_time(seconds: float) -> dict:
    """XLA's `optimal_seconds`, or a note saying why it is dropped: a run cannot take no or negative time."""
    if math.isfinite(seconds) and seconds > 0:
        return {"xla_optimal_seconds": seconds}
    return {"xla_optimal_note": f"dropped: XLA reported {seconds:.3g} s, not a possible run time"}
