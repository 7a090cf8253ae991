"""A published figure: the vendor's own words, the value they mean in base units, and the page.

Each figure of the target table (explorer/targets/table.py) is written once, as the page
writes it ("16 GB", "819 GBps", "197 TFLOPs"), and read into base units here (bytes,
bytes/s, FLOP/s), so a figure and its citation cannot drift apart.

Units, one rule each:
- Memory capacities are binary: memory comes in power-of-two sizes, so a vendor's "GB" for a
  capacity is read as GiB (2**30 bytes). Google's v4 page writes "32 GiB" and its v5e page
  "16 GB" for the same kind of HBM; libtpu's compile-only v5e reports 15.75 GiB of HBM
  available to a program, more than 16 decimal GB (14.9 GiB) could hold.
- Rates are decimal: "819 GBps" is 819e9 bytes/s, "1,600 Gbps" (bits) is 200e9 bytes/s.
- Compute is decimal: "197 TFLOPs" is 197e12 FLOP/s; "393 TOPs" (integer operations) the same.
- Clocks are decimal: "2.4GHz" is 2.4e9 Hz, "2500MHz" 2.5e9 Hz.

A figure no page publishes but that follows from figures that are published (Arm publishes no peak
FLOP/s for a core: it is cores x clock x pipes x lanes x 2) is `derived`: its words are the arithmetic
itself, and its source the page that gives the factor the other pages do not (the pipe count).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """A public page figures were read from. `title` is how a note or pane cites it."""

    title: str
    url: str


@dataclass(frozen=True)
class Figure:
    """One published figure: `value` in base units, `published` as the page writes it."""

    value: float
    published: str
    source: Source
    derived: bool = False  # `published` is the arithmetic from published factors, not a page's words

    @property
    def citation(self) -> str:
        """The page's words, who wrote them and where: `"16 GB", Google Cloud TPU documentation, TPU v5e
        system architecture, https://cloud.google.com/tpu/docs/v5e`; a derived figure says so and shows
        its arithmetic."""
        if self.derived:
            return f"derived, not published: {self.published}; {self.source.title}, {self.source.url}"
        return f'"{self.published}", {self.source.title}, {self.source.url}'


_CAPACITY_UNITS = {"KB": 2**10, "KiB": 2**10, "MB": 2**20, "MiB": 2**20, "GB": 2**30, "GiB": 2**30}
_RATE_UNITS = {"GBps": 1e9, "GB/s": 1e9, "TB/s": 1e12, "Gbps": 1e9 / 8}
_COMPUTE_UNITS = {"TFLOPs": 1e12, "TFLOPS": 1e12, "teraFLOPS": 1e12, "teraflops": 1e12, "TOPs": 1e12,
                  "TOPS": 1e12}
_CLOCK_UNITS = {"GHz": 1e9, "MHz": 1e6}
_NUMBER_AND_UNIT = re.compile(r"^([\d,]+(?:\.\d+)?)\s*(\S+)")


def capacity(published: str, source: Source) -> Figure:
    """A memory size as published ("16 GB", "50 MB") in bytes, binary (see the module's units)."""
    return _read(published, source, _CAPACITY_UNITS)


def rate(published: str, source: Source) -> Figure:
    """A bandwidth as published ("819 GBps", "3.35TB/s", "1,600 Gbps") in bytes per second."""
    return _read(published, source, _RATE_UNITS)


def compute(published: str, source: Source) -> Figure:
    """A peak as published ("197 TFLOPs", "67 teraFLOPS", "393 TOPs") in operations per second."""
    return _read(published, source, _COMPUTE_UNITS)


def clock(published: str, source: Source) -> Figure:
    """A clock rate as published ("2.4GHz", "2500MHz") in Hz."""
    return _read(published, source, _CLOCK_UNITS)


def derived(value: float, arithmetic: str, source: Source) -> Figure:
    """A figure computed from published ones: `arithmetic` shows how (its citation says it is derived)."""
    return Figure(value, arithmetic, source, derived=True)


def count(value: int, published: str, source: Source) -> Figure:
    """A number of units (cores, MXUs) and the words the page says it in ("four matrix-multiply units")."""
    return Figure(value, published, source)


def _read(published: str, source: Source, units: Mapping[str, float]) -> Figure:
    match = _NUMBER_AND_UNIT.match(published)
    if match is None or match.group(2) not in units:
        raise ValueError(f"cannot read {published!r} as one of {', '.join(units)}")
    return Figure(float(match.group(1).replace(",", "")) * units[match.group(2)], published, source)
