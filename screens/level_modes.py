"""The level screens as the app's modes: which class draws each level, and the style sheets.

A level's screen module is imported when the level is first shown (start-up: only the first
level's screen is on the first frame's path); its sheet is its module's name with `.tcss`.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

CSS_DIR = Path(__file__).parent

# mode -> (module, class) of its screen; a screen's module is imported when it is first shown.
SCREENS = {
    "layers": ("screens.layers", "LayersScreen"), "graph": ("screens.graph", "GraphScreen"),
    "hlo": ("screens.hlo", "HloScreen"), "optimized-hlo": ("screens.optimized_hlo", "OptimizedHloScreen"),
    "kernels": ("screens.kernels", "KernelsScreen"), "memory": ("screens.memory_map", "MemoryMapScreen"),
}


def level_sheets(modes) -> list[Path]:
    """The level screens' own sheets (each screen's CSS_PATH: its module's name, `.tcss`)."""
    return [CSS_DIR / f"{SCREENS[mode][0].rsplit('.', 1)[1]}.tcss" for mode in modes if mode in SCREENS]


# Every level's sheet, and those of the screens pushed over a level (x, f, D, ?, G, T).
OTHER_SHEETS = (*level_sheets(SCREENS), *(CSS_DIR / f"{name}.tcss" for name in ("compare", "passes", "mesh", "help",
                                                                             "glossary", "tour", "passport",
                                                                             "source")))


def screen_class(mode: str) -> type:
    module, name = SCREENS[mode]
    return getattr(import_module(module), name)
