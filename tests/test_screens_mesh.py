"""The mesh view (`D`): Pilot tests of its state and keys, and a snapshot at 80x24.

Fed the recorded bundle tests/fixtures/bundles/mlp_mesh_2x2 (mlp's training step compiled by
XLA:TPU for a v5e 2x2 mesh, model parallel; see make_mesh_fixtures.py there). Update the snapshot
with `pytest tests/test_screens_mesh.py --snapshot-update` and look at the picture before committing.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from explorer.views.compare.mesh import missing_meshes

from screens.app import create_app
from screens.mesh import MeshScreen
from screens.screenshot import workers_done

from pilot_support import BUNDLE, open_by_key, sync

MESH_BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mlp_mesh_2x2"


async def open_mesh(app, pilot) -> MeshScreen:
    """Wait until the bundle is open (the app reads it after the first frame), then press D."""
    return await open_by_key(app, pilot, "D", MeshScreen)


def shown(screen: MeshScreen, width: int = 200) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(screen.query_one("#mesh-grids").content)
    return console.export_text()


@sync
async def test_d_shows_the_selected_layers_halves_on_the_devices():
    app = create_app(MESH_BUNDLE, level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_mesh(app, pilot)
        assert screen.layer_name == "dense"
        text = shown(screen)
        assert "weight kernel f32[64,128]: dim 1 in 2 parts, each part on 2 devices" in text
        assert "d1 = chip (1,0), id 1" in text and "f32[64,64] 16.0 KiB" in text and "[0:64, 64:128]" in text
        assert "chip (x,y): where that chip sits in the slice" in text and "x=0" in text and "y=1" in text
        assert "activation output f32[8,128]" in text and "model 1" in text and "data 1" in text
        await pilot.press("n")
        assert screen.layer_name == "dense_1" and "f32[128,64]" in shown(screen)
        await pilot.press("L")
        await pilot.pause()
        assert "Gewicht kernel f32[128,64]" in shown(app.screen)
        from test_screens_german import english_left

        assert english_left(shown(app.screen)) == []
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, MeshScreen)
        # The view is built once and shown again: for the layer selected now, from its top, in the app's language.
        app.items_table.focus()
        await pilot.press("down")
        await pilot.pause()
        assert app.selections["layers"] == "dense_1"
        await pilot.press("D")
        await pilot.pause()
        assert app.screen is screen and screen.layer_name == "dense_1"
        assert "Gewicht kernel f32[128,64]" in shown(screen) and screen.query_one("#mesh-body").scroll_y == 0


@sync
async def test_a_bundle_without_a_mesh_says_how_to_capture_one():
    app = create_app(BUNDLE, level="layers", target="tpu:v5e", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_mesh(app, pilot)
        assert "--mesh 2x2 --shard model" in shown(screen)


def test_mesh_view_snapshot(snap_compare):
    """dense on the 2x2 mesh at 80x24: title 'Devices: who holds which slice | mlp | Layer dense';
    the heading 'tpu:v5e on a 2x2 mesh, model parallel' and what d<n> and chip (x,y) mean; the kernel's
    grid with rows data 0/1 and columns model 0/1, each cell naming its chip (`d1 = chip (1,0), id 1`),
    column 0 holding [0:64, 0:64] and column 1 [0:64, 64:128] (16.0 KiB each); the bias grid below
    (scroll for the output and the slice map)."""
    app = create_app(MESH_BUNDLE, level="layers", target="tpu:v5e", select="dense")

    async def press_d(pilot):
        await open_mesh(app, pilot)

    assert snap_compare(app, run_before=press_d, terminal_size=(80, 24))


@sync
async def test_compare_shows_one_chip_2x2_and_4x4_for_a_mesh_target(tmp_path, monkeypatch):
    """x on a TPU target: the layer per device on each mesh; the meshes not in the cache name their command."""
    from screens.compare import CompareScreen

    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    app = create_app(MESH_BUNDLE, level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(160, 60)) as pilot:
        for _ in range(200):
            await pilot.pause()
            if app.bundle is not None and app.trace.index.entries:
                break
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        console = Console(width=300, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one("#compare-mesh").content)
        text = console.export_text()
        assert "Layer dense on tpu:v5e: 1 chip vs 2x2 vs 4x4, per device" in text
        assert "kernel f32[64,64]" in text and "all-gather" in text
        assert "--mesh 4x4 --shard model" in text and "ring ESTIMATES" in text


def data_parallel_copy(tmp_path: Path) -> Path:
    """The 2x2 fixture relabelled data parallel (as a `--shard data --batch 8` capture's manifest says)."""
    import json
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(MESH_BUNDLE, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["options"]["shard"] = "data"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


async def compare_mesh_text(app, pilot) -> str:
    for _ in range(200):
        await pilot.pause()
        if app.bundle is not None and app.trace.index.entries:
            break
    await pilot.press("x")
    await pilot.pause()
    return mesh_table_text(app)


def mesh_table_text(app) -> str:
    console = Console(width=400, file=io.StringIO(), record=True, color_system=None)
    console.print(app.screen.query_one("#compare-mesh").content)
    return console.export_text()


@sync
async def test_compare_mesh_row_says_why_a_mesh_cannot_be_compiled_and_m_starts_no_worker(tmp_path, monkeypatch,
                                                                                         fake):
    """Batch 8 data parallel: 4x4 would give 16 devices half an example each. The column says so
    (explorer.model.sharding.check_mesh_options, the check capture() makes), and `M` captures only the one chip."""
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    pids = fake("ok")
    app = create_app(data_parallel_copy(tmp_path), level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(160, 60)) as pilot:
        text = await compare_mesh_text(app, pilot)
        assert ("cannot be compiled: --shard data on a 4x4 mesh splits the batch in 16: "
                "--batch 8 is not a multiple of 16") in text
        wanted = missing_meshes(app.screen.mesh_columns, app.bundle, "tpu:v5e")
        assert [options.mesh for options in wanted] == [""]
    assert not list(pids.iterdir())  # drawing the table started nothing


@sync
async def test_compare_mesh_row_shows_the_reason_m_got_from_the_capture(tmp_path, monkeypatch, fake):
    """`M` on the 2x2 bundle: the capture of each missing mesh is refused with one line (the stand-in
    worker's bad-input answer); each column then says why instead of `press M`, and M stops offering it."""
    from screens.compare import CompareScreen

    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path / "cache"))
    fake("fatal")
    app = create_app(MESH_BUNDLE, level="layers", target="tpu:v5e", select="dense")
    async with app.run_test(size=(160, 60)) as pilot:
        text = await compare_mesh_text(app, pilot)
        assert text.count("not captured: press M") == 2
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        await pilot.press("M")
        await workers_done(app)
        await pilot.pause()
        text = mesh_table_text(app)
        assert text.count("cannot be compiled: unknown model 'nothing': not a file") == 2
        assert "press M" not in text and not screen.capturing_meshes
        assert [c.capturable for c in screen.mesh_columns] == [False, True, False]
