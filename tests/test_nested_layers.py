"""Containers in the layer list: a nested model or Sequential block heads its inner layers (issue 12).

Fed `tests/fixtures/bundles/nested_block`, a real TensorFlow/XLA capture on the CPU of a small
model with two Sequential blocks, one holding another (`tests/fixtures/bundles/record_nested_block.py`
records it): layer paths `stem/stem_conv`, `stem/stem_relu`, `head/head_dense`, `head/head_out/logits`.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from explorer.model.bundle import Bundle
from explorer.views import rows as rows_view
from explorer.views import tables, trace

from screens.app import create_app
from screens.widgets.device_pane import family_text

from pilot_support import BUNDLE as MNIST
from pilot_support import opened, sync

NESTED = Path(__file__).parent / "fixtures" / "bundles" / "nested_block"


@pytest.fixture(scope="module")
def nested() -> Bundle:
    return Bundle.open(NESTED)


# --- what the view model says --------------------------------------------------------------------


def test_inner_layers_are_listed_under_their_container_with_their_depth(nested):
    found = {item.name: (item.group, item.depth) for item in rows_view.rows(nested, "layers", "cpu")}
    assert found == {"image": ("", 0), "stem": ("", 0), "stem_conv": ("stem", 1), "stem_relu": ("stem", 1),
                     "pool": ("", 0), "head": ("", 0), "head_dense": ("head", 1), "head_out": ("head", 1),
                     "logits": ("head_out", 2)}


def test_each_container_is_a_group_headed_by_its_own_row_and_folded_when_the_list_opens(nested):
    groups = rows_view.row_groups(nested, "layers", "cpu")
    assert {key: (group.head, group.within, group.size, group.folded) for key, group in groups.items()} == {
        "stem": ("stem", "", 2, True), "head": ("head", "", 3, True), "head_out": ("head_out", "head", 1, True)}


def test_a_model_without_containers_has_no_layer_groups():
    assert rows_view.row_groups(Bundle.open(MNIST), "layers", "cpu") == {}


def test_a_blocks_weights_are_its_inner_layers_and_count_for_the_block(nested):
    """The Sequential's parameter count is its Conv2D's: the arguments go to the Conv2D."""
    for level in ("hlo", "optimized-hlo"):
        conv = trace.items_for_layer(nested, "stem_conv", level, "cpu")
        weights = [name for name in conv if rows_view.parameter_role(nested, level, "cpu", name)]
        assert len(weights) == 2, (level, conv)
        assert all("stem_conv" in rows_view.parameter_role(nested, level, "cpu", name) for name in weights)
        assert set(conv) <= set(trace.items_for_layer(nested, "stem", level, "cpu"))
    logits = trace.items_for_layer(nested, "logits", "optimized-hlo", "cpu")
    assert logits and set(logits) <= set(trace.items_for_layer(nested, "head_out", "optimized-hlo", "cpu"))
    assert set(logits) <= set(trace.items_for_layer(nested, "head", "optimized-hlo", "cpu"))
    assert not set(logits) & set(trace.items_for_layer(nested, "head_dense", "optimized-hlo", "cpu"))


# --- the layers screen ---------------------------------------------------------------------------


def _names(app) -> list[str]:
    return [item.name for item in app.screen.items_table.shown]


@sync
async def test_o_opens_a_container_to_its_inner_layers_indented_and_folds_it_again():
    app = create_app(NESTED, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert _names(app) == ["image", "stem", "pool", "head"]
        app.screen.items_table.select("stem")
        await pilot.press("o")
        await pilot.pause()
        assert _names(app) == ["image", "stem", "stem_conv", "stem_relu", "pool", "head"]
        rows = app.screen.items_table.table
        drawn = [rows.render_line(y).text for y in range(1, 7)]
        assert drawn[1].startswith(" ▾ stem ") and drawn[2].startswith("     stem_conv ")
        assert drawn[5].startswith(" ▸ head ") and drawn[0].startswith("   image ")
        await pilot.press("down", "o")  # on an inner row: its container folds, the cursor on the container
        await pilot.pause()
        assert _names(app) == ["image", "stem", "pool", "head"]
        assert app.screen.items_table.current.name == "stem"


@sync
async def test_an_inner_layer_goes_down_to_its_own_work_and_stays_selected_on_the_way_back():
    """The vertical trace through a container: stem_relu's ops, not the whole block's."""
    app = create_app(NESTED, level="layers", target="cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        app.screen.items_table.select("stem")
        await pilot.press("o", "down", "down")
        await pilot.pause()
        assert app.screen.items_table.current.name == "stem_relu"
        for lower in ("graph", "hlo"):
            await pilot.press("enter")
            await opened(pilot)
            assert app.level == lower
            assert trace.layer_of(app.bundle, lower, app.selections[lower], "cpu") == "stem_relu"
        await pilot.press("backspace", "backspace")
        await opened(pilot)
        assert app.level == "layers"
        assert app.screen.items_table.current.name == "stem_relu"


@sync
async def test_selecting_a_layer_deep_inside_folded_containers_opens_them():
    app = create_app(NESTED, level="layers", target="cpu", select="logits")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        assert app.screen.items_table.current.name == "logits"
        assert _names(app) == ["image", "stem", "pool", "head", "head_dense", "head_out", "logits"]


@sync
async def test_the_open_key_is_offered_only_where_a_container_is():
    for bundle, offered in ((NESTED, True), (MNIST, False)):
        app = create_app(bundle, level="layers", target="cpu")
        async with app.run_test(size=(80, 24)) as pilot:
            await opened(pilot)
            keys = {key for key, active in app.screen.active_bindings.items() if active.enabled}
            assert ("o" in keys) is offered, bundle.name


def test_layers_with_an_open_container(snap_compare):
    """80x24, nested_block: `image`, `▾ stem` (bold) with `stem_conv` and `stem_relu` indented under
    it, stem_relu highlighted, `pool`, `▸ head` folded; the footer offers `o Open`; the device pane
    shows stem_relu's CPU fusion."""
    app = create_app(NESTED, level="layers", target="cpu", select="stem_relu")
    assert snap_compare(app, run_before=opened, terminal_size=(80, 24))


# --- opening a large bundle: the UI thread reads no module -----------------------------------------


def test_a_target_being_read_says_so_and_is_not_read_by_the_pane(monkeypatch):
    from explorer.hlo import parser

    parse = parser.parse_module
    monkeypatch.setattr(parser, "parse_module", lambda text: pytest.fail("the pane read a module"))
    bundle = Bundle.open(MNIST)
    selection = tables.Selection(bundle, "layers", "cpu", "conv2d")
    reading = frozenset({"gpu:h100"})
    assert family_text(selection, "gpu", bundle.targets, False, "en", reading) == "gpu:h100: reading its modules ..."
    assert family_text(selection, "gpu", bundle.targets, False, "de", reading) == "gpu:h100: liest seine Module ..."
    monkeypatch.setattr(parser, "parse_module", parse)
    assert "gpu:h100  (" in family_text(selection, "gpu", bundle.targets, False, "en")


def test_two_threads_asking_for_one_module_parse_it_once(monkeypatch):
    from explorer.hlo import parser

    calls = []
    parse = parser.parse_module

    def counting(text):
        calls.append(1)
        return parse(text)

    monkeypatch.setattr(parser, "parse_module", counting)
    bundle = Bundle.open(MNIST)
    start = threading.Barrier(2)
    found = []

    def read():
        start.wait()
        found.append(bundle.hlo_module("tpu:v5e", optimized=True))

    threads = [threading.Thread(target=read) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and found[0] is found[1] is not None
