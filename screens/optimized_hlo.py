"""Level 4: HLO after XLA's passes: fusions, layouts chosen, buffers assigned."""

from __future__ import annotations

from screens.hlo_code_view import HloCodeView


class OptimizedHloView(HloCodeView):
    LEVEL = "optimized-hlo"
    OPTIMIZED = True
