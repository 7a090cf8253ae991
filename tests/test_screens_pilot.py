"""Pilot tests: drive the app with keys and messages, assert its state.

Fed the recorded bundle tests/fixtures/bundles/mnist_cnn (real compiler output);
capture progress is injected through the same messages the capture worker posts.
"""

from __future__ import annotations

import asyncio
import shutil

import pytest

from explorer.session.events import CaptureFailed, LevelCaptured, LevelStarted

from screens.app import create_app
from screens.widgets.code_view import CodeView
from screens.widgets.item_table import ItemTable

from pilot_support import BUNDLE, needs_bundle, opened, sync, target_key_keeps_layers

pytestmark = needs_bundle


def table(app) -> ItemTable:
    return app.items_table


@sync
async def test_vertical_trace_from_conv_layer_to_cpu_kernel_and_back():
    """Enter four times follows conv2d down to its kernel; Backspace restores each selection."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        path = [(app.level, table(app).current.name)]
        for _ in range(4):
            await pilot.press("enter")
            await pilot.pause()
            path.append((app.level, table(app).current.name))
        assert [level for level, _ in path] == ["layers", "graph", "hlo", "optimized-hlo", "kernels"]
        graph_op = path[1][1]
        assert app.bundle.graph is not None
        assert next(op for op in app.bundle.graph.ops if op.name == graph_op).layer == "conv2d"
        hlo = app.bundle.hlo_module("cpu").entry
        assert next(i for i in app.bundle.hlo_module("cpu").all_instructions()
                    if i[1].name == path[2][1])[1].metadata.op_name == graph_op
        kernel = next(k for k in app.bundle.kernels("cpu") if k.name == path[4][1])
        assert path[3][1] in kernel.hlo
        assert hlo is not None
        for expected in reversed(path[:-1]):
            await pilot.press("backspace")
            await pilot.pause()
            assert (app.level, table(app).current.name) == expected
        assert app.session.trail == []


@sync
async def test_jax_target_links_graph_ops_to_hlo_through_their_layer():
    """On tpu:v5e the HLO came from Keras-on-JAX: Enter from a conv op lands on the conv layer's HLO."""
    app = create_app(BUNDLE, level="graph", target="tpu:v5e", select="mnist_cnn_1/conv2d_1/convolution")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.level == "hlo"
        name = table(app).current.name
        assert app.trace.layer_of("hlo", name, "tpu:v5e") == "conv2d"


@sync
async def test_filter_keeps_only_matching_rows_and_selection_follows():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        everything = len(table(app).shown)
        await pilot.press("slash", *"fusion", "enter")
        await pilot.pause()
        shown = table(app).shown
        assert 0 < len(shown) < everything
        assert all("fusion" in item.search_text for item in shown)
        assert app.selections["optimized-hlo"] == table(app).current.name


@sync
async def test_code_view_marks_the_selected_instruction_line():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", select="convolution.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        view = app.screen.query_one("#code", CodeView)
        line = table(app).current.line
        assert view._marked == {line}
        assert view.top < line <= view.top + view.size.height
        text = app.bundle.hlo_text("cpu", optimized=True).split("\n")[line - 1]
        assert "convolution.1 = " in text


@sync
async def test_operand_key_walks_up_the_data_flow_and_back():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", select="broadcast_maximum_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        module = app.bundle.hlo_module("cpu", optimized=True)
        fusion = next(i for _, i in module.all_instructions() if i.name == "broadcast_maximum_fusion")
        await pilot.press("o")
        await pilot.pause()
        assert table(app).current.name == fusion.operands[0]
        await pilot.press("backspace")
        await pilot.pause()
        assert table(app).current.name == "broadcast_maximum_fusion"


@sync
async def test_target_key_switches_rows_to_the_next_target():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert app.target == "gpu:h100"
        names = {item.name for item in table(app).items}
        module = app.bundle.hlo_module("gpu:h100", optimized=True)
        assert names == {i.name for _, i in module.all_instructions()}


@sync
async def test_target_key_keeps_the_layer_on_all_three_targets_for_every_layer():
    """`t` from each layer's last item at each per-target level: after every press the list's
    selection belongs to the same layer on the new target (where that layer has items there),
    and the conv of the optimized HLO lands on the conv (not on a parameter)."""
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert await target_key_keeps_layers(app, pilot) >= 20
        app.goto_level("optimized-hlo", "convolution.1")
        await opened(pilot)
        await pilot.press("t")
        await opened(pilot)
        assert table(app).current.name == "cudnn-conv-bias-activation.3"
        await pilot.press("t")
        await opened(pilot)
        assert table(app).current.name == "fusion.11"


@sync
async def test_level_usable_as_soon_as_captured_and_failure_says_what_still_works(tmp_path):
    """Capture messages arrive one by one; layers work before HLO exists; a failed level says so."""
    staging = tmp_path / "staging"
    staging.mkdir()
    app = create_app(None, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        assert len(table(app).items) == 0
        app.deliver(LevelStarted("layers", ""))
        await pilot.pause()
        assert "Capturing Keras layers" in str(app.explorer.view.query_one(".notice").render())
        shutil.copy(BUNDLE / "layers.json", staging / "layers.json")
        app.deliver(LevelCaptured("layers", "", 1.0, staging))
        await pilot.pause()
        assert [i.name for i in table(app).items] == [layer.name for layer in app.bundle.layers]
        app.deliver(CaptureFailed("hlo", "cpu", "worker exited"))
        await pilot.press("3")
        await pilot.pause()
        notice = str(app.explorer.view.query_one(".notice").render())
        assert "HLO failed for cpu: worker exited" in notice and "Still usable: Keras layers" in notice


@sync
async def test_help_lists_every_key_of_the_screen():
    app = create_app(BUNDLE, level="hlo", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        level_screen = app.screen
        await pilot.press("question_mark")
        await pilot.pause()
        keys = str(app.screen.query_one("#help-keys").render())
        for active in level_screen.active_bindings.values():
            if active.binding.description and not active.binding.system:
                assert active.binding.description in keys
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is level_screen


def test_every_binding_has_an_id_description_and_tooltip():
    from screens.app import TensorwegApp
    from screens.explorer_screen import VIEWS, ExplorerScreen, view_class
    from screens.help import HelpScreen
    from screens.widgets.code_view import CodeView

    owners = [TensorwegApp, ExplorerScreen, HelpScreen, CodeView, *(view_class(level) for level in VIEWS)]
    for owner in owners:
        for cls in (c for c in owner.__mro__ if c.__module__.startswith("screens")):
            for binding in cls.__dict__.get("BINDINGS", []):
                assert binding.id and binding.description and binding.tooltip, (owner, binding)


@sync
async def test_command_palette_jumps_to_an_instruction_by_name():
    """ctrl+p, type an optimized-HLO instruction's name, Enter: that level, that row, its code line marked."""
    from textual.command import CommandList, CommandPalette

    app = create_app(BUNDLE, level="layers", target="cpu")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        wanted = "broadcast_maximum_fusion"
        assert wanted in {i.name for _, i in app.bundle.hlo_module("cpu", optimized=True).all_instructions()}
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*wanted)
        palette = app.screen
        for _ in range(50):  # the palette searches in a worker: wait until our provider's hits are listed
            await pilot.pause(0.05)
            hits = palette.query_one(CommandList)
            if hits.option_count and "Optimized HLO" in str(hits.get_option_at_index(0).prompt):
                break
        first = str(palette.query_one(CommandList).get_option_at_index(0).prompt)
        assert first.startswith(wanted) and "Optimized HLO" in first
        await pilot.press("enter")
        await opened(pilot)
        await pilot.pause()
        assert app.level == "optimized-hlo"
        assert table(app).current.name == wanted
        view = app.screen.query_one("#code", CodeView)
        assert view._marked == {table(app).current.line}


@sync
async def test_capture_key_adds_the_default_targets_that_are_missing():
    """Opened for cpu only, the GPU and TPU tabs name `c`; pressing it captures again with them."""
    from explorer.model.records import CaptureOptions

    app = create_app(model_spec="mnist_cnn", options=CaptureOptions(targets=("cpu",)), level="layers")
    runs = []
    app.run_capture = lambda job: runs.append(job.options.targets)  # the jobs the session allowed; no compiler here
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
    assert runs[0] == ("cpu",)
    assert runs[-1] == ("cpu", "gpu:h100", "tpu:v5e")


@sync
async def test_no_color_renders_every_level(monkeypatch):
    """NO_COLOR (honoured by Textual) must not break any pane: each level is drawn in monochrome."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(80, 24)) as pilot:
        # A render crash stops the app before the bundle is shown: fail instead of waiting forever.
        await asyncio.wait_for(opened(pilot), timeout=60)
        assert app.no_color
        for key in ("2", "3", "4", "5", "m", "1"):
            await pilot.press(key)
            await pilot.pause()
            assert "Traceback" not in app.export_screenshot()



@pytest.mark.parametrize("target", ["cpu", "tpu:v5e"])
@sync
async def test_a_level_shown_before_the_device_tabs_exist_opens_its_tab_once_they_do(monkeypatch, target):
    """A capture's first level can reach the device pane while it is still mounting, before its
    tabs' texts all exist. `show` then raised `No Tab with id`; now the tab of the target on screen
    opens once they are there, over its own text."""
    from explorer.model.bundle import Bundle
    from explorer.views.tables import Selection

    from screens.widgets import device_pane

    selection = Selection(Bundle.open(BUNDLE), "optimized-hlo", target, "fusion.11", "en")
    shown_while_mounting = []

    class ArrivesOnMount(device_pane.PaneText):
        def on_mount(self) -> None:  # the first text of the pane is there: the level arrives now
            pane = self.query_ancestor(device_pane.DevicePane)
            if not shown_while_mounting:
                shown_while_mounting.append(self.id)
                pane.show(selection, selection.bundle.targets, can_capture=False)

    monkeypatch.setattr(device_pane, "PaneText", ArrivesOnMount)
    app = create_app(BUNDLE, level="optimized-hlo", target=target)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(opened(pilot), 20)  # the error used to end the app: bounded, not a hang
        for _ in range(5):
            await pilot.pause()
        assert shown_while_mounting  # the level really arrived while the pane mounted
        family = target.split(":")[0]
        pane = app.screen.query_one(device_pane.DevicePane)
        assert pane.open_kind == family
        # and its text is the one shown, with the selection's text: a tab opened before the tabs'
        # switcher had mounted was underlined over an empty pane (a handout picture differed under load)
        text = app.screen.query_one(f"#device-{family}-text", device_pane.PaneText)
        assert pane.shown_text is text and text.display
        assert [t.id for t in pane.query(device_pane.PaneText).results(device_pane.PaneText) if t.display] == [text.id]
        assert text.size.area and target in text.plain
        assert app.explorer.settled


@sync
async def test_a_memory_map_pane_takes_the_height_of_what_arrives_while_a_layout_is_pending():
    """The map can arrive while the pane's layout for the notice before it is still pending, after
    a screen layout (a resize, another widget's) measured the pane for the notice: it kept the
    notice's one line (test_memory_map's snapshot failed now and then). Here in that order."""
    from textual.app import App
    from textual.containers import VerticalScroll

    from screens.widgets.fitted_text import FittedText

    class Panes(App):
        def compose(self):
            with VerticalScroll():
                yield FittedText("", id="pane")

    app = Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.query_one(FittedText)
        pane.show("not captured")  # its layout pending...
        pane.parent._clear_arrangement_cache()  # ...when the screen lays out anew (Textual's own calls)
        app.screen._refresh_layout()
        pane.show("\n".join(f"allocation {n}" for n in range(18)))
        await pilot.pause()
        assert pane.outer_size.height == 18
