"""Level 3: HLO as XLA received it, before any optimisation pass."""

from __future__ import annotations

from pathlib import Path

from screens.code_screen import HloCodeScreen


class HloScreen(HloCodeScreen):
    LEVEL = "hlo"
    OPTIMIZED = False
    CSS_PATH = Path(__file__).with_suffix(".tcss")
