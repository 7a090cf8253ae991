"""`tensorweg inspect` on tvm:cpu (recorded capture tests/fixtures/bundles/mnist_cnn_tvm, see its README):
the HLO levels print the Relax rows the screen lists, and `--select` the item's trace, course keys and
what each target made of its layer, from the same view-model functions as the side panes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, run_cli

from explorer.model.bundle import Bundle
from explorer.views import rows as rows_view

TVM_BUNDLE = str(Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn_tvm")


def inspect(*args: str) -> str:
    result = run_cli("inspect", TVM_BUNDLE, "--target", "tvm:cpu", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("level", ["hlo", "optimized-hlo"])
def test_text_lists_the_rows_the_screen_lists(level):
    lines = inspect("--level", level).splitlines()
    rows = rows_view.rows(Bundle.open(Path(TVM_BUNDLE)), level, "tvm:cpu")
    assert len(lines) == 1 + len(rows)
    assert [line.split()[0] for line in lines[1:]] == [row.name for row in rows]
    expected = "lv1 nn.conv2d f32[1,8,26,26] conv2d" if level == "hlo" else \
        "fused_conv2d_relu fusion f32[1,8,26,26] conv2d"
    assert expected in {" ".join(line.split()) for line in lines}


def test_json_of_relax_as_imported_links_each_binding_to_its_function():
    data = json.loads(inspect("--level", "hlo", "--json"))
    assert (data["schema_version"], data["level"], data["target"], data["compiler"]) == (1, "hlo", "tvm:cpu", "tvm")
    items = {item["name"]: item for item in data["relax"]}
    assert items["lv1"] == {"name": "lv1", "kind": "nn.conv2d", "ops": ["relax.nn.conv2d"], "shape": "f32[1,8,26,26]",
                            "function": "fused_conv2d_relu", "layers": ["conv2d"], "layer": "conv2d",
                            "line": items["lv1"]["line"]}
    assert items["lv4"]["layers"] == ["max_pooling2d", "flatten"]
    assert "selection" not in data


def test_json_of_the_functions_after_fusion_with_a_selection():
    data = json.loads(inspect("--level", "optimized-hlo", "--json", "--select", "fused_conv2d_relu"))
    assert [item["name"] for item in data["relax"]] == ["reshape", "fused_conv2d_relu", "max_pool2d",
                                                        "fused_transpose_reshape1", "matmul", "softmax"]
    assert data["relax"][1]["ops"] == ["relax.nn.conv2d", "relax.nn.relu"]
    selection = data["selection"]
    assert selection["layer"] == "conv2d"
    assert selection["up"] == {"level": "hlo", "items": ["lv1", "lv2"]}
    assert selection["down"] == {"level": "kernels", "items": ["fused_conv2d_relu"], "enter": "fused_conv2d_relu"}
    assert selection["explanation_keys"][0] == ["compiler:tvm-fused-function"]
    assert set(selection["device"]) == {"cpu", "tvm:cpu"}
    assert "  fused_conv2d_relu: conv2d+relu" in selection["device"]["tvm:cpu"]
    assert "  convolution.1: convolution" in selection["device"]["cpu"]  # XLA's answer for the same layer


def test_text_selection_shows_trace_keys_and_both_compilers():
    text = inspect("--level", "hlo", "--select", "lv1")
    tail = text.split("\n\nselected: lv1\n", 1)[1].splitlines()
    assert tail[0] == "  layer: conv2d"
    assert "  down (optimized-hlo): fused_conv2d_relu; Enter selects fused_conv2d_relu" in tail
    assert "  explanations: compiler:tvm-relax; compiler:tvm-fusion" in tail
    assert "    tvm:cpu  (layer conv2d)" in tail and "    cpu  (layer conv2d)" in tail


def test_select_works_the_same_on_an_xla_target():
    result = run_cli("inspect", TVM_BUNDLE, "--level", "optimized-hlo", "--target", "cpu", "--select",
                     "convolution.1", "--json")
    assert result.returncode == 0, result.stderr
    selection = json.loads(result.stdout)["selection"]
    assert selection["explanation_keys"][0] == ["hlo:convolution"]
    assert "  fused_conv2d_relu: conv2d+relu" in selection["device"]["tvm:cpu"]


@pytest.mark.parametrize("args, fragment", [
    (("--level", "hlo", "--select", "no_such_binding"),
     "--select no_such_binding: no item or layer of that name at hlo for tvm:cpu"),
    (("--level", "optimized-hlo", "--select", "lv1", "--json"), "items: reshape, fused_conv2d_relu"),
    # a layer is its items at the level (`--select conv2d` at kernels is conv2d's kernel), a name neither is refused
    (("--level", "kernels", "--select", "conv2d_1"), "no item or layer of that name at kernels for tvm:cpu"),
])
def test_a_bad_select_is_one_line_error(args, fragment):
    result = run_cli("inspect", TVM_BUNDLE, "--target", "tvm:cpu", *args)
    assert_one_line_error(result, fragment)
    assert result.stdout == ""  # nothing half-written


def test_a_storage_of_tvms_memory_plan_is_selected_by_its_index():
    text = inspect("--level", "memory", "--select", "0")
    tail = text.split("\n\nselected: 0\n", 1)[1].splitlines()
    assert tail[0] == "  layer: created by TVM"  # not XLA's words on TVM's plan
    assert "  explanations: compiler:tvm-storage; compiler:tvm-memory-plan" in tail
