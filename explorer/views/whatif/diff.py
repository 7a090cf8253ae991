"""Two variants of one model on one target, figure by figure: what the compiler did differently.

Pure: reads two `Bundle`s (two captures that differ in one option: `--batch`, `--dtype`, a disabled
pass ...) and says, per layer and in total, how the fusions, kernels, instructions, FLOPs, bytes,
the roofline ESTIMATE and its bound, peak memory, GPU registers and occupancy and TPU tiles moved.
Each layer's figures are its compiler's program's (`explorer.views.programs`, what `tensorweg
compare` shows); fusions are matched across the variants by the layers they compute (the cross-level
index), never by name: XLA numbers its fusions afresh in every compile.
`tensorweg diff` prints it (`explorer.views.whatif.diff_text`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from explorer.errors import TensorwegError
from explorer.model import occupancy
from explorer.model.bundle import Bundle
from explorer.targets import TARGETS
from explorer.views.compare import target_summary
from explorer.views.programs import program_for
from explorer.views.programs.target_layer import PLUMBING, TargetLayer
from explorer.views.tables import kernel
from explorer.views.whatif.quantized import Quantization, quantization

# The kinds of delta, in the order they are shown and narrated (course texts `whatif:<kind>`).
DELTA_KINDS = ("fusions", "kernels", "instructions", "flops", "bytes", "bound", "peak", "tiles",
               "registers", "occupancy")


@dataclass(frozen=True)
class VariantTotals:
    """One variant's whole model on the target; None where the capture has no such figure.

    peak_bytes: the buffer assignment's peak (XLA's live ranges, or derived from program order);
    xla_memory_analysis: `compiled.memory_analysis()` as captured (GPU/TPU), and xla_peak_bytes
    its arguments + outputs + temporaries - aliased, the figure XLA itself would allocate.
    """

    label: str
    captured: bool
    status: str
    fusions: int | None = None
    kernels: int | None = None
    instructions: int | None = None
    flops: float | None = None
    bytes_accessed: float | None = None
    estimated_seconds: float | None = None
    compute_bound: int = 0
    memory_bound: int = 0
    peak_bytes: int | None = None
    peak_source: str = ""
    xla_peak_bytes: int | None = None
    xla_memory_analysis: tuple[tuple[str, int], ...] = ()
    max_registers: int | None = None


@dataclass(frozen=True)
class LayerFigures:
    """One layer on the target in one variant. bound: the roofline bound that takes the larger part
    of the layer's estimated time ("" without an estimate); tiles: its outputs' TPU tilings;
    registers: the most any of its GPU kernels uses; occupancy: the lowest estimated fraction."""

    captured: bool
    fusions: int = 0
    kernels: int = 0
    instructions: int = 0
    flops: float = 0.0
    bytes_accessed: int = 0
    estimated_seconds: float | None = None
    bound: str = ""
    tiles: tuple[str, ...] = ()
    registers: int | None = None
    occupancy: float | None = None


@dataclass(frozen=True)
class LayerDelta:
    layer: str
    class_name: str
    before: LayerFigures
    after: LayerFigures
    changed: tuple[str, ...]  # the DELTA_KINDS whose figure differs


@dataclass(frozen=True)
class FusionChange:
    """The fusions that compute one set of layers, in each variant, where they differ in number or kind.

    before / after: `name (kind)` of each fusion computing exactly `layers`."""

    layers: tuple[str, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(frozen=True)
class VariantDiff:
    model: str
    target: str
    variants: tuple[VariantTotals, VariantTotals]
    layers: tuple[LayerDelta, ...]
    fusion_changes: tuple[FusionChange, ...]
    quantization: Quantization | None = None  # `--vary quantize=none,int8`: layers, bytes, integer dots

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of delta anywhere in the diff, in DELTA_KINDS order (what the narration explains)."""
        found = {kind for layer in self.layers for kind in layer.changed}
        before, after = self.variants
        if before.peak_bytes != after.peak_bytes:
            found.add("peak")
        return tuple(kind for kind in DELTA_KINDS if kind in found)


def variant_diff(before: tuple[str, Bundle], after: tuple[str, Bundle], target: str) -> VariantDiff:
    """(label, bundle) of each variant; raises TensorwegError when a bundle lacks the target or the
    two are captures of different models (their layers would not match)."""
    (label_a, bundle_a), (label_b, bundle_b) = before, after
    for name, bundle in ((label_a, bundle_a), (label_b, bundle_b)):
        if target not in bundle.targets:
            raise TensorwegError(f"{name}: no {target} in this capture (it has {', '.join(bundle.targets) or 'none'})")
    names_a = [layer.name for layer in bundle_a.layers]
    if names_a != [layer.name for layer in bundle_b.layers]:
        raise TensorwegError(f"{label_a} and {label_b} are captures of different models: their layers differ")
    # Each layer's program read once per variant: the figures and the fusion matching both use it
    # (reading a ResNet50 layer twice was a third of the diff screen's wait).
    found_a, found_b = _target_layers(bundle_a, target), _target_layers(bundle_b, target)
    layers = tuple(_layer_delta(record.name, record.class_name, bundle_a, bundle_b, target, found_a, found_b)
                   for record in bundle_a.layers)
    return VariantDiff(
        model=bundle_a.model_name, target=target,
        variants=(variant_totals(label_a, bundle_a, target), variant_totals(label_b, bundle_b, target)),
        layers=layers, fusion_changes=_changes(_groups(found_a), _groups(found_b)),
        quantization=quantization(bundle_a, bundle_b, target))


def _target_layers(bundle: Bundle, target: str) -> dict[str, TargetLayer]:
    program = program_for(bundle, target)
    return {record.name: program.target_layer(record.name) for record in bundle.layers}


# --- whole model ---------------------------------------------------------------------------------


def variant_totals(label: str, bundle: Bundle, target: str) -> VariantTotals:
    summary = target_summary(bundle, target)
    if not summary.captured:
        return VariantTotals(label, False, summary.status)
    memory = bundle.memory(target) if bundle.status("memory", target).status == "ok" else None
    analysis = memory.analysis if memory is not None else ()
    return VariantTotals(
        label=label, captured=True, status=summary.status, fusions=summary.fusion_count,
        kernels=summary.kernel_count, instructions=_instruction_count(bundle, target), flops=summary.flops,
        bytes_accessed=summary.bytes_accessed, estimated_seconds=summary.estimated_seconds,
        compute_bound=summary.compute_bound, memory_bound=summary.memory_bound,
        peak_bytes=summary.peak_memory_bytes, peak_source=summary.peak_memory_source,
        xla_peak_bytes=xla_peak(analysis), xla_memory_analysis=analysis,
        max_registers=max((k.ptxas.registers for k in bundle.kernels(target) if k.ptxas is not None), default=None)
        if bundle.status("kernels", target).status == "ok" else None)


def xla_peak(analysis: tuple[tuple[str, int], ...]) -> int | None:
    """memory_analysis's arguments + outputs + temporaries - aliased; None when not reported."""
    figures = dict(analysis)
    parts = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes")
    if not all(part in figures for part in parts):
        return None
    return sum(figures[part] for part in parts) - figures.get("alias_size_in_bytes", 0)


def _instruction_count(bundle: Bundle, target: str) -> int | None:
    """The optimized entry computation's instructions that do work (no parameters, views, constants)."""
    module = bundle.hlo_module(target, optimized=True)
    if module is None or module.entry is None:
        return None
    return sum(1 for i in module.entry.instructions if i.opcode not in PLUMBING)


# --- per layer -----------------------------------------------------------------------------------


def _layer_delta(layer: str, class_name: str, bundle_a: Bundle, bundle_b: Bundle, target: str,
                 found_a: dict[str, TargetLayer], found_b: dict[str, TargetLayer]) -> LayerDelta:
    before = _figures(bundle_a, found_a[layer], target)
    after = _figures(bundle_b, found_b[layer], target)
    pairs = {"fusions": (before.fusions, after.fusions), "kernels": (before.kernels, after.kernels),
             "instructions": (before.instructions, after.instructions), "flops": (before.flops, after.flops),
             "bytes": (before.bytes_accessed, after.bytes_accessed), "bound": (before.bound, after.bound),
             "tiles": (before.tiles, after.tiles), "registers": (before.registers, after.registers),
             "occupancy": (before.occupancy, after.occupancy)}
    changed = tuple(kind for kind, (a, b) in pairs.items() if a != b) if before.captured and after.captured else ()
    return LayerDelta(layer, class_name, before, after, changed)


def layer_figures(bundle: Bundle, layer: str, target: str) -> LayerFigures:
    return _figures(bundle, program_for(bundle, target).target_layer(layer), target)


def _figures(bundle: Bundle, found: TargetLayer, target: str) -> LayerFigures:
    if not found.captured:
        return LayerFigures(captured=False)
    working = found.working
    registers, fractions = _gpu_figures(bundle, target, found)
    return LayerFigures(
        captured=True, fusions=len(found.fusions), kernels=len(found.kernels), instructions=len(working),
        flops=found.flops, bytes_accessed=sum(i.bytes_accessed for i in working),
        estimated_seconds=found.estimated_seconds, bound=_layer_bound(found),
        tiles=tuple(sorted({o.tiles for i in working for o in i.outputs if o.tiles})),
        registers=max(registers, default=None), occupancy=min(fractions, default=None))


def _layer_bound(found: TargetLayer) -> str:
    """The bound holding the larger share of the layer's estimated time."""
    seconds: dict[str, float] = {}  # bound -> its share (a Counter counts in whole numbers)
    for instruction in found.instructions:
        if instruction.estimate is not None:
            bound = instruction.estimate.bound
            seconds[bound] = seconds.get(bound, 0) + instruction.estimate.seconds
    return max(seconds, key=seconds.__getitem__) if seconds else ""  # the first of equal shares, as before


def _gpu_figures(bundle: Bundle, target: str, found: TargetLayer) -> tuple[list[int], list[float]]:
    """Registers per thread (ptxas) and the occupancy ESTIMATE of the layer's GPU kernels."""
    spec = TARGETS.get(target)
    registers, fractions = [], []
    for brief in found.kernels:
        record = kernel(bundle, target, brief.name)
        if record is None or record.ptxas is None:
            continue
        registers.append(record.ptxas.registers)
        estimate = occupancy.estimate(record, spec.sm_limits if spec else None)
        if estimate is not None:
            fractions.append(round(estimate.fraction, 4))
    return registers, fractions


# --- fusions matched by the layers they compute -------------------------------------------------------


def _groups(found_layers: dict[str, TargetLayer]) -> dict[tuple[str, ...], list[str]]:
    """Every fusion the index gives a layer, once, keyed by the sorted layers it computes."""
    seen: dict[str, tuple[tuple[str, ...], str]] = {}
    for name, found in found_layers.items():
        for fusion in found.fusions if found.captured else ():
            layers = tuple(sorted({name, *fusion.also_layers}))
            seen.setdefault(fusion.name, (layers, fusion.fusion_kind))
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, (layers, kind) in seen.items():
        groups.setdefault(layers, []).append(f"{name} ({kind})" if kind else name)
    return groups


def _changes(groups_a: dict[tuple[str, ...], list[str]],
             groups_b: dict[tuple[str, ...], list[str]]) -> tuple[FusionChange, ...]:
    """The layer sets whose fusions differ in number or kind between the variants."""
    changes = []
    for layers in sorted(set(groups_a) | set(groups_b)):
        before, after = groups_a.get(layers, []), groups_b.get(layers, [])
        if Counter(_kind(f) for f in before) != Counter(_kind(f) for f in after):
            changes.append(FusionChange(layers, tuple(before), tuple(after)))
    return tuple(changes)


def _kind(described: str) -> str:
    return described.rpartition("(")[2].rstrip(")") if described.endswith(")") else ""
