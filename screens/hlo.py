"""Level 3: HLO as XLA received it, before any optimisation pass."""

from __future__ import annotations

from screens.hlo_code_view import HloCodeView


class HloView(HloCodeView):
    LEVEL = "hlo"
    OPTIMIZED = False
