"""The filmstrip screen (`f`): pilot tests of stepping and following, snapshots at 80x24 and 120x40,
all fed the recorded bundle (its per-pass data came from a real `--passes` capture)."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from explorer.session.events import BundleLoaded, LevelStarted

from screens.app import create_app
from screens.passes import PassesScreen

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def _text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def test_every_filmstrip_binding_has_an_id_description_and_tooltip():
    for binding in PassesScreen.BINDINGS:
        assert binding.id and binding.description and binding.tooltip, binding


@sync
async def test_n_and_p_step_through_the_passes_and_redraw_the_diff():
    app = create_app(BUNDLE, level="hlo", target="cpu", select="convolution.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PassesScreen) and screen.frame == 0
        assert "before any pass" in _text(screen, "#passes-diff-text")
        for _ in range(6):
            await pilot.press("n")
        await pilot.pause()
        assert screen.frame == 6 and screen.query_one("#passes-list", DataTable).cursor_row == 6
        diff = _text(screen, "#passes-diff-text")
        assert diff.startswith("fusion in HLO_passes_after_layout_assignment (frame 6 of 8)")
        assert "@@ fused_computation.4 (new)" in diff
        assert "Instruction fusion (XLA:CPU)" in _text(screen, "#passes-narration")
        await pilot.press("p")
        await pilot.pause()
        assert screen.frame == 5 and "reshape-decomposer" in _text(screen, "#passes-diff-text")
        for _ in range(20):  # stepping stops at the last frame
            await pilot.press("n")
        assert screen.frame == 8
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PassesScreen)


@sync
async def test_w_follows_the_selected_convolution_to_its_fusion_frame():
    app = create_app(BUNDLE, level="hlo", target="tpu:v5e", select="conv_general_dilated.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        strip = app.bundle.passes("tpu:v5e")
        assert strip.frames[screen.frame].pass_name == "tpu_fusion"
        follow = _text(screen, "#passes-follow")
        assert "fused into fusion.11 (kOutput)" in follow and f"frame {screen.frame} of" in follow
        assert "TPU fusion" in _text(screen, "#passes-narration")


def _lines(app) -> list[str]:
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


@sync
async def test_a_bundle_without_passes_says_how_to_get_them(tmp_path):
    """At 80x24 the title fits its line and the pane names the whole command; opened from a bundle
    the app cannot capture, so `c` is not offered."""
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / "targets" / "cpu" / "passes")
    app = create_app(copy, level="hlo", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert _text(screen, "#passes-title") == "Filmstrip cpu: not captured"
        command = "tensorweg open mnist_cnn --passes"
        assert screen.missing.command == command
        lines = _lines(app)
        assert any(line.strip() == command for line in lines)  # on one line, whole
        assert any("no per-pass snapshots for cpu in this bundle" in line for line in lines)
        assert not screen.missing.can_capture and "Press c" not in "\n".join(lines)
        await pilot.press("n", "w", "c")  # nothing to step, follow or capture: no crash
        await pilot.pause()
        assert isinstance(app.screen, PassesScreen)


@sync
async def test_c_on_a_film_without_frames_captures_the_model_again_with_passes(tmp_path, monkeypatch):
    """An app that knows its model offers `c`, and `c` captures every target on screen with --passes."""
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / "targets" / "tpu-v5e" / "passes")
    # As `tensorweg open mnist_cnn` opens its cached bundle: the app knows the model it may capture.
    app = create_app(copy, model_spec="mnist_cnn", level="optimized-hlo", target="tpu:v5e")
    started = []
    monkeypatch.setattr(app, "run_capture", lambda job: started.append(job.options))  # no compiler in this test
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert app.screen.missing.command == "tensorweg open mnist_cnn --passes"
        assert "Press c to capture them now" in "\n".join(_lines(app))
        thing = app.screen.thing
        assert thing  # the selected instruction `w` follows
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PassesScreen)  # it stays: issue 39, it went back to the level and lost it
        assert "the film opens here when it is done" in _text(screen, "#passes-title")
        (options,) = started
        assert options.passes and options.targets == ("tpu:v5e", "cpu", "gpu:h100")
        # The capture's reports, as its worker delivers them: a level, then the finished bundle (with frames).
        app.deliver(LevelStarted("optimized-hlo", "tpu:v5e"))
        await pilot.pause()
        assert "optimized-hlo 0/1.." in _text(screen, "#passes-title")
        app.deliver(BundleLoaded(BUNDLE))
        for _ in range(50):
            await pilot.pause(0.05)
            if screen.strip is not None:
                break
        assert app.screen is screen and screen.strip is not None and screen.missing is None
        assert "not captured" not in _text(screen, "#passes-title")
        assert (screen.target, screen.thing) == ("tpu:v5e", thing)  # the same film, on the same item


@SIZES
def test_filmstrip_on_tpu(snap_compare, size):
    """Filmstrip for tpu:v5e after `f` then `w` from conv_general_dilated.1: the list's cursor is on
    the tpu_fusion frame, the follow line says it was fused into fusion.11 (kOutput), the narration
    is "TPU fusion", and the diff shows new fused computations in green, removed lines in red."""
    app = create_app(BUNDLE, level="hlo", target="tpu:v5e", select="conv_general_dilated.1")

    async def run(pilot):
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(app, run_before=run, terminal_size=size)


@sync
async def test_a_wide_terminal_shows_the_diff_side_by_side():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(180, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f", *["n"] * 6)
        await pilot.pause()
        lines = _text(app.screen, "#passes-diff-text").splitlines()
        assert lines[0].startswith("fusion in HLO_passes_after_layout_assignment")
        assert any(" | " in line and "fused_computation.4 (new)" in line for line in lines)
        added = next(line for line in lines if "maximum(" in line)
        assert added.split(" | ")[0].strip() == ""  # new lines stand on the right only


# --- Grappler's film (`f` from the graph level) ------------------------------------------------------

@sync
async def test_f_from_the_graph_level_steps_through_grapplers_film_and_g_switches_to_xla():
    app = create_app(BUNDLE, level="graph", target="cpu", select="mnist_cnn_1/conv2d_1/BiasAdd")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PassesScreen) and screen.target == "grappler" and screen.frame == 0
        assert "Grappler (TensorFlow graph), 5 frames" in _text(screen, "#passes-title")
        table = screen.query_one("#passes-list", DataTable)
        assert [str(column.label) for column in table.columns.values()][1:3] == ["optimizer", "nodes before"]
        await pilot.press("n", "n")
        await pilot.pause()
        assert screen.frame == 2 and table.cursor_row == 2
        diff = _text(screen, "#passes-diff-text")
        assert diff.startswith("constant_folding in iteration 1 (frame 2 of 4): +0 -6 ~7")
        assert "+ mnist_cnn_1/conv2d_1/BiasAdd = Identity(" in diff
        assert _text(screen, "#passes-narration").startswith("Constant folding (Grappler):")
        await pilot.press("n", "n", "n")  # stepping stops at the last frame
        assert screen.frame == 4 and "dependency_optimizer" in _text(screen, "#passes-diff-text")
        await pilot.press("w")  # the graph level's selected node: where Grappler first changed it
        await pilot.pause()
        assert screen.frame == 2 and "BiasAdd (BiasAdd) became Identity" in _text(screen, "#passes-follow")
        await pilot.press("g")
        await pilot.pause()
        assert screen.target == "cpu" and len(screen.strip) == 9 and table.row_count == 9
        assert "on cpu, 9 frames" in _text(screen, "#passes-title") and screen.frame == 0
        await pilot.press("g")
        await pilot.pause()
        assert screen.target == "grappler" and table.row_count == 5


@sync
async def test_f_from_the_hlo_level_still_opens_the_xla_film():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert app.screen.target == "cpu"


@sync
async def test_a_bundle_without_grappler_frames_says_how_to_get_them(tmp_path):
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    shutil.rmtree(copy / "grappler")
    app = create_app(copy, level="graph", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert _text(app.screen, "#passes-title") == "Filmstrip Grappler (TensorFlow graph): not captured"
        assert any("no Grappler frames in this bundle" in line for line in _lines(app))
        await pilot.press("n", "w", "g")  # nothing to step or follow; g still reaches the XLA film
        await pilot.pause()
        assert app.screen.target == "cpu" and len(app.screen.strip) == 9


def test_grappler_film_at_80x24(snap_compare):
    """Grappler's film of mnist_cnn after `f` from the graph level and `n n`: the list (optimizer,
    nodes before/after, iteration) with the cursor on constant_folding, its narration, and the diff:
    weight reads turned into Const (red/green pairs), the zero bias add now an Identity."""
    app = create_app(BUNDLE, level="graph", target="cpu")

    async def run(pilot):
        await opened(pilot)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("n", "n")
        await pilot.pause()

    assert snap_compare(app, run_before=run, terminal_size=(80, 24))
