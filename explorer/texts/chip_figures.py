"""The figures of the selected chip that course texts quote, by target name.

Texts for a target family (`hlo:dot@tpu`) are shared by every generation of it, so
they write the figures as placeholders (`{hbm_capacity}`, `{mxu_count}`, ...) and
`explorer.texts.lookup.explain` fills them for the selected target (`tpu:v6e`).
A figure a vendor does not publish is simply absent: the sentence that needs it is
dropped (see `lookup.fill_placeholders`), never guessed.

Bandwidth and peak compute come from `explorer.targets` (one definition, also used
by the roofline); capacities and unit counts the roofline does not need live here,
each with the vendor page it was read from (docs/course-sources.md records the check).
"""

from __future__ import annotations

from explorer.labels.numbers import number
from explorer.targets import TARGETS, TargetSpec

# Per-chip figures that explorer.targets does not hold. Sources:
# TPU: Google Cloud TPU system architecture pages (v4, v5e, v5p, v6e);
# GPU: NVIDIA H100 / A100 datasheets (capacity, memory type).
_EXTRA: dict[str, dict[str, object]] = {
    # https://cloud.google.com/tpu/docs/v4: two TensorCores per chip, four MXUs each; 32 GiB HBM2.
    "tpu:v4": {"chip": "TPU v4", "hbm_capacity": "32 GiB", "hbm_kind": "HBM2", "tensorcores": 2, "mxu_count": 4,
               "mxu_size": "128 × 128"},
    # https://cloud.google.com/tpu/docs/v5e: one TensorCore, four MXUs; 16 GB HBM2.
    "tpu:v5e": {"chip": "TPU v5e", "hbm_capacity": "16 GB", "hbm_kind": "HBM2", "tensorcores": 1, "mxu_count": 4,
                "mxu_size": "128 × 128"},
    # https://cloud.google.com/tpu/docs/v5p: four MXUs per TensorCore; 95 GB HBM2e.
    # (The page gives no TensorCore count per chip, so none is quoted.)
    "tpu:v5p": {"chip": "TPU v5p", "hbm_capacity": "95 GB", "hbm_kind": "HBM2e", "mxu_count": 4,
                "mxu_size": "128 × 128"},
    # https://cloud.google.com/tpu/docs/v6e: one TensorCore with two 256x256 MXUs; 32 GB HBM.
    "tpu:v6e": {"chip": "TPU v6e", "hbm_capacity": "32 GB", "hbm_kind": "HBM", "tensorcores": 1, "mxu_count": 2,
                "mxu_size": "256 × 256"},
    # https://www.nvidia.com/en-us/data-center/h100/ (SXM5): 80 GB HBM3.
    "gpu:h100": {"chip": "H100 SXM", "hbm_capacity": "80 GB", "hbm_kind": "HBM3"},
    # https://www.nvidia.com/en-us/data-center/a100/ (SXM4 40GB): 40 GB HBM2.
    "gpu:a100": {"chip": "A100 SXM4 40GB", "hbm_capacity": "40 GB", "hbm_kind": "HBM2"},
}


def chip_figures(target: str, lang: str = "en") -> dict[str, object]:
    """Placeholder values for `target` (e.g. "tpu:v5e") in `lang`'s number format;
    {} for a target without published figures (`cpu`, `gpu:local`)."""
    spec = TARGETS.get(target)
    if spec is None or target not in _EXTRA:
        return {}
    figures: dict[str, object] = {"target": spec.name}
    if spec.memory_bandwidth:
        figures["hbm_bandwidth"] = format_bandwidth(spec.memory_bandwidth, lang)
    figures.update(_peak_figures(spec, lang))
    device_info = dict(spec.gpu_device_info)
    if "core_count" in device_info:
        figures["sm_count"] = int(device_info["core_count"])
    if "l2_cache_size" in device_info:
        figures["l2_size"] = f"{int(device_info['l2_cache_size']) // 2**20} MiB"
    if "shared_memory_per_core" in device_info:
        figures["shared_memory_per_sm"] = f"{int(device_info['shared_memory_per_core']) // 2**10} KiB"
    figures.update(_EXTRA.get(target, {}))
    if "tensorcores" in figures:
        figures["tensorcore_count"] = _COUNTED_TENSORCORES[lang][int(figures["tensorcores"])]
    return figures


# "one TensorCore" reads better than "1 TensorCore(s)"; German needs the accusative.
_COUNTED_TENSORCORES = {
    "en": {1: "one TensorCore", 2: "two TensorCores"},
    "de": {1: "einen TensorCore", 2: "zwei TensorCores"},
}


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
        unit = "TOPS" if dtype.startswith("int") else "TFLOP/s"
        peaks[f"peak_{dtype}"] = f"{_decimal(flops / 1e12, lang)} {unit}"
    return peaks
