"""`--select NAME` has one meaning in every command that takes it (issue 39, item 8): an item of the
level, else a layer, meaning its items there (explorer.views.select_option). `inspect` and
`screenshot` select the one item the learner reaches from the layer with the level's key; `graph`
draws around all of the layer's items. On the recorded mnist_cnn bundle."""

from __future__ import annotations

import json

import pytest

from explorer.model.bundle import Bundle
from explorer.views import trace
from explorer.views.select_option import resolve_select

from screens.cli import main

from tests.conftest import FIXTURES

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
# What `--select conv2d` is at each list level on cpu: the item the number key reaches from the layer.
CONV2D_AT = {"layers": "conv2d", "graph": "mnist_cnn_1/conv2d_1/convolution", "hlo": "convolution.1",
             "optimized-hlo": "convolution.1", "kernels": "convolution.1"}


def _out(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _error(capsys, *argv: str) -> str:
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("level", list(CONV2D_AT))
def test_inspect_select_takes_a_layer_as_the_item_its_key_reaches(capsys, level):
    by_layer = json.loads(_out(capsys, "inspect", str(BUNDLE), "--level", level, "--select", "conv2d", "--json"))
    by_item = json.loads(_out(capsys, "inspect", str(BUNDLE), "--level", level, "--select", CONV2D_AT[level], "--json"))
    assert by_layer["selection"] == by_item["selection"]
    assert by_layer["selection"]["name"] == CONV2D_AT[level] and by_layer["selection"]["layer"] == "conv2d"
    if level != "layers":  # the number key from the layer (`4`: optimized-hlo) reaches the same item
        assert trace.jump(Bundle.open(BUNDLE), "layers", "conv2d", level, "cpu") == CONV2D_AT[level]


def test_screenshot_select_takes_a_layer_as_inspect_does(capsys, tmp_path):
    """`screenshot --level optimized-hlo --select conv2d` refused the layer: now it draws the very
    screen `--select convolution.1` draws (the issue's command)."""
    by_layer, by_item = tmp_path / "layer.svg", tmp_path / "item.svg"
    _out(capsys, "screenshot", str(BUNDLE), "--level", "optimized-hlo", "--select", "conv2d", "--out", str(by_layer))
    _out(capsys, "screenshot", str(BUNDLE), "--level", "optimized-hlo", "--select", "convolution.1",
         "--out", str(by_item))
    assert by_layer.read_bytes() == by_item.read_bytes()


def test_graph_select_takes_a_layer_as_all_its_items(capsys, tmp_path):
    out = tmp_path / "conv.dot"
    _out(capsys, "graph", str(BUNDLE), "--level", "optimized-hlo", "--select", "conv2d", "--depth", "0", "-o", str(out))
    dot = out.read_text(encoding="utf-8")
    bundle = Bundle.open(BUNDLE)
    selected = resolve_select(bundle, "optimized-hlo", "cpu", "conv2d")
    assert {"convolution.1", "broadcast_maximum_fusion"} <= set(selected.items) and selected.layer == "conv2d"
    assert selected.items == trace.items_for_layer(bundle, "conv2d", "optimized-hlo", "cpu")
    assert all(f'"{name}"' in dot for name in selected.items)  # every item of the layer, at depth 0 nothing else
    assert "dense" not in dot and "max_pooling" not in dot and "reduce-window" not in dot


@pytest.mark.parametrize("command", [
    ("inspect", str(BUNDLE), "--level", "optimized-hlo"),
    ("screenshot", str(BUNDLE), "--level", "optimized-hlo", "--out", "x.svg"),
    ("graph", str(BUNDLE), "--level", "optimized-hlo", "-o", "x.dot"),
], ids=["inspect", "screenshot", "graph"])
def test_every_command_refuses_a_name_that_is_neither_in_the_same_words(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    err = _error(capsys, *command, "--select", "no_such_thing")
    assert err.startswith("error: --select no_such_thing: no item or layer of that name at optimized-hlo for cpu "
                          "(items: ")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_the_memory_level_selects_allocations_by_index_and_no_layer(capsys):
    assert "selected: 0" in _out(capsys, "inspect", str(BUNDLE), "--level", "memory", "--select", "0")
    err = _error(capsys, "inspect", str(BUNDLE), "--level", "memory", "--select", "conv2d")
    assert "--select conv2d: no item or layer of that name at memory for cpu (items: 0, 1, " in err
