"""The Python end of the passport from the capture's own records (issue 27): each TensorFlow graph
op's traceback (`GraphOp.source`) gives `cpu` its own Keras lines, and a `module:function` model's
layers carry where the user's function called them (`LayerRecord.called_at`), shown first. Read on
the recorded `tiny_convnet` bundle (tests/fixtures/bundles/record_tiny_convnet.py: the model file
tests/fixtures/function_model/tiny_convnet.py captured on cpu); a bundle recorded before the
tracebacks (the mnist_cnn fixture with them taken out) still opens and borrows. Also the source
view (`0`) decided in the core, and the capture's path and frame rules on frames made here."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.capture.source_lines import op_source, relative_file
from explorer.cli.main import main
from explorer.model.bundle import Bundle
from explorer.model.graph_file import load_graph_level
from explorer.model.serial import dump_json
from explorer.views.passport import passport
from explorer.views.passport.text import as_json, as_text
from explorer.views.source_view import line_place, notes, rows, source_for_selection, source_view, title

from tests.conftest import committed

FIXTURES = Path(__file__).parent / "fixtures"
TINY = FIXTURES / "bundles" / "tiny_convnet"
MODEL_FILE = FIXTURES / "function_model" / "tiny_convnet.py"
# An absolute path anywhere in an output: a slash-led run of at least two folders.
ABSOLUTE = re.compile(r"(?<![\w.<>])/(?:[\w.\-]+/){2,}")


@pytest.fixture(scope="module")
def tiny() -> Bundle:
    return Bundle.open(committed(TINY / "manifest.json").parent)


def python_hop(found):
    return next(hop for hop in found.hops if hop.level == "python")


def the_line_calling(layer: str) -> tuple[int, str]:
    """(number, text) of the model file's line that calls `layer`, read from the file itself."""
    for number, text in enumerate(MODEL_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if f'name="{layer}"' in text and "layers." in text:
            return number, text.strip()
    raise AssertionError(f"no line calls {layer}")


@pytest.mark.parametrize("layer", ["conv", "logits"])
def test_a_module_function_models_own_line_comes_first(tiny, layer):
    hop = python_hop(passport(tiny, "cpu", layer))
    details = dict(hop.details)
    number, text = the_line_calling(layer)
    assert (details["file"], details["line"], details["text"]) == ("tiny_convnet.py", number, text)
    first = details["source_lines"][0]
    assert first["user"] and first["function"] == "build"
    assert hop.lines[0].endswith("(your line)")
    assert not any(line["user"] for line in details["source_lines"][1:])  # below it: Keras's lines


def test_cpu_reads_its_own_keras_lines_from_the_ops_tracebacks(tiny):
    hop = python_hop(passport(tiny, "cpu", "conv"))
    assert hop.evidence == "op_traceback" and hop.heuristic == ""  # nothing borrowed from another target
    lines = dict(hop.details)["source_lines"]
    calls = [line for line in lines if line["function"] == "call"]
    assert calls[0]["file"] == "keras/src/layers/convolutional/base_conv.py"
    assert calls[0]["text"] == "outputs = self.convolution_op(inputs, self.kernel)"
    emitting = {line["text"]: line["instructions"] for line in lines if line["instructions"]}
    conv = tiny.hlo_module("cpu").entry  # the instruction the backend's line emitted is the convolution
    by_name = {i.name: i.opcode for i in conv.instructions}
    assert [by_name[n] for n in emitting["result = tf.nn.convolution("]] == ["convolution"]
    assert all(not line["file"].startswith("tensorflow/") for line in lines)  # TF's own frames are cut


def test_the_recorded_graph_keeps_tracebacks_only_on_the_layers_working_ops(tiny):
    ops = tiny.graph.ops
    with_source = [op for op in ops if op.source]
    assert with_source and all(op.layer for op in with_source)
    assert not any(op.source for op in ops if op.op in ("Placeholder", "ReadVariableOp", "Const"))
    assert not any(op.source for op in tiny.graph.optimized_ops)


@pytest.fixture(scope="module")
def older(recorded_bundle, tmp_path_factory) -> Bundle:
    """The recorded mnist_cnn bundle as captured before the TF worker recorded tracebacks: its
    graph.json without `source` (inline, no table), everything else as committed."""
    path = tmp_path_factory.mktemp("older") / "mnist_cnn"
    shutil.copytree(recorded_bundle, path)
    graph = load_graph_level(path / "graph.json")
    assert any(op.source for op in graph.ops)  # the committed fixture has them (spliced from a fresh capture)
    dump_json(replace(graph, ops=tuple(replace(op, source=()) for op in graph.ops)), path / "graph.json")
    return Bundle.open(path)


def test_an_older_bundle_without_tracebacks_still_opens_and_borrows(older):
    bundle = older
    assert not any(op.source for op in bundle.graph.ops)
    assert not any(record.called_at for record in bundle.layers)
    hop = python_hop(passport(bundle, "cpu", "conv2d"))
    assert hop.evidence == "stack_frames" and "gpu:h100" in hop.heuristic


def test_outputs_name_no_absolute_path(tiny, capsys):
    found = passport(tiny, "cpu", "conv")
    view = source_view(tiny, "cpu", "layers", "conv")
    texts = [as_text(found), as_json(found), title(view, "en"), *notes(view, "en"),
             *(f"{row.heading} {' '.join(row.body)}" for row in rows(view, "en"))]
    for path in (TINY / "graph.json", TINY / "layers.json"):
        texts.append(path.read_text(encoding="utf-8"))
    assert main(["passport", str(TINY), "--layer", "conv", "--json"]) == 0
    texts.append(capsys.readouterr().out)
    assert json.loads(texts[-1])["hops"][0]["file"] == "tiny_convnet.py"
    assert not any(ABSOLUTE.search(text) for text in texts)


# --- the source view (`0`) ----------------------------------------------------------------------


def test_source_view_of_a_layer_lists_the_lines_with_what_each_produced(tiny):
    view = source_view(tiny, "cpu", "layers", "conv")
    shown = rows(view, "en")
    assert shown[0].heading == "tiny_convnet.py:14  build  (your line)"
    assert shown[0].body[1].startswith("-> reaches: convolution.1")
    backend = next(row for row in shown if row.body[0] == "result = tf.nn.convolution(")
    assert backend.body[1] == "-> emits: convolution.1"
    assert line_place(view, 0) == ("cpu", "hlo", "convolution.1")
    assert line_place(view, len(view.lines)) is None


def test_source_view_of_an_hlo_instruction_shows_only_its_own_lines(tiny):
    view = source_view(tiny, "cpu", "hlo", "Relu.4")
    assert view.level == "hlo" and view.layer == "conv"
    assert title(view, "en") == "Python source of Relu.4 (HLO) on cpu"  # the level by its label, in each language
    assert title(view, "de") == "Python-Quelle von Relu.4 (HLO) auf cpu"
    assert {name for line in view.lines for name in line.produced} == {"Relu.4"}
    assert [line.text for line in view.lines][-1] == "return tf.nn.relu(x)"


def test_source_view_of_a_fusion_follows_it_up_to_its_hlo_instructions(tiny):
    fusion = passport(tiny, "cpu", "conv").tensor  # the optimized instruction holding conv's output
    view = source_view(tiny, "cpu", "optimized-hlo", fusion)
    assert view.level == "optimized-hlo" and view.item == fusion
    assert any(line.text == "return tf.nn.relu(x)" for line in view.lines)


def test_source_view_on_the_old_bundle_borrows_and_says_so(older):
    bundle = older
    view = source_for_selection(bundle, "memory", {"layers": "dense"}, "cpu")
    assert view.layer == "dense" and view.target == "gpu:h100"  # Enter goes where the lines were read
    assert any("gpu:h100" in note for note in notes(view, "en"))
    assert line_place(view, 0)[:2] == ("gpu:h100", "hlo")
    first = source_for_selection(bundle, "layers", {}, "cpu")
    assert first.layer == bundle.layers[0].name and not first.lines  # an InputLayer: nothing to show
    assert "not recoverable" in " ".join(notes(first, "en"))


def test_source_view_words_in_german(tiny):
    view = source_view(tiny, "cpu", "layers", "conv")
    assert title(view, "de") == "Python-Quelle von conv auf cpu"
    assert rows(view, "de")[0].heading.endswith("(Ihre Zeile)")


# --- the capture's rules, on frames made here ---------------------------------------------------


def frame(filename, lineno, name):
    return SimpleNamespace(filename=filename, lineno=lineno, name=name)


def test_relative_file_never_returns_an_absolute_path(tmp_path):
    import sysconfig

    purelib = sysconfig.get_paths()["purelib"]
    assert relative_file(f"{purelib}/keras/src/ops/nn.py") == "keras/src/ops/nn.py"
    assert relative_file(str(tmp_path / "models" / "net.py"), str(tmp_path)) == "models/net.py"
    assert relative_file(str(tmp_path / "elsewhere.py")) == "<path>/elsewhere.py"
    assert relative_file("<frozen runpy>") == "<frozen runpy>"


def test_op_source_cuts_at_the_layers_call_and_drops_tensorflows_frames(tmp_path):
    import sysconfig

    site = sysconfig.get_paths()["purelib"]
    traceback = [frame(str(tmp_path / "run.py"), 3, "<module>"),
                 frame(f"{site}/keras/src/layers/layer.py", 1002, "__call__"),
                 frame(f"{site}/keras/src/utils/traceback_utils.py", 117, "error_handler"),
                 frame(f"{site}/keras/src/layers/core/dense.py", 222, "call"),
                 frame(f"{site}/keras/src/ops/numpy.py", 5114, "matmul"),
                 frame(f"{site}/tensorflow/python/framework/ops.py", 1221, "from_node_def")]
    lines = op_source(traceback)
    assert [(line.file, line.line, line.function) for line in lines] == [
        ("keras/src/layers/core/dense.py", 222, "call"), ("keras/src/ops/numpy.py", 5114, "matmul")]
