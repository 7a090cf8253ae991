"""The figures of the selected chip that course texts quote, by target name.

Texts for a target family (`hlo:dot@tpu`) are shared by every generation of it, so
they write the figures as placeholders (`{hbm_capacity}`, `{mxu_count}`, ...) and
`explorer.texts.lookup.explain` fills them for the selected target (`tpu:v6e`).
A figure a vendor does not publish is simply absent: the sentence that needs it is
dropped (see `lookup.fill_placeholders`), never guessed.

Every figure comes from the target's row in `explorer.targets` (one definition, also used by
the roofline and the mesh panes, each figure with the page it was read from); this module
only formats them for a text.
"""

from __future__ import annotations

from explorer.labels.numbers import number
from explorer.targets import TARGETS, TargetSpec
from explorer.targets.spec import Chip


def chip_figures(target: str, lang: str = "en") -> dict[str, object]:
    """Placeholder values for `target` (e.g. "tpu:v5e") in `lang`'s number format;
    {} for a target without published figures (`cpu`, `gpu:local`)."""
    spec = TARGETS.get(target)
    if spec is None or spec.chip is None:
        return {}
    chip = spec.chip
    figures: dict[str, object] = {"target": spec.name, "chip": chip.name, "hbm_kind": chip.memory.kind,
                                  "hbm_bandwidth": format_bandwidth(spec.memory_bandwidth, lang)}
    if chip.memory.capacity is not None:  # an ARM board is sold in several sizes: no one figure
        figures["hbm_capacity"] = format_capacity(chip.memory.capacity.value)
    figures.update(_peak_figures(spec, lang))
    figures.update(_unit_figures(spec.kind, chip, lang))
    return figures


def _unit_figures(kind: str, chip: Chip, lang: str) -> dict[str, object]:
    """The chip's units as its family's texts name them: TensorCores and MXUs, or SMs and their memories."""
    figures: dict[str, object] = {}
    if chip.cores is not None and kind == "tpu":
        figures["tensorcore_count"] = _COUNTED_TENSORCORES[lang][int(chip.cores.value)]
    if chip.cores is not None and kind == "gpu":
        figures["sm_count"] = int(chip.cores.value)
    if chip.matrix_units is not None:
        figures["mxu_count"] = int(chip.matrix_units.value)
    if chip.matrix_unit_size is not None:
        side = int(chip.matrix_unit_size.value)
        figures["mxu_size"] = f"{side} × {side}"
    if chip.l2_cache is not None:
        figures["l2_size"] = format_capacity(chip.l2_cache.value)
    if chip.shared_memory_per_core is not None:
        figures["shared_memory_per_sm"] = format_capacity(chip.shared_memory_per_core.value)
    # A CPU board: its cores, their clock and the SIMD width (NEON: 128 bits, 4 f32 lanes), each as published.
    if chip.cores is not None and kind == "cpu":
        figures["core_count"] = int(chip.cores.value)
    if chip.clock is not None and kind == "cpu":
        figures["clock"] = format_clock(chip.clock.value, lang)
    if chip.vector_width is not None and kind == "cpu":
        figures["simd_bits"] = int(chip.vector_width.value)
        figures["simd_f32_lanes"] = int(chip.vector_width.value) // 32
    return figures


# "one TensorCore" reads better than "1 TensorCore(s)"; German needs the accusative.
_COUNTED_TENSORCORES = {
    "en": {1: "one TensorCore", 2: "two TensorCores"},
    "de": {1: "einen TensorCore", 2: "zwei TensorCores"},
}


def format_capacity(size: float) -> str:
    """A memory size in whole binary units, as capacities are (explorer.targets.figures):
    16 * 2**30 -> "16 GiB", 50 * 2**20 -> "50 MiB"."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def format_clock(hertz: float, lang: str = "en") -> str:
    """2.4e9 -> "2.4 GHz" ("2,4 GHz" in German)."""
    return f"{_decimal(hertz / 1e9, lang)} GHz"


def format_bandwidth(bytes_per_second: float, lang: str = "en") -> str:
    """819e9 -> "819 GB/s", 2.765e12 -> "2.765 TB/s" ("2,765 TB/s" in German)."""
    if bytes_per_second >= 1e12:
        return f"{_decimal(bytes_per_second / 1e12, lang)} TB/s"
    return f"{_decimal(bytes_per_second / 1e9, lang)} GB/s"


def _decimal(value: float, lang: str) -> str:
    """Up to three decimals, trailing zeros dropped, thousands grouped, in the language's separators."""
    return number(value, ",.3f", lang).rstrip("0").rstrip(".,")  # all decimals zero: their separator too


def _peak_figures(spec: TargetSpec, lang: str) -> dict[str, object]:
    peaks: dict[str, object] = {}
    for dtype, flops in spec.peak_flops:
        scale, prefix = (1e12, "T") if flops >= 1e12 else (1e9, "G")  # an ARM board's peaks are GFLOP/s
        unit = f"{prefix}OPS" if dtype.startswith("int") else f"{prefix}FLOP/s"
        peaks[f"peak_{dtype}"] = f"{_decimal(flops / scale, lang)} {unit}"
    return peaks
