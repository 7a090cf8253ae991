"""The UI never loads a compiler: building the app and every screen leaves
tensorflow, keras and jax out of `sys.modules` (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import json, sys
import screens
from screens.app import _screen_factories, create_app
from screens.screenshot import render_screenshot
app = create_app()
_screen_factories()  # imports every level screen (the app imports each when first shown)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_importing_screens_loads_no_compiler():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    top = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "textual" in top  # the probe really imported the UI
    assert not top & {"tensorflow", "keras", "jax", "jaxlib", "libtpu"}
