"""Snapshot tests of every screen at 80x24 and 120x40, fed the recorded bundle.

Deterministic by configuration: fixed terminal size, animation_level "none",
the textual-dark theme, no clock on screen, no blinking cursor, no toasts
(no test here descends, which is what raises notifications). Each test's
docstring says what a reviewer should see in the SVG.
Update with `pytest tests/test_screens_snapshots.py --snapshot-update` and look
at the pictures before committing them.
"""

from __future__ import annotations

import shutil

import pytest

from explorer.session.events import CaptureFailed, LevelCaptured, LevelStarted

from screens.app import create_app

from pilot_support import BUNDLE, needs_bundle, opened

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
pytestmark = needs_bundle


@SIZES
def test_layers_with_drawn_neighbourhood(snap_compare, size):
    """Layers list with conv2d selected; below it the drawn graph (image -> conv2d -> max_pooling2d,
    conv2d double-lined and scrolled to the middle of the pane: at 80x24 the pane shows six rows, so
    the arrow from image and conv2d's box show, image's box above is out of view); side panes:
    conv2d's shapes and bytes, CPU mapping (convolution.1, fusion),
    the Conv2D explanation."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    assert snap_compare(app, press=["g"], run_before=opened, terminal_size=size)


@SIZES
def test_graph_ops(snap_compare, size):
    """TF graph ops with mnist_cnn_1/conv2d_1/convolution (Conv2D) selected; layer column says conv2d."""
    app = create_app(BUNDLE, level="graph", target="cpu", select="mnist_cnn_1/conv2d_1/convolution")
    assert snap_compare(app, run_before=opened, terminal_size=size)


@SIZES
def test_hlo(snap_compare, size):
    """HLO before optimisation on cpu: convolution.1 selected in the list and highlighted in the
    module text; memory pane shows f32[1,26,26,8] with byte strides and no padding."""
    app = create_app(BUNDLE, level="hlo", target="cpu", select="convolution.1")
    assert snap_compare(app, run_before=opened, terminal_size=size)


@SIZES
def test_optimized_hlo_on_tpu(snap_compare, size):
    """Optimized HLO for tpu:v5e: fusion.11 (the conv's kOutput fusion) selected; its line is
    highlighted; memory pane shows the T(8,128) tiling with padded bytes; the TPU tab is open; the
    explanation is the kOutput fusion's own text ("Output fusion (kOutput)"), not the generic one."""
    app = create_app(BUNDLE, level="optimized-hlo", target="tpu:v5e", select="fusion.11")
    assert snap_compare(app, run_before=opened, terminal_size=size)


@SIZES
def test_kernels(snap_compare, size):
    """CPU kernels: broadcast_maximum_fusion selected, its code (assembly when recorded) below with
    line numbers; memory pane shows vector width and the buffer it writes."""
    app = create_app(BUNDLE, level="kernels", target="cpu", select="broadcast_maximum_fusion")
    assert snap_compare(app, run_before=opened, terminal_size=size)


@SIZES
def test_memory_map(snap_compare, size):
    """Memory map for cpu: 18 allocations as bars by size (parameter #0 longest), then live ranges
    over program order ending in the '^ peak' marker (scroll at 80x24)."""
    app = create_app(BUNDLE, level="memory", target="cpu")
    assert snap_compare(app, run_before=opened, terminal_size=size)


@SIZES
def test_help(snap_compare, size):
    """Help over the HLO screen: what level 3 is, then every key with its description and tooltip."""
    app = create_app(BUNDLE, level="hlo", target="cpu")
    assert snap_compare(app, press=["question_mark"], run_before=opened, terminal_size=size)


@SIZES
def test_loading_state(snap_compare, size):
    """A capture in progress (messages as the worker posts them): layers and graph running, the
    notice 'Capturing Keras layers for cpu...', an empty list, the progress line at the bottom
    ('capture: 0 ok  layers ..  graph ..', one line)."""
    app = create_app(None, model_spec=None, level="layers", target="cpu")

    async def progress(pilot):
        app.deliver(LevelStarted("layers", ""))
        app.deliver(LevelStarted("graph", ""))
        await pilot.pause()

    assert snap_compare(app, run_before=progress, terminal_size=size)


@SIZES
def test_failed_level(snap_compare, size, tmp_path):
    """Layers captured, HLO failed: the HLO screen says 'HLO failed for cpu: worker exited' and
    'Still usable: Keras layers'; the progress line says 'capture: 1 ok  failed: hlo@cpu'."""
    staging = tmp_path / "staging"
    staging.mkdir()
    shutil.copy(BUNDLE / "layers.json", staging / "layers.json")
    app = create_app(None, level="hlo", target="cpu")

    async def failed(pilot):
        app.deliver(LevelCaptured("layers", "", 1.0, staging))
        app.deliver(CaptureFailed("hlo", "cpu", "worker exited"))
        await pilot.pause()

    assert snap_compare(app, run_before=failed, terminal_size=size)
