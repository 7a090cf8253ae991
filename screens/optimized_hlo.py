"""Level 4: HLO after XLA's passes: fusions, layouts chosen, buffers assigned."""

from __future__ import annotations

from pathlib import Path

from screens.code_screen import HloCodeScreen


class OptimizedHloScreen(HloCodeScreen):
    LEVEL = "optimized-hlo"
    OPTIMIZED = True
    CSS_PATH = Path(__file__).with_suffix(".tcss")
