"""Level 4: HLO after XLA's passes: fusions, layouts chosen, buffers assigned."""

from __future__ import annotations

from pathlib import Path

from screens.code_screen import HloCodeScreen


class OptimizedHloScreen(HloCodeScreen):
    LEVEL = "optimized-hlo"
    OPTIMIZED = True
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    HELP = (
        "Level 4, optimized HLO: after fusion and layout assignment. Instructions inside a fused "
        "computation count for the fusion that calls it. The memory pane shows the buffer each value "
        "lives in (m opens the memory map). Enter goes down to the kernel emitted for a fusion."
    )
