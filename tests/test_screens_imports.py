"""The UI never loads a compiler: building the app and every screen leaves
tensorflow, keras and jax out of `sys.modules` (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import json, sys
import screens
from explorer.levels import LEVELS
from screens.app import create_app
from screens.explorer_screen import view_class
from screens.screenshot import render_screenshot
app = create_app()
for level in LEVELS:  # imports every level's view (the app imports each when first shown)
    view_class(level)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_importing_screens_loads_no_compiler():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    top = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "textual" in top  # the probe really imported the UI
    assert not top & {"tensorflow", "keras", "jax", "jaxlib", "libtpu"}


# What the first frame must not wait for: each is imported inside the function that first needs it
# (the parser and the index with the bundle, in the open worker; Pygments with the first code shown;
# grandalf with the first graph drawn; pydot with the first graph written; aiohttp for `serve`; the
# orchestrator with a capture; Markdown with the first selection's panes; a layout map's TOML with
# --layout-map; TVM's program with a TVM target).
HEAVY = ("tensorflow", "keras", "jax", "numpy", "pygments", "grandalf", "pydot", "aiohttp", "textual_serve",
         "explorer.hlo.parser", "explorer.model.index_build", "explorer.capture.orchestrator",
         "explorer.views.panes", "explorer.views.explain", "explorer.views.compare", "rich.markdown",
         "tomllib", "explorer.capture.layout_map", "explorer.views.programs.tvm")

FIRST_FRAME = r"""
import json, sys
from screens.cli import main  # the console script's module
from screens.app import create_app
from screens.explorer_screen import view_class
app = create_app(sys.argv[1], level="optimized-hlo", target="cpu")  # what `tensorweg BUNDLE` builds
for level in ("optimized-hlo", "layers"):  # the first view's module, imported as Textual builds it
    view_class(level)
print(json.dumps(sorted(sys.modules)))
"""


def test_the_first_frame_imports_no_heavy_module():
    """The imports kept inside functions for start-up time stay there: building the app that paints the
    first frame loads none of the modules that only a later step needs."""
    from pilot_support import BUNDLE

    result = subprocess.run([sys.executable, "-c", FIRST_FRAME, str(BUNDLE)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "screens.app" in loaded  # the probe really built the app
    assert sorted(name for name in HEAVY if name in loaded) == []
