"""Level 1: the Keras layers, as the model defines them.

A container (a nested model such as a keras.applications backbone, or a Sequential
block) heads its inner layers, folded when the list opens; `o` (or space) opens and
folds it. Its inner layers are rows of their own: Enter on one goes down to what
implements that layer alone, and the selection stays when the learner comes back.
"""

from __future__ import annotations

from screens.bindings import keyed
from screens.drawn_graph_view import DrawnGraphView


class LayersView(DrawnGraphView):
    LEVEL = "layers"
    BINDINGS = [
        keyed("o", "open_container", "layers.open"),
    ]

    def check_action(self, action: str, _parameters: tuple[object, ...]) -> bool | None:
        # Only a model with containers has anything to open: the key is not offered otherwise.
        if action == "open_container":
            return bool(self.query("#items")) and bool(self.items_table.groups)
        return True

    def action_open_container(self) -> None:
        """Open or fold the container at the cursor (the one the cursor's row is inside)."""
        self.items_table.action_toggle_group()
