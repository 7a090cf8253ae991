"""The passport (`P`): Pilot tests of its keys (open on the selection, Enter on a hop, `t`) and
snapshots at 80x24 and 120x40, fed the recorded mnist_cnn bundle (tests/fixtures/bundles/mnist_cnn).
Update the snapshots with `pytest tests/test_screens_passport.py --snapshot-update` and look at them."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from explorer.views.passport.place import hop_place, next_target, passport_for_selection

from screens.app import create_app
from screens.passport import PassportScreen

from pilot_support import BUNDLE, needs_bundle, open_by_key, opened, sync

pytestmark = needs_bundle


async def open_passport(app, pilot) -> PassportScreen:
    return await open_by_key(app, pilot, "P", PassportScreen)


@sync
async def test_p_opens_the_selected_layers_passport_on_the_current_target():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_passport(app, pilot)
        assert (screen.passport.layer, screen.passport.target) == ("conv2d", "cpu")
        assert screen.passport.tensor == "broadcast_maximum_fusion"
        hops = screen.query_one("#passport-hops", OptionList)
        assert hops.option_count == len(screen.passport.hops) == 8


@sync
async def test_enter_on_a_hop_goes_to_its_level_with_the_item_selected():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_passport(app, pilot)
        for _ in range(4):  # python, layer, graph, hlo -> the fusion
            await pilot.press("down")
        await pilot.press("enter")
        await opened(pilot)
        assert not isinstance(app.screen, PassportScreen)
        assert app.level == "optimized-hlo"
        assert app.selections["optimized-hlo"] == "broadcast_maximum_fusion"
        assert app.items_table.current.name == "broadcast_maximum_fusion"


@sync
async def test_t_switches_the_passports_target_and_enter_lands_there():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_passport(app, pilot)
        await pilot.press("t")
        await pilot.press("t")
        # conv2d's bias and ReLU are fused into max_pooling2d's reduce-window on the v5e (fusion.11 is the
        # bare convolution): data flow says the output lives in `fusion`, computed with the next layer's.
        assert screen.passport.target == "tpu:v5e" and screen.passport.tensor == "fusion"
        for _ in range(5):  # -> the kernel
            await pilot.press("down")
        await pilot.press("enter")
        await opened(pilot)
        assert app.target == "tpu:v5e" and app.level == "kernels"
        assert app.items_table.current.name == "fusion"


@sync
async def test_moving_to_a_hop_shows_its_course_text_and_the_fused_output_is_said():
    app = create_app(BUNDLE, level="layers", target="tpu:v5e", select="conv2d")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_passport(app, pilot)
        explanation = screen.query_one("#passport-explanation")
        assert "Python" in str(explanation.render())  # the first hop's text: where the lines come from
        for _ in range(4):  # python, layer, graph, hlo -> the fusion
            await pilot.press("down")
        await pilot.pause()
        assert "Which instruction holds a layer's output" in str(explanation.render())
        fusion = screen.query_one("#passport-hops", OptionList).get_option_at_index(4)
        assert "never written to memory on its own" in str(fusion.prompt)


@sync
async def test_p_from_a_kernel_follows_it_from_its_layer_and_escape_closes():
    app = create_app(BUNDLE, level="kernels", target="cpu", select="dot_add_fusion")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_passport(app, pilot)
        assert screen.passport.layer == "dense" and screen.passport.tensor == "dot_add_fusion"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PassportScreen)


def test_the_keys_decisions_without_textual():
    from explorer.model.bundle import Bundle

    bundle = Bundle.open(BUNDLE)
    found = passport_for_selection(bundle, "memory", {"layers": "dense"}, "gpu:h100", "en")
    assert found.layer == "dense"
    assert hop_place(found, found.hops[-1]) == ("gpu:h100", "optimized-hlo", "triton_softmax.2")
    empty = passport_for_selection(bundle, "layers", {"layers": "image"}, "cpu", "en")
    assert hop_place(empty, empty.hops[3]) is None  # nothing recovered: nowhere to go
    assert next_target(bundle, "tpu:v5e") == "cpu"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_passport_snapshot(snap_compare, size):
    """conv2d on cpu: the title 'Passport of conv2d on cpu' with its keys, then the hops as rows: 1. Python
    (base_conv.py:256 call and the lines below it down to keras/src/backend/tensorflow/nn.py's
    tf.nn.convolution -> convolution.1, read from the TF ops' tracebacks: no note of another target),
    2. the Keras layer, 3. the TensorFlow ops (Conv2D first), 4. the HLO instructions; at 120x40
    also the fusion broadcast_maximum_fusion (broadcast, add, maximum) and further down the ymm lines."""
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d")

    async def press_p(pilot):
        await open_passport(app, pilot)

    assert snap_compare(app, run_before=press_p, terminal_size=size)
