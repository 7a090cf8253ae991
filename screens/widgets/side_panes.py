"""The three side panes beside every level's list, in one import: a level screen loads them when it
first builds its panes (the app's first screen after its rows are on screen, `LevelScreen`)."""

from screens.widgets.device_pane import DevicePane
from screens.widgets.explanation_pane import ExplanationPane
from screens.widgets.memory_pane import MemoryPane

__all__ = ["DevicePane", "ExplanationPane", "MemoryPane"]
