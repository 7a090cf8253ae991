"""The what-if lab's diff on recorded variant bundles: mnist_cnn on XLA:CPU at batch 1 and 64, in
float32 and bfloat16, and with XLA's fusion pass switched off (tests/fixtures/bundles/variants/,
recorded by record_variants.py). What `tensorweg diff` prints comes from these functions."""

from __future__ import annotations

import json
import shutil

import pytest

from explorer.cli.main import main
from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.model.buffer_assignment import occupied_bytes
from explorer.model.bundle import Bundle
from explorer.model.records import Allocation, AssignedValue, LiveRange, MemoryLevel
from explorer.texts.lookup import explain_topic
from explorer.views.format import format_bytes
from explorer.views.whatif.choice import cached_variants
from explorer.views.whatif.diff import DELTA_KINDS, variant_diff
from explorer.views.whatif.diff_text import as_json, as_text, kernels_note, layer_rows, narration_key, totals_rows
from explorer.views.whatif.panes import whatif_panes
from explorer.views.whatif.skyline import draw, peak_lines, skyline

from tests.conftest import FIXTURES, committed

VARIANTS = FIXTURES / "bundles" / "variants"


def bundle(name: str) -> Bundle:
    return Bundle.open(committed(VARIANTS / name / "manifest.json").parent)


def diff_of(before: str, after: str, target: str = "cpu"):
    return variant_diff((before, bundle(before)), (after, bundle(after)), target)


def layer(diff, name: str):
    return next(delta for delta in diff.layers if delta.layer == name)


def test_the_fixtures_record_the_variant_in_their_manifest():
    assert bundle("batch64").manifest.options.batch == 64
    assert bundle("bfloat16").manifest.options.dtype == "bfloat16"
    assert bundle("no_fusion").manifest.options.xla_flags == (("xla_disable_hlo_passes", "fusion"),)
    assert {record.dtype_policy for record in bundle("bfloat16").layers} == {"bfloat16"}


def test_batch_64_multiplies_the_work_of_every_layer_and_raises_the_peak():
    diff = diff_of("batch1", "batch64")
    conv = layer(diff, "conv2d")
    assert conv.after.flops == pytest.approx(64 * conv.before.flops)
    assert conv.after.bytes_accessed > conv.before.bytes_accessed
    assert {"flops", "bytes"} <= set(conv.changed)
    before, after = diff.variants
    assert after.peak_bytes > before.peak_bytes
    assert "peak" in diff.kinds


def test_switching_off_fusion_leaves_the_flops_and_splits_the_fusions_of_each_layer():
    diff = diff_of("batch1", "no_fusion")
    before, after = diff.variants
    assert after.flops == before.flops
    assert after.fusions > before.fusions and after.kernels > before.kernels
    assert after.bytes_accessed > before.bytes_accessed  # every unfused value goes through memory
    conv = layer(diff, "conv2d")
    assert conv.after.fusions > conv.before.fusions
    assert "flops" not in conv.changed and "fusions" in conv.changed
    assert "flops" not in diff.kinds


def test_fusions_are_matched_by_the_layers_they_compute_not_by_name():
    diff = diff_of("batch1", "no_fusion")
    changed = {change.layers: change for change in diff.fusion_changes}
    conv = changed[("conv2d",)]
    assert len(conv.after) > len(conv.before) == 1
    assert all(text.startswith("wrapped_") for text in conv.after)  # XLA's fusion wrapper: one op each
    # A layer whose fusions are the same kinds in both is not listed, whatever XLA named them.
    assert ("max_pooling2d",) not in changed


def test_bfloat16_halves_the_bytes_the_dense_layer_moves_and_lowers_the_peak():
    diff = diff_of("batch1", "bfloat16")
    dense = layer(diff, "dense")
    assert dense.after.bytes_accessed < 0.6 * dense.before.bytes_accessed
    before, after = diff.variants
    assert after.peak_bytes < before.peak_bytes


def test_the_same_capture_twice_has_no_delta():
    diff = diff_of("batch1", "batch1")
    assert diff.kinds == ()
    assert diff.fusion_changes == ()
    assert all(not delta.changed for delta in diff.layers)


def test_every_kind_of_delta_has_a_course_text_in_both_languages():
    for kind in DELTA_KINDS:
        for lang in ("en", "de"):
            text = explain_topic(narration_key(kind), lang)
            assert text.body and text.source.strip(), (kind, lang)


def test_text_names_the_variants_marks_changed_layers_and_says_why():
    diff = diff_of("batch1", "no_fusion")
    text = as_text(diff, "de")
    assert text.splitlines()[0] == "mnist_cnn auf cpu: batch1 gegen no_fusion"
    conv_row = next(line for line in text.splitlines() if " conv2d " in line)
    assert conv_row.startswith("*") and "->" in conv_row
    assert explain_topic("whatif:fusions", "de").title in text
    assert "geänderte Fusionen" in text
    assert "fusions that changed" in as_text(diff, "en")


def test_json_has_the_variants_and_per_layer_deltas():
    data = json.loads(as_json(diff_of("batch1", "batch64")))
    labels = [variant["label"] for variant in data["variants"]]
    assert labels == ["batch1", "batch64"]
    for variant in data["variants"]:
        assert {"label", "peak_bytes", "fusions", "kernels"} <= set(variant)
    conv = next(entry for entry in data["layers"] if entry["layer"] == "conv2d")
    assert conv["delta"]["flops"] == conv["after"]["flops"] - conv["before"]["flops"] > 0
    assert "flops" in conv["changed"]
    assert "whatif:flops" in data["explanations"]


def test_on_the_tpu_the_kernels_are_the_instructions_and_shown_once_with_a_note():
    """XLA:TPU's kernels are the entry computation's working instructions (program steps): two equal
    columns would look like two pieces of evidence. The recorded mnist_cnn bundle has tpu:v5e."""
    mnist = Bundle.open(committed(FIXTURES / "bundles" / "mnist_cnn" / "manifest.json").parent)
    tpu = variant_diff(("a", mnist), ("b", mnist), "tpu:v5e")
    assert all(v.kernels == v.instructions for v in tpu.variants)
    for lang, kernels in (("en", "kernels"), ("de", "Kernel")):
        text = as_text(tpu, lang)
        model_rows = text.split("\n\n")[1].splitlines()
        assert not any(row.startswith(f"{kernels} ") for row in model_rows)
        assert sum(label("whatif.kernels_are_steps", lang) == line for line in text.splitlines()) == 1
        header, _ = layer_rows(tpu, lang)
        assert kernels not in header and label("whatif.col.instructions", lang) in header
    assert label("whatif.kernels_are_steps", "en") in whatif_panes(
        ("a", mnist), ("b", mnist), "tpu:v5e", "conv2d", "en", 120).model
    json_variant = json.loads(as_json(tpu))["variants"][0]
    assert json_variant["kernels"] == json_variant["instructions"]  # the JSON keeps both fields


def test_on_cpu_and_gpu_kernels_and_instructions_stay_two_columns_without_the_note():
    cpu = diff_of("batch1", "no_fusion")
    assert kernels_note(cpu) == ""
    assert "kernels" in layer_rows(cpu)[0]
    assert any(row[0] == "kernels" for row in totals_rows(cpu))


def test_a_target_one_capture_lacks_is_refused():
    with pytest.raises(TensorwegError, match="no tpu:v5e in this capture"):
        diff_of("batch1", "batch64", "tpu:v5e")


def test_captures_of_different_models_are_refused():
    nested = Bundle.open(committed(FIXTURES / "bundles" / "nested_block" / "manifest.json").parent)
    with pytest.raises(TensorwegError, match="different models"):
        variant_diff(("batch1", bundle("batch1")), ("nested", nested), "cpu")


def test_diff_of_two_bundles_on_the_command_line(capsys):
    assert main(["diff", str(VARIANTS / "batch1"), str(VARIANTS / "bfloat16"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [variant["label"] for variant in data["variants"]] == ["batch1", "bfloat16"]
    assert data["target"] == "cpu"


def test_the_skyline_draws_both_variants_on_one_scale_and_names_the_buffers_at_the_peak():
    small, large = skyline(bundle("batch1"), "cpu"), skyline(bundle("batch64"), "cpu")
    assert large.peak_bytes > small.peak_bytes
    scale = large.peak_bytes
    assert "█" in draw(large.live, 40, scale) and "█" not in draw(small.live, 40, scale)
    assert len(draw(large.live, 5, scale)) == 5  # a narrow screen gets the most live of each stretch
    roles = {buffer.role for buffer in small.at_peak}
    assert {"weights", "inputs", "activations"} <= roles
    # the batch's activations: conv2d's ReLU output and the pooling it feeds, as XLA lists its peak
    # (`Live ranges at 9 (peak)`; the convolution's own output shares the ReLU's slot, so it is gone)
    assert [(buffer.layer, buffer.role) for buffer in large.at_peak[:2]] == [
        ("conv2d", "activations"), ("max_pooling2d", "activations")]
    assert sum(buffer.bytes for buffer in large.at_peak) == large.peak_bytes


@pytest.mark.parametrize("name", ["batch1", "batch64", "bfloat16", "no_fusion"])
def test_the_skylines_peak_is_what_the_buffer_assignment_holds_and_agrees_with_xlas_peak(name):
    """XLA:CPU gives an elementwise fusion its dying operand's slot (both values at one offset, both
    live at that position): summing the values put the peak above every allocation together (batch1:
    100,848 bytes against 84,700 allocated, XLA's own peak 84,624). Counted by offset, the peak is
    XLA's own figure (`Live ranges at N (peak)`), entry parameters included as XLA includes them."""
    memory = bundle(name).memory("cpu")
    found = skyline(bundle(name), "cpu")
    allocated = sum(allocation.size for allocation in memory.allocations)
    assert found.allocated_bytes == allocated and max(found.live) == found.peak_bytes <= allocated
    assert memory.peak_source == "xla"
    if name == "no_fusion":  # XLA's peak moment is two positions later, when one f32 constant has died
        assert found.peak_bytes == memory.peak_bytes + 4
    else:
        assert found.peak_bytes == memory.peak_bytes
    assert {"weights", "inputs"} <= {buffer.role for buffer in found.at_peak}  # the parameters are in it
    assert f"(allocated {format_bytes(allocated)})" in peak_lines(found)[0]


def test_values_sharing_a_slot_count_once_and_apart_count_both():
    shared = MemoryLevel(
        allocations=(Allocation(0, 64, "temp", values=(AssignedValue("a", "{}", 0, 32), AssignedValue("b", "{}", 0, 32),
                                                       AssignedValue("c", "{}", 32, 16))),
                     Allocation(1, 8, "parameter", values=(AssignedValue("p", "{}", 0, 8),))),
        peak_bytes=0,
        live_ranges=(LiveRange("p{}", 0, 3), LiveRange("a{}", 0, 1), LiveRange("b{}", 1, 2), LiveRange("c{}", 2, 3),
                     LiveRange("gone{}", 0, 3)))
    assert occupied_bytes(shared) == (40, 40, 56, 24)


def test_the_cache_offers_the_other_variants_of_the_same_model(tmp_path):
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    for name in ("batch1", "batch64", "no_fusion"):
        (bundles / name).symlink_to(VARIANTS / name, target_is_directory=True)
    (bundles / "nested").symlink_to(FIXTURES / "bundles" / "nested_block", target_is_directory=True)
    choices = cached_variants(bundle("batch1"), "cpu", root=tmp_path)
    assert [choice.label for choice in choices] == ["batch 64", "xla_disable_hlo_passes=fusion"]
    assert cached_variants(bundle("batch1"), "tpu:v5e", root=tmp_path) == ()
    assert [c.label for c in cached_variants(bundle("no_fusion"), "cpu", root=tmp_path)] == [
        "batch 64, no xla flags", "no xla flags"]


def test_a_capture_that_only_kept_the_passes_is_no_variant(tmp_path):
    """Issue 39: V offered a --passes capture of the same model as a variant "passes", with identical figures
    (the snapshots are kept beside the same program)."""
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    with_passes = bundles / "with_passes"
    shutil.copytree(VARIANTS / "batch1", with_passes)
    manifest = json.loads((with_passes / "manifest.json").read_text(encoding="utf-8"))
    manifest["options"]["passes"] = True
    (with_passes / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (bundles / "batch64").symlink_to(VARIANTS / "batch64", target_is_directory=True)
    assert [choice.label for choice in cached_variants(bundle("batch1"), "cpu", root=tmp_path)] == ["batch 64"]
