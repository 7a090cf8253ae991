"""explorer/views/ on the recorded mnist_cnn bundle (cpu, gpu:h100, tpu:v5e), without Textual.

What these functions return is what the screens draw (the panes call them) and what
`tensorweg inspect` prints; the Pilot tests check that the screens show it.
"""

from __future__ import annotations

import subprocess
import sys
from functools import _lru_cache_wrapper

import pytest

from explorer.course import lessons
from explorer.course.tours import builtin_tours
from explorer.hlo.parser import parse_module
from explorer.levels import LIST_LEVELS, TARGET_LEVELS
from explorer.model.bundle import Bundle
from explorer.model.index import IndexEntry
from explorer.model.index_build import build_index
from explorer.model.records import LayerRecord
from explorer.texts.content_files import LANGUAGES
from explorer.views import compare as comparison
from explorer.views import explain, items, panes, tables, trace
from explorer.views import rows as rows_view
from explorer.views.mesh import layer as mesh_layer

from pilot_support import BUNDLE, needs_bundle
from tests.conftest import lines_run

pytestmark = needs_bundle
TARGETS = ("cpu", "gpu:h100", "tpu:v5e")


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(BUNDLE)


def every_item(bundle):
    """(level, target, name) of every row of every list level on every recorded target."""
    for level in LIST_LEVELS:
        for target in TARGETS if level in TARGET_LEVELS else ("cpu",):
            for item in rows_view.rows(bundle, level, target):
                yield level, target, item.name


# --- rows and the entry parameters ------------------------------------------------------------


def test_the_bundle_has_all_three_targets(bundle):
    assert bundle.targets == TARGETS


def test_rows_of_every_level_start_with_the_program(bundle):
    assert [i.name for i in rows_view.rows(bundle, "layers", "")] == [layer.name for layer in bundle.layers]
    optimized = rows_view.rows(bundle, "optimized-hlo", "tpu:v5e")
    module = bundle.hlo_module("tpu:v5e", optimized=True)
    assert {i.name for i in optimized} == {i.name for _, i in module.all_instructions()}
    assert optimized[0].name in {i.name for i in module.entry.instructions}
    assert rows_view.rows(bundle, "kernels", "gpu:h100") and rows_view.rows(bundle, "graph", "tpu:v5e")
    assert rows_view.rows(None, "hlo", "cpu") == () and rows_view.rows(bundle, "memory", "cpu") == ()


@pytest.mark.parametrize(("target", "names"), [
    ("cpu", ("arg0.1", "arg1.1", "arg2.1", "arg3.1", "arg4.1")),
    ("gpu:h100", ("x.1", "trainable_0_.1", "trainable_1_.1", "trainable_2_.1", "trainable_3_.1")),
    ("tpu:v5e", ("x.1", "trainable_0_.1", "trainable_1_.1", "trainable_2_.1", "trainable_3_.1")),
])
@pytest.mark.parametrize("level", ["hlo", "optimized-hlo"])
def test_entry_parameters_are_the_input_and_the_layers_weights(bundle, target, names, level):
    """TF's `XLA_Args` and JAX's `trainable[i]` are linked, never listed as created by XLA."""
    expected = ("input image", "weight 1 of 2 of conv2d", "weight 2 of 2 of conv2d",
                "weight 1 of 2 of dense", "weight 2 of 2 of dense")
    rows = {item.name: item for item in rows_view.rows(bundle, level, target)}
    created = rows_view.created_by_compiler(bundle, level, target)
    for name, role in zip(names, expected, strict=True):
        assert rows[name].cells[-1] == role, name
        assert rows_view.parameter_role(bundle, level, target, name) == role
        assert name not in created
        assert trace.layer_of(bundle, level, name, target) == role.rsplit(" ", 1)[-1]
        device = panes.device_lines(bundle, level, name, target, target)
        assert items.CREATED_BY_XLA not in "\n".join(device), device
    weight = names[1]
    assert panes.memory_facts(bundle, level, target, weight)[0] == "holds  weight 1 of 2 of conv2d"
    assert weight in trace.items_for_layer(bundle, "conv2d", level, target)


@pytest.mark.parametrize("level", ["hlo", "optimized-hlo"])
def test_a_parameters_role_follows_the_language(bundle, level):
    """Issue 9: the role in the row, the memory pane and the device pane is worded in German too."""
    names = ("arg0.1", "arg1.1", "arg2.1", "arg3.1", "arg4.1")
    german = ("Eingabe image", "Gewicht 1 von 2 der Schicht conv2d", "Gewicht 2 von 2 der Schicht conv2d",
              "Gewicht 1 von 2 der Schicht dense", "Gewicht 2 von 2 der Schicht dense")
    rows = {item.name: item for item in rows_view.rows(bundle, level, "cpu", "de")}
    for name, role in zip(names, german, strict=True):
        assert rows[name].cells[-1] == role, name
        assert role.lower() in rows[name].search_text  # the filter finds what the row shows
        assert rows_view.parameter_role(bundle, level, "cpu", name, "de") == role
    assert panes.memory_facts(bundle, level, "cpu", "arg1.1", "de")[0] == "hält  Gewicht 1 von 2 der Schicht conv2d"
    # The English rows are cached apart from the German ones: asking in German changed nothing.
    assert {i.name: i for i in rows_view.rows(bundle, level, "cpu")}["arg1.1"].cells[-1] == "weight 1 of 2 of conv2d"


def _entry(layer: str, role: str, slot: tuple[int, ...]) -> IndexEntry:
    return IndexEntry("cpu", "hlo", "arg0.1", layer=layer, role=role, slot=slot)


@pytest.mark.parametrize(("entry", "english", "german"), [
    (_entry("x", "input", (1, 1)), "input x", "Eingabe x"),
    (_entry("", "input", (2, 3)), "model input 2 of 3", "Modelleingabe 2 von 3"),
    (_entry("", "input", ()), "model input", "Modelleingabe"),
    (_entry("pair", "input", (1, 2)), "input 1 of 2 pair", "Eingabe 1 von 2 pair"),
    (_entry("dense", "weight", (2, 2)), "weight 2 of 2 of dense", "Gewicht 2 von 2 der Schicht dense"),
    (_entry("", "weight", ()), "a model weight (no layer's parameter count matches)",
     "ein Gewicht des Modells (zu keiner Schicht passt die Parameterzahl)"),
    (_entry("dense", "", ()), "", ""),
    (None, "", ""),
])
def test_role_text_in_both_languages(entry, english, german):
    assert items.role_text(entry) == english
    assert items.role_text(entry, "de") == german


def test_group_headers_follow_the_language_and_keep_their_keys(bundle):
    """The header rows are worded in the language; the keys rows and folds refer to never change."""
    english = rows_view.row_groups(bundle, "optimized-hlo", "cpu")
    german = rows_view.row_groups(bundle, "optimized-hlo", "cpu", "de")
    assert list(english) == list(german)
    assert {i.group for i in rows_view.rows(bundle, "optimized-hlo", "cpu")} == {
        i.group for i in rows_view.rows(bundle, "optimized-hlo", "cpu", "de")}
    entry = bundle.hlo_module("cpu", optimized=True).entry.name
    parameters = english[f"parameters of {entry}"]
    assert parameters.cells == ("5 parameters", "parameter", "", "the model's inputs and weights")
    assert german[f"parameters of {entry}"].cells == ("5 Parameter", "parameter", "",
                                                       "die Eingaben und Gewichte des Modells")
    fused = next(key for key, group in english.items() if group.folded and group.line)  # a fusion
    size = english[fused].size
    assert english[fused].cells == (fused, "computation", "", f"fused, {size:,} instructions")
    assert german[fused].cells == (fused, "Berechnung", "", f"fusioniert, {size:,} Instruktionen")


def test_constant_and_called_computation_headers_in_both_languages(bundle):
    entry = bundle.hlo_module("cpu", optimized=True).entry.name
    constants = f"constants of {entry}"
    assert rows_view.row_groups(bundle, "optimized-hlo", "cpu")[constants].cells == (
        "2 constants", "constant", "", "literals the program uses")
    assert rows_view.row_groups(bundle, "optimized-hlo", "cpu", "de")[constants].cells == (
        "2 Konstanten", "constant", "", "Literale, die das Programm verwendet")
    english = rows_view.row_groups(bundle, "hlo", "cpu")
    german = rows_view.row_groups(bundle, "hlo", "cpu", "de")
    called = next(key for key, group in english.items() if group.line and not group.folded)  # not a fusion
    size = english[called].size
    assert english[called].cells == (called, "computation", "", f"{size:,} instructions")
    assert german[called].cells == (called, "Berechnung", "", f"{size:,} Instruktionen")


def test_parameter_links_are_built_in_one_pass_for_a_thousand_weights():
    """NASNet-sized: 1,500 layers of kernel and bias, TF style (input first, then the variables).

    The work is counted, not timed (bench/bench_index.py times a real NASNet build): twice the
    layers run about twice the Python lines; a pass over the layers per weight would run four times.
    """
    half, _ = lines_run(build_index, *_weights_by_layer(750))
    lines, index = lines_run(build_index, *_weights_by_layer(1500))
    assert lines < 2.2 * half, (half, lines)
    last = index.entry("hlo", "arg3000.1", "cpu")
    assert (last.layer, last.role, last.slot) == ("layer_1499", "weight", (2, 2))
    assert index.entry("hlo", "arg0.1", "cpu").role == "input"


def _weights_by_layer(count: int) -> tuple:
    """build_index's arguments for `count` Dense layers whose kernel and bias the entry receives."""
    layers = [LayerRecord(f"layer_{n}", f"layer_{n}", "Dense", (), (), "float32", 4 * 3 + 3, 0, 0, 0)
              for n in range(count)]
    params = ["%arg0.1 = f32[1,4]{1,0} parameter(0), metadata={op_name=\"XLA_Args\"}"]
    for n in range(count):
        params.append(f"%arg{2 * n + 1}.1 = f32[4,3]{{1,0}} parameter({2 * n + 1}), metadata={{op_name=\"XLA_Args\"}}")
        params.append(f"%arg{2 * n + 2}.1 = f32[3]{{0}} parameter({2 * n + 2}), metadata={{op_name=\"XLA_Args\"}}")
    text = "HloModule m\n\nENTRY %main {\n  " + "\n  ".join(params) + "\n  ROOT %t = () tuple()\n}\n"
    return layers, None, {}, {("cpu", "hlo"): parse_module(text)}, {}


# --- the trace and the counterpart on another target ---------------------------------------------


def test_enter_on_a_layer_lands_on_its_work_not_on_its_weight(bundle):
    descent = trace.descend(bundle, "hlo", "conv_general_dilated.1", "tpu:v5e")
    assert descent.level == "optimized-hlo" and descent.select
    for target in TARGETS:
        hlo = trace.items_for_layer(bundle, "conv2d", "hlo", target)
        descent = trace.descend(bundle, "hlo", hlo[0], target)
        assert descent is not None and descent.level == "optimized-hlo"
    layer = trace.descend(bundle, "layers", "conv2d", "tpu:v5e")
    assert layer.level == "graph" and layer.select in layer.found
    assert trace.descend(bundle, "kernels", "pad", "tpu:v5e") is None


@pytest.mark.parametrize(("target", "expected"), [
    ("gpu:h100", "cudnn-conv-bias-activation.3"), ("tpu:v5e", "fusion.11")])
def test_the_conv_moves_to_the_conv_of_the_next_target(bundle, target, expected):
    """The issue's case: `t` on the conv of the optimized HLO must not jump to a parameter."""
    assert trace.counterpart(bundle, "optimized-hlo", "convolution.1", "cpu", target) == expected
    assert trace.counterpart(bundle, "optimized-hlo", expected, target, "cpu") == "convolution.1"
    assert trace.counterpart(bundle, "optimized-hlo", "arg1.1", "cpu", target) == "trainable_0_.1"
    assert trace.counterpart(bundle, "layers", "conv2d", "cpu", target) == "conv2d"


def test_every_item_keeps_its_layer_on_every_other_target(bundle):
    for level, target, name in every_item(bundle):
        layer = trace.layer_of(bundle, level, name, target)
        if level not in TARGET_LEVELS or not layer:
            continue
        for other in TARGETS:
            owned = [n for n in trace.items_for_layer(bundle, layer, level, other)
                     if trace.layer_of(bundle, level, n, other) == layer]
            found = trace.counterpart(bundle, level, name, target, other)
            if owned:
                assert trace.layer_of(bundle, level, found, other) == layer, (level, target, name, other, found)


def test_an_elementwise_fusion_moves_to_a_fusion_where_the_layer_has_one(bundle):
    """Fusion for fusion; (a fusion built around a convolution goes to the convolution, tested above)."""
    def instruction(target, name):
        return tables.instruction(bundle, "optimized-hlo", target, name)

    def elementwise(target, name):
        module = bundle.hlo_module(target, optimized=True)
        called = {c.name: c for c in module.computations}
        inside = [i.opcode for c in instruction(target, name).called_computations for i in called[c].instructions]
        return not {"convolution", "dot", "reduce", "reduce-window"} & set(inside)

    checked = 0
    for target in TARGETS:
        for item in rows_view.rows(bundle, "optimized-hlo", target):
            layer = trace.layer_of(bundle, "optimized-hlo", item.name, target)
            if item.kind != "fusion" or not layer or not elementwise(target, item.name):
                continue
            for other in set(TARGETS) - {target}:
                fusions = [n for n in trace.items_for_layer(bundle, layer, "optimized-hlo", other)
                           if instruction(other, n).opcode == "fusion"
                           and trace.layer_of(bundle, "optimized-hlo", n, other) == layer]
                found = trace.counterpart(bundle, "optimized-hlo", item.name, target, other)
                if fusions:
                    checked += 1
                    assert instruction(other, found).opcode == "fusion", (target, item.name, other, found)
    assert checked >= 4


# --- memory facts and the device mapping -----------------------------------------------------------


def test_memory_facts_of_a_tiled_tpu_fusion_name_tiles_padding_and_its_buffer(bundle):
    facts = "\n".join(panes.memory_facts(bundle, "optimized-hlo", "tpu:v5e", "fusion.11"))
    assert "tiles  T(8,128)" in facts and "with (+" in facts
    assert "memory space S(1) on-chip VMEM" in facts
    assert "buffer allocation 22 (preallocated-temp" in facts and "live   positions" in facts
    assert panes.memory_facts(bundle, "layers", "", "conv2d")[0].startswith("dtype policy")
    assert panes.memory_facts(bundle, "kernels", "cpu", "nope") == ("nothing recorded for this item",)


@pytest.mark.parametrize("target", TARGETS)
def test_device_lines_list_what_the_compare_view_lists(bundle, target):
    """The device pane and `tensorweg compare` read the same `comparison.target_layer`."""
    lines = panes.device_lines(bundle, "layers", "conv2d", "cpu", target)
    column = comparison.target_layer(bundle, "conv2d", target)
    assert lines[0] == f"{target}  (layer conv2d)"
    for item in column.working:
        assert any(line.startswith(f"  {item.name}: ") for line in lines), item.name
    for brief in column.kernels:
        assert any(line.startswith(f"  kernel {brief.name} [{brief.kind}]") for line in lines)


def test_the_conv_layer_on_gpu_names_the_cudnn_call(bundle):
    lines = panes.device_lines(bundle, "layers", "conv2d", "cpu", "gpu:h100")
    assert "  cudnn-conv-bias-activation.3: __cudnn$convBiasActivationForward" in lines


# --- explanations ------------------------------------------------------------------------------------


def test_a_tpu_koutput_fusion_gets_its_fusion_text_then_layout_vmem_and_allocation(bundle):
    keys = explain.explanation_keys(bundle, "optimized-hlo", "tpu:v5e", "fusion.11")
    assert keys[0] == ("fusion:kOutput", "hlo:fusion")
    assert ("memory:vmem",) in keys and any(k[0] == "layout:tiles" for k in keys)
    assert any(k[0].startswith("allocation:") for k in keys)
    texts = explain.explanations(bundle, "optimized-hlo", "tpu:v5e", "fusion.11", "en")
    assert texts[0].key == "fusion:kOutput"
    assert {"memory:vmem", "layout:tiles"} <= {t.key.split("@")[0] for t in texts}


def test_a_custom_call_gets_its_target_text(bundle):
    keys = explain.explanation_keys(bundle, "optimized-hlo", "gpu:h100", "cudnn-conv-bias-activation.3")
    assert keys[0] == ("custom-call:__cudnn$convBiasActivationForward", "hlo:custom-call")
    assert explain.explanations(bundle, "optimized-hlo", "gpu:h100", "cudnn-conv-bias-activation.3",
                             "en")[0].fallback != "level"


def test_memory_allocations_get_their_kind_text(bundle):
    memory = bundle.memory("tpu:v5e")
    allocation = memory.allocations[0]
    keys = explain.explanation_keys(bundle, "memory", "tpu:v5e", str(allocation.index))
    assert keys[0][0] == f"allocation:{allocation.kind}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_item_of_the_recorded_bundle_gets_more_than_its_level_text(bundle, lang):
    """The same function the explanation pane calls: a new kind of item without a text fails here."""
    gaps = set()
    for level, target, name in every_item(bundle):
        keys = explain.explanation_keys(bundle, level, target, name)
        assert keys, (level, target, name)
        # explanations() drops duplicate texts, so it may give fewer than there are key groups.
        for group, text in zip(keys, explain.explanations(bundle, level, target, name, lang), strict=False):
            if text.fallback == "level":
                gaps.add(f"{level} {target}: {' / '.join(group)}")
    for target in TARGETS:
        for allocation in bundle.memory(target).allocations:
            for text in explain.explanations(bundle, "memory", target, str(allocation.index), lang):
                if text.fallback == "level":
                    gaps.add(f"memory {target}: allocation {allocation.kind}")
    assert not gaps, "only the level's text for:\n" + "\n".join(sorted(gaps))


# --- tours ---------------------------------------------------------------------------------------------


def test_tour_candidates_describe_fusions_by_opcode_and_kind(bundle):
    candidates = {c.name: c for c in lessons.tour_candidates(bundle, "optimized-hlo", "tpu:v5e")}
    assert candidates["fusion.11"].kinds == ("fusion", "kOutput")
    assert candidates["fusion.11"].layer == "conv2d"
    nested = {i.name for c in bundle.hlo_module("tpu:v5e", True).computations if c.is_fusion for i in c.instructions}
    assert not nested & set(candidates)


@pytest.mark.parametrize("name", [name for name, tour in builtin_tours() if tour.model == "mnist_cnn"])
def test_every_mnist_tour_step_selects_an_item_of_the_recorded_bundle(bundle, name):
    tour = dict(builtin_tours())[name]
    missing = [f"line {step.line}: {step.level} {step.target} select={step.selection.text}"
               for step in tour.steps if step.selection is not None
               and step.target in bundle.targets and lessons.resolve_tour_step(bundle, step) is None]
    assert not missing, "selects nothing:\n" + "\n".join(missing)


# --- shape -------------------------------------------------------------------------------------------------


def test_every_cache_of_the_view_is_bounded_and_keeps_only_a_few_bundles():
    caches = [f for module in (tables, rows_view, trace, explain, panes, mesh_layer) for f in vars(module).values()
              if isinstance(f, _lru_cache_wrapper)]
    assert caches and all(f.cache_parameters()["maxsize"] is not None for f in caches)
    for _ in range(tables._BUNDLES + 3):  # a capture replaces its staging bundle at every level
        opened = Bundle.open(BUNDLE)
        rows_view.rows(opened, "optimized-hlo", "tpu:v5e")
        panes.memory_facts(opened, "optimized-hlo", "tpu:v5e", "fusion.11")
    assert tables._tables.cache_info().currsize <= tables._BUNDLES


def test_the_view_imports_no_textual():
    code = ("import importlib, pkgutil, sys, explorer.views as views\n"
            "for info in pkgutil.iter_modules(views.__path__): importlib.import_module('explorer.views.' + info.name)\n"
            "print([m for m in ('textual', 'screens') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_inspect_prints_the_layers_and_roles_the_screens_show(bundle):
    from explorer.views import inspect as inspect_view

    data = inspect_view.level_data(bundle, "hlo", "cpu")
    by_name = {i["name"]: i for i in data["instructions"]}
    assert (by_name["arg1.1"]["layer"], by_name["arg1.1"]["role"]) == ("conv2d", "weight 1 of 2 of conv2d")
    assert (by_name["arg0.1"]["layer"], by_name["arg0.1"]["role"]) == ("image", "input image")
    assert "role" not in by_name["convolution.1"]
    for name, item in by_name.items():
        assert item["layer"] == trace.layer_of(bundle, "hlo", name, "cpu")
    kernels = inspect_view.level_data(bundle, "kernels", "gpu:h100")["kernels"]
    assert all(k["layer"] == trace.layer_of(bundle, "kernels", k["name"], "gpu:h100") for k in kernels)


def test_the_texts_carry_the_items_own_figures(bundle):
    texts = {t.key: t for t in explain.explanations(bundle, "optimized-hlo", "tpu:v5e", "fusion.11", "en")}
    assert "26,624" in texts["memory:vmem"].body  # f32[26,8,4,8]: its bytes without padding
    assert dict(explain.figures(bundle, "kernels", "gpu:h100", "loop_multiply_fusion"))["grid"] == (106, 1, 1)
    german = explain.explanations(bundle, "optimized-hlo", "tpu:v5e", "fusion.11", "de")
    assert any("26.624" in t.body for t in german)


@pytest.mark.parametrize("target", TARGETS)
def test_the_trace_up_is_the_trace_down_read_backwards(bundle, target):
    linked = 0
    for level in ("graph", "hlo", "optimized-hlo", "kernels"):
        for item in rows_view.rows(bundle, level, target):
            for above in trace.up(bundle, level, item.name, target):
                upper = "layers" if level == "graph" else {"hlo": "graph" if target == "cpu" else "layers",
                                                           "optimized-hlo": "hlo", "kernels": "optimized-hlo"}[level]
                if upper != "layers":
                    assert item.name in trace.down(bundle, upper, above, target), (level, item.name, above)
                linked += 1
    assert linked > 20
    assert trace.up(bundle, "optimized-hlo", "convolution.1", "cpu") == ("convolution.1",) or target != "cpu"
