"""graph.json keeps each recorded Python line once (explorer/model/graph_file.py): written with a table,
read back to the same graph level, an older graph.json with the lines inline still reads, a broken
table is one DataError naming the file."""

from __future__ import annotations

import json

import pytest

from explorer.errors import DataError
from explorer.model.bundle import Bundle
from explorer.model.graph_file import SOURCE_TABLE, dump_graph_level, load_graph_level, packed
from explorer.model.records import GraphLevel, GraphOp, SourceLine
from explorer.model.serial import dump_json

from tests.conftest import FIXTURES, committed

CALL = SourceLine("keras/src/layers/core/dense.py", 150, "call", "x = ops.matmul(inputs, self.kernel)")
MATMUL = SourceLine("keras/src/backend/tensorflow/numpy.py", 470, "matmul", "return tf.matmul(x1, x2)")
ADD = SourceLine("keras/src/backend/tensorflow/numpy.py", 120, "add", "return tf.add(x1, x2)")


def level() -> GraphLevel:
    ops = (GraphOp("x", "Placeholder", (), ()),
           GraphOp("dense/MatMul", "MatMul", ("x:0",), (), layer="dense", source=(CALL, MATMUL)),
           GraphOp("dense/BiasAdd", "AddV2", ("dense/MatMul:0",), (), layer="dense", source=(CALL, ADD)))
    return GraphLevel(ops=ops, optimized_ops=(GraphOp("dense/MatMul", "MatMul", (), (), source=(CALL, MATMUL)),))


def test_each_line_is_written_once_and_read_back_to_the_same_level(tmp_path):
    path = tmp_path / "graph.json"
    dump_graph_level(level(), path)
    data = json.loads(path.read_text())
    assert len(data[SOURCE_TABLE]) == 3  # CALL, MATMUL, ADD: five references across four ops' lines
    assert data["ops"][1]["source"] == [0, 1] and data["ops"][2]["source"] == [0, 2]
    assert data["optimized_ops"][0]["source"] == [0, 1]
    assert load_graph_level(path) == level()


def test_a_graph_json_with_the_lines_inline_reads_as_before(tmp_path):
    path = tmp_path / "graph.json"
    dump_json(level(), path)
    assert SOURCE_TABLE not in json.loads(path.read_text())
    assert load_graph_level(path) == level()
    tiny = Bundle.open(committed(FIXTURES / "bundles" / "tiny_convnet" / "manifest.json").parent)
    assert any(op.source for op in tiny.graph.ops)  # the committed fixture keeps them inline


def test_without_any_lines_there_is_no_table(tmp_path):
    bare = GraphLevel(ops=(GraphOp("x", "Placeholder", (), ()),))
    assert SOURCE_TABLE not in packed({"ops": [{"name": "x", "source": []}]})
    dump_graph_level(bare, tmp_path / "graph.json")
    assert load_graph_level(tmp_path / "graph.json") == bare


@pytest.mark.parametrize("broken", [[0, 7], ["0"], 3])
def test_a_number_naming_no_line_is_one_data_error(tmp_path, broken):
    path = tmp_path / "graph.json"
    dump_graph_level(level(), path)
    data = json.loads(path.read_text())
    data["ops"][1]["source"] = broken
    path.write_text(json.dumps(data))
    with pytest.raises(DataError, match=r"^graph.json: ops: op 'dense/MatMul': source names no line") as caught:
        load_graph_level(path)
    assert "\n" not in str(caught.value)


def test_a_broken_table_is_one_data_error(tmp_path):
    path = tmp_path / "graph.json"
    dump_graph_level(level(), path)
    data = json.loads(path.read_text())
    data[SOURCE_TABLE][0] = {"file": 3}
    path.write_text(json.dumps(data))
    with pytest.raises(DataError, match=rf"^graph.json: {SOURCE_TABLE}: "):
        load_graph_level(path)
