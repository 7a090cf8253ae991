"""tvm:cpu at the levels the learner knows, on a recorded capture (tests/fixtures/bundles/mnist_cnn_tvm,
see its README): Relax as rows of the HLO levels, the trace and `t` between XLA and TVM, the
explanation texts of TVM items, the lesson "Zwei Compiler, ein Modell" (Pilot and snapshot too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_course import needed_keys

from explorer.course import exercises, lessons
from explorer.course.tours import builtin_tour
from explorer.model.bundle import Bundle
from explorer.texts.content_files import LANGUAGES
from explorer.views import explain as explain_view
from explorer.views import rows as rows_view
from explorer.views import trace

from screens.app import create_app
from screens.widgets.item_table import ItemTable

from pilot_support import opened, sync, target_key_keeps_layers

TVM_BUNDLE = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn_tvm"
LESSONS = ("zwei_compiler", "two_compilers")


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(TVM_BUNDLE)


def test_hlo_level_lists_relax_as_imported_one_binding_per_op(bundle):
    rows = {item.name: item for item in rows_view.rows(bundle, "hlo", "tvm:cpu")}
    assert rows["lv1"].cells == ("lv1", "nn.conv2d", "f32[1,8,26,26]", "conv2d")
    assert rows["gv"].kind == "nn.softmax"
    text = bundle.hlo_text("tvm:cpu").splitlines()
    assert "lv1: R.Tensor((1, 8, 26, 26)" in text[rows["lv1"].line - 1]  # the code view jumps to it


def test_optimized_level_lists_the_tir_functions_after_fusion_at_their_def(bundle):
    rows = {item.name: item for item in rows_view.rows(bundle, "optimized-hlo", "tvm:cpu")}
    assert list(rows) == ["reshape", "fused_conv2d_relu", "max_pool2d", "fused_transpose_reshape1", "matmul",
                          "softmax"]
    conv = rows["fused_conv2d_relu"]
    assert conv.cells == ("fused_conv2d_relu", "fusion", "f32[1,8,26,26]", "conv2d")
    assert bundle.hlo_text("tvm:cpu", optimized=True).splitlines()[conv.line - 1].strip().startswith(
        "def fused_conv2d_relu(")
    assert rows["fused_transpose_reshape1"].cells[3] == "max_pooling2d, flatten"


def test_the_trace_runs_from_the_relax_binding_to_the_function_and_its_code_and_back(bundle):
    assert trace.layer_of(bundle, "hlo", "lv2", "tvm:cpu") == "conv2d"
    assert trace.down(bundle, "hlo", "lv2", "tvm:cpu") == ("fused_conv2d_relu",)
    assert trace.down(bundle, "optimized-hlo", "fused_conv2d_relu", "tvm:cpu") == ("fused_conv2d_relu",)
    assert trace.up(bundle, "kernels", "fused_conv2d_relu", "tvm:cpu") == ("fused_conv2d_relu",)
    assert trace.up(bundle, "optimized-hlo", "fused_conv2d_relu", "tvm:cpu") == ("lv1", "lv2")
    assert "mnist_cnn_1/conv2d_1/convolution" in trace.up(bundle, "hlo", "lv1", "tvm:cpu")  # TF graph ops
    descent = trace.descend(bundle, "layers", "conv2d", "tvm:cpu")
    assert descent.level == "graph"
    assert trace.items_for_layer(bundle, "conv2d", "hlo", "tvm:cpu") == ("lv", "lv1", "lv2")


@pytest.mark.parametrize(("level", "xla", "tvm"), [
    ("hlo", "convolution.1", "lv1"),
    ("optimized-hlo", "convolution.1", "fused_conv2d_relu"),
    ("optimized-hlo", "broadcast_maximum_fusion", "fused_conv2d_relu"),
    ("optimized-hlo", "dot_add_fusion", "matmul"),
    ("kernels", "convolution.1", "fused_conv2d_relu"),
])
def test_t_between_xla_and_tvm_lands_on_the_same_work(bundle, level, xla, tvm):
    assert trace.counterpart(bundle, level, xla, "cpu", "tvm:cpu") == tvm
    back = trace.counterpart(bundle, level, tvm, "tvm:cpu", "cpu")
    assert trace.layer_of(bundle, level, back, "cpu") == trace.layer_of(bundle, level, xla, "cpu")


def test_every_tvm_item_gets_a_tvm_text_in_both_languages(bundle):
    """The coverage check of tests/test_course.py on the recorded capture: no level-generic text,
    and on tvm:cpu a text written for TVM (not XLA's kernel or allocation text)."""
    from explorer.texts.lookup import explain

    gaps, seen = [], set()
    for level, target, kind_keys in sorted(needed_keys(bundle)):
        for lang in LANGUAGES:
            text = explain(level, list(kind_keys), target, lang)
            if target == "tvm:cpu":
                seen.add(text.key)
            if text.fallback == "level" or (target == "tvm:cpu" and not text.key.startswith(
                    ("compiler:tvm-", "allocation:output"))):
                gaps.append(f"{lang} {level} {target}: {kind_keys} -> {text.key}")
    assert not gaps, "\n".join(gaps)
    assert {"compiler:tvm-relax", "compiler:tvm-fused-function", "compiler:tvm-tir", "compiler:tvm-codegen",
            "compiler:tvm-storage", "compiler:tvm-memory-plan", "compiler:tvm-pipeline"} <= seen


def test_the_codegen_text_quotes_the_functions_vector_width(bundle):
    texts = explain_view.explanations(bundle, "kernels", "tvm:cpu", "fused_conv2d_relu", "en")
    assert "512 bits" in next(t.body for t in texts if t.key == "compiler:tvm-codegen")


@pytest.mark.parametrize("name", LESSONS)
def test_the_two_compiler_lesson_selects_real_items_and_its_questions_check_the_capture(bundle, name):
    tour = builtin_tour(name)
    assert {step.target for step in tour.steps} == {"cpu", "tvm:cpu"}
    for step in tour.steps:
        if step.selection is not None:
            assert lessons.resolve_tour_step(bundle, step) is not None, (step.line, step.selection.text)
    select, most = (step for step in tour.steps if step.question is not None)
    assert exercises.check(bundle, select, "fused_conv2d_relu").correct
    assert not exercises.check(bundle, select, "reshape").correct
    # XLA:CPU made 8 kernels (a library convolution and its fusions), TVM 6 functions.
    assert (len(bundle.kernels("cpu")), len(bundle.kernels("tvm:cpu"))) == (8, 6)
    assert exercises.check(bundle, most, "cpu").correct
    assert not exercises.check(bundle, most, "tvm:cpu").correct


def _table(app) -> ItemTable:
    return app.items_table


@sync
async def test_t_to_tvm_on_the_hlo_levels_keeps_the_layer():
    app = create_app(TVM_BUNDLE, level="optimized-hlo", target="cpu", select="convolution.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert app.target == "tvm:cpu"
        assert _table(app).current.name == "fused_conv2d_relu"
        assert [item.name for item in _table(app).items][:2] == ["reshape", "fused_conv2d_relu"]
        app.goto_level("hlo", "lv1")
        await opened(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert (app.target, _table(app).current.name) == ("cpu", "convolution.1")
        assert await target_key_keeps_layers(app, pilot) >= 8


def test_snapshot_tvm_optimized_level(snap_compare):
    """tvm:cpu after fusion at 80x24: the TIR functions listed (fused_conv2d_relu selected, kind
    `fusion`, layer conv2d) and the module text at `def fused_conv2d_relu`."""
    app = create_app(TVM_BUNDLE, level="optimized-hlo", target="tvm:cpu", select="fused_conv2d_relu")
    assert snap_compare(app, run_before=opened, terminal_size=(80, 24))


def test_a_tour_adds_the_targets_its_steps_visit_to_the_capture():
    from screens.cli import with_tour_targets

    assert with_tour_targets("cpu,gpu:h100,tpu:v5e", builtin_tour("zwei_compiler")) == "cpu,gpu:h100,tpu:v5e,tvm:cpu"
    assert with_tour_targets("tvm:cpu", builtin_tour("two_compilers")) == "tvm:cpu,cpu"
