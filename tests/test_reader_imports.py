"""The start's cached path stays light: reading a cached model's first screen (the open worker's
`ready_cached_bundle`, `Bundle.open`, `build_trace`, the layers' `level_rows`) runs beside Textual
building that screen, and every module it imports competes with it for the interpreter. Checked in a
fresh interpreter: none of what only a capture, a later level or the warm-up after the rows needs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from explorer.capture.cache import cached_bundle_path
from explorer.capture.model_source import resolve
from explorer.model.records import CaptureOptions

from pilot_support import BUNDLE, needs_bundle

pytestmark = needs_bundle

TARGETS = ("cpu", "gpu:h100", "tpu:v5e")

FIRST_SCREEN = r"""
import json, sys
from explorer.capture.ready_bundle import ready_cached_bundle
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions
from explorer.views.trace import build_trace
from explorer.views.warm import level_rows
path = ready_cached_bundle("mnist_cnn", CaptureOptions(targets=tuple(sys.argv[1].split(","))))
bundle = Bundle.open(path)
build_trace(bundle)
rows = level_rows(bundle, "layers", "cpu", "en")
print(json.dumps({"path": str(path), "rows": [item.name for item in rows.items], "modules": sorted(sys.modules)}))
"""

# Off the cached path: the package metadata reader (and the email parser behind it: the versions in
# the cache key come from dist-info folder names), the SASS tools and the capture machinery, the
# HLO parser, data model and scanner (loaded with the first module a screen asks for), a training
# step's tables, TVM's program (mnist_cnn has no TVM target), and the XLA program's views (the layers
# level lists no program).
OFF_THE_PATH = ("importlib.metadata", "email", "concurrent.futures", "subprocess",
                "explorer.capture.sass", "explorer.capture.gpu_dump", "explorer.capture.orchestrator",
                "explorer.capture.protocol", "explorer.capture.growth",
                "explorer.hlo.parser", "explorer.hlo.model", "explorer.hlo.scan", "explorer.model.training",
                "explorer.model.tvm_program",
                "explorer.views.programs.xla", "explorer.views.programs.target_layer", "explorer.views.panes")


def test_reading_a_cached_first_screen_imports_nothing_it_does_not_use():
    path = cached_bundle_path(resolve("mnist_cnn"), CaptureOptions(targets=TARGETS))
    shutil.copytree(BUNDLE, path)
    result = subprocess.run([sys.executable, "-c", FIRST_SCREEN, ",".join(TARGETS)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    read = json.loads(result.stdout.strip().splitlines()[-1])
    assert read["path"] == str(path)  # the probe found the cached bundle: the same key in both interpreters
    assert read["rows"]  # and read the layers' rows
    loaded = set(read["modules"])
    assert sorted(name for name in OFF_THE_PATH if name in loaded) == []


DEVICE_PANE = r"""
import json, sys
from explorer.model.bundle import Bundle
from explorer.views.panes import device_lines
bundle = Bundle.open(sys.argv[1])
lines = device_lines(bundle, "layers", "conv2d", "cpu", "cpu")
print(json.dumps({"lines": list(lines), "modules": sorted(sys.modules)}))
"""


def test_the_first_screens_device_pane_loads_no_graph():
    """The device pane of a layer reads the target's program, not its graph (a picture's) nor the
    comparison of all targets: those modules' classes cost the first screen some 15 ms."""
    result = subprocess.run([sys.executable, "-c", DEVICE_PANE, str(BUNDLE)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    read = json.loads(result.stdout.strip().splitlines()[-1])
    assert any("convolution" in line for line in read["lines"]), read["lines"]
    loaded = set(read["modules"])
    assert sorted(name for name in ("explorer.views.programs.xla_graph", "explorer.views.graphs.parts",
                                    "explorer.views.graphs", "explorer.views.compare") if name in loaded) == []
