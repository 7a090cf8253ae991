"""Level 3: HLO as XLA received it, before any optimisation pass."""

from __future__ import annotations

from pathlib import Path

from screens.code_screen import HloCodeScreen


class HloScreen(HloCodeScreen):
    LEVEL = "hlo"
    OPTIMIZED = False
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    HELP = (
        "Level 3, HLO: XLA's input program. Each TF op became one or more HLO instructions; the "
        "op_name column names the op (and so the layer) it came from. Enter goes down to the "
        "optimized instruction (usually a fusion) that now computes it; o follows an operand."
    )
