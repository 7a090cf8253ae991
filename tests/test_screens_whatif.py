"""The what-if screen (`V`): Pilot tests of its state and keys, and snapshots at 80x24 and 120x40.

Fed the recorded variant bundles tests/fixtures/bundles/variants (mnist_cnn on XLA:CPU: batch 1 and 64,
bfloat16, the fusion pass off), the last three placed in a capture cache of their own. Update the
snapshots with `pytest tests/test_screens_whatif.py --snapshot-update` and look at the pictures first.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from screens.app import create_app
from screens.compare import CompareScreen
from screens.fusion_pair import FusionPairScreen
from screens.variant_diff import WhatIfScreen

from pilot_support import open_by_key, sync
from tests.conftest import FIXTURES

VARIANTS = FIXTURES / "bundles" / "variants"
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@pytest.fixture
def cached_variants(tmp_path, monkeypatch):
    """A capture cache holding batch64, bfloat16 and no_fusion, as `tensorweg diff` would leave it."""
    bundles = tmp_path / "cache" / "bundles"
    bundles.mkdir(parents=True)
    for name in ("batch64", "bfloat16", "no_fusion"):
        (bundles / name).symlink_to(VARIANTS / name, target_is_directory=True)
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))


def text_of(screen, selector: str, width: int = 200) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(screen.query_one(selector).content)
    return console.export_text()


@sync
async def test_v_shows_the_selected_layer_beside_each_cached_variant(cached_variants):
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        title = text_of(screen, "#whatif-title")
        assert "this capture vs batch 64" in title
        layer = text_of(screen, "#whatif-layer")
        assert "conv2d" in layer and "batch 64" in layer
        assert "▁" in text_of(screen, "#whatif-skyline")  # both skylines drawn on one scale
        assert "weights" in text_of(screen, "#whatif-skyline")  # buffers at the peak by role
        await pilot.press("v")
        await pilot.pause()
        assert "dtype bfloat16" in text_of(screen, "#whatif-title")
        await pilot.press("v")
        await pilot.pause()
        assert "xla_disable_hlo_passes=fusion" in text_of(screen, "#whatif-title")
        assert "wrapped_" in text_of(screen, "#whatif-fusions")  # the unfused ops, matched to conv2d
        assert "Fusions changed" in text_of(screen, "#whatif-why")
        await pilot.press("n")
        await pilot.pause()
        assert screen.layer_name == "max_pooling2d"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WhatIfScreen)


@sync
async def test_enter_shows_a_changed_fusion_in_both_variants_side_by_side(cached_variants):
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        await pilot.press("v", "v")  # batch 64, dtype bfloat16, then the fusion pass off
        await pilot.pause()
        fusions = text_of(screen, "#whatif-fusions")
        assert "> conv2d: broadcast_maximum_fusion (kLoop)" in fusions  # the selected layer's comes first
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert "> dense:" in text_of(screen, "#whatif-fusions")
        await pilot.press("left_square_bracket", "enter")
        await pilot.pause()
        assert isinstance(app.screen, FusionPairScreen)
        left, right = (text_of(app.screen, f"#pair-{n} .pair-code") for n in (0, 1))
        assert left.startswith("%broadcast_maximum_fusion = ") and "fused_computation" in left
        assert right.startswith("%wrapped_") and "%wrapped_maximum = " in right
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


@sync
async def test_v_with_one_other_variant_says_there_is_nothing_to_switch_to(tmp_path, monkeypatch):
    """Issue 39: `v` with one other variant cached did nothing, silently."""
    bundles = tmp_path / "cache" / "bundles"
    bundles.mkdir(parents=True)
    (bundles / "batch64").symlink_to(VARIANTS / "batch64", target_is_directory=True)
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        assert "only other variant" not in text_of(screen, "#whatif-title")
        await pilot.press("v")
        await pilot.pause()
        title = text_of(screen, "#whatif-title")
        assert "this capture vs batch 64" in title
        assert "This is the only other variant in the cache" in title
        assert "tensorweg diff mnist_cnn --vary batch=1,64 --target cpu" in title


@sync
async def test_without_another_variant_the_screen_says_how_to_capture_one():
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(app, pilot, "V", WhatIfScreen)
        assert "tensorweg diff mnist_cnn --vary batch=1,64 --target cpu" in text_of(screen, "#whatif-layer")


@sync
async def test_v_from_the_compare_screen_keeps_its_layer(cached_variants):
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="dense")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_by_key(app, pilot, "x", CompareScreen)
        await pilot.press("V")
        await pilot.pause()
        assert isinstance(app.screen, WhatIfScreen)
        assert app.screen.layer_name == "dense"


@SIZES
def test_whatif_conv2d_snapshot(snap_compare, size, cached_variants):
    """conv2d at batch 1 (this capture) beside batch 64: the layer's row for each (FLOPs 108.2k and
    6.9M, bytes 66.8 KiB and 4.2 MiB), the whole model (FLOPs x64, peak memory growing), the dense
    layer's fusions that changed, both skylines on one scale (batch 64 rising to full blocks at the
    convolution) with the largest buffers at each peak (XLA's own peak moment, position 9: dense's
    weights and conv2d's activations at batch 1, conv2d's and max_pooling2d's activations at 64), and
    why (FLOPs, bytes, fusions). At 80x24 the rest scrolls."""
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")

    async def press_v(pilot):
        await open_by_key(app, pilot, "V", WhatIfScreen)

    assert snap_compare(app, run_before=press_v, terminal_size=size)


def test_fusion_pair_snapshot(snap_compare, cached_variants):
    """conv2d with XLA:CPU's fusion pass on (left: broadcast_maximum_fusion and its fused computation,
    bias add and ReLU in one loop) and off (right: wrapped_broadcast, wrapped_broadcast.1, wrapped_add,
    wrapped_maximum, one wrapped op each); each column scrolls on its own."""
    app = create_app(VARIANTS / "batch1", level="layers", target="cpu", select="conv2d")

    async def open_pair(pilot):
        await open_by_key(app, pilot, "V", WhatIfScreen)
        await pilot.press("v", "v", "enter")
        await pilot.pause()

    assert snap_compare(app, run_before=open_pair, terminal_size=(120, 40))
