"""What the course texts and lessons claim, checked against the committed captures (issue 37).

The third fact-check found texts that said what the capture itself contradicts: XLA:CPU's fusion pass
"leaving the dot outside" while mnist_cnn's `dot_add_fusion` is a `kOutput` fusion of dot and add, a
bfloat16 variant's FLOPs "growing a little" by 36 %, a tile no committed capture has. Each claim a
capture can check is checked here, on the recorded bundles under tests/fixtures, through the functions
`tensorweg diff`, `tensorweg passport` and the screens use; the figures a text quotes are computed from
the capture, so a capture recorded again with other figures fails here until the text says them.
"""

from __future__ import annotations

import re

import pytest

from explorer.course.step_text import step_text
from explorer.course.tours import builtin_tour
from explorer.hlo import layout_math
from explorer.model import roofline
from explorer.model.bundle import Bundle
from explorer.targets import TARGETS
from explorer.texts.lookup import explain_topic
from explorer.views import panes, trace
from explorer.views.passport import passport
from explorer.views.passport.text import title
from explorer.views.tables import kernel
from explorer.views.whatif.diff import variant_diff
from explorer.views.whatif.skyline import skyline

from tests.conftest import FIXTURES, ROOT, committed

VARIANTS = FIXTURES / "bundles" / "variants"
MNIST = FIXTURES / "bundles" / "mnist_cnn"  # batch 1 on cpu, gpu:h100 and tpu:v5e


def bundle(path) -> Bundle:
    return Bundle.open(committed(path / "manifest.json").parent)


def text(key: str, lang: str = "en") -> str:
    return explain_topic(key, lang).body


def totals(before: str, after: str):
    diff = variant_diff((before, bundle(VARIANTS / before)), (after, bundle(VARIANTS / after)), "cpu")
    return diff.variants


def entry(found: Bundle, target: str, name: str):
    return next(i for i in found.hlo_module(target, True).entry.instructions if i.name == name)


# --- pass:fusion on XLA:CPU ---------------------------------------------------------------------------

def test_xla_cpu_output_fuses_the_matrix_vector_dot_with_its_add_as_the_fusion_text_says():
    found = bundle(VARIANTS / "batch1")
    module = found.hlo_module("cpu", True)
    fusion = entry(found, "cpu", "dot_add_fusion")
    fused = {i.opcode for i in module.computation(fusion.called_computations[0]).instructions}
    assert fusion.fusion_kind == "kOutput" and {"dot", "add"} <= fused
    assert kernel(found, "cpu", "dot_add_fusion").kind == "emitter"
    dot = next(i for i in module.computation(fusion.called_computations[0]).instructions if i.opcode == "dot")
    assert len(dot.shape.dims) <= 1  # matrix-vector: XLA:CPU's CanBeOutputFused
    for lang in ("en", "de"):
        body = text("pass:fusion", lang)
        assert "`kOutput`" in body and "`dot_add_fusion`" in body
    assert "the convolution and the dot stay outside" not in text("pass:fusion")


def test_at_batch_64_the_same_dot_has_two_dimensions_and_stays_a_call_of_its_own():
    found = bundle(VARIANTS / "batch64")
    dot = next(i for i in found.hlo_module("cpu", True).entry.instructions if i.opcode == "dot")
    assert len(dot.shape.dims) == 2 and kernel(found, "cpu", dot.name).kind == "library"
    assert "At batch 64 the same dense layer's `dot` has two dimensions" in text("pass:fusion")


# --- the what-if texts ---------------------------------------------------------------------------------

def test_the_flops_text_quotes_how_much_bfloat16_adds_and_the_convolution_stays_as_it_was():
    before, after = totals("batch1", "bfloat16")
    grown = round(100 * (after.flops / before.flops - 1))
    assert grown > 30  # not "a little"
    assert f"{grown}% more FLOPs" in text("whatif:flops") and f"{grown} % mehr FLOPs" in text("whatif:flops", "de")
    convolutions = [entry(bundle(VARIANTS / name), "cpu", "convolution.1") for name in ("batch1", "bfloat16")]
    assert len({c.shape.dims for c in convolutions}) == 1 and convolutions[1].shape.element_type == "f32"


def test_the_fusions_text_says_what_the_count_does_not_tell_with_the_recorded_figures():
    before, no_fusion = totals("batch1", "no_fusion")
    assert no_fusion.fusions > before.fusions and no_fusion.bytes_accessed > before.bytes_accessed
    _, bf16 = totals("batch1", "bfloat16")
    more, fewer = bf16.fusions - before.fusions, round(100 * (1 - bf16.bytes_accessed / before.bytes_accessed))
    _, batch64 = totals("batch1", "batch64")
    less, times = before.fusions - batch64.fusions, round(batch64.bytes_accessed / before.bytes_accessed)
    assert more > 0 and fewer > 0 and less > 0  # two of three variants: fusion count and bytes part ways
    english, german = text("whatif:fusions"), text("whatif:fusions", "de")
    assert f"adds {more} fusions and moves {fewer}% fewer bytes" in english
    assert f"{less} fusion fewer while its bytes grow {times}-fold" in english
    assert f"{more} Fusionen mehr und bewegt {fewer} % weniger Bytes" in german
    assert f"{less} Fusion weniger, während seine Bytes auf das {times}-Fache wachsen" in german
    assert "usually mean fewer round trips" not in english


def _tpu_captures() -> str:
    """Every committed TPU module's text (bundles, HLO fixtures, the v5e filmstrip)."""
    import gzip
    import json
    texts = [p.read_text("utf-8") for p in FIXTURES.rglob("*.txt") if "tpu" in str(p.relative_to(FIXTURES))]
    for path in FIXTURES.rglob("tpu-v5e/passes/frames.json.gz"):
        texts += json.loads(gzip.decompress(path.read_bytes()))
    return "\n".join(texts)


TPU = _tpu_captures()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_tile_the_what_if_tiles_text_names_is_in_a_committed_tpu_capture(lang):
    named = re.findall(r"`(T\([0-9,]+\)(?:\([0-9,]+\))*)`", text("whatif:tiles", lang))
    assert len(named) >= 5
    for tile in named:
        assert f":{tile}" in TPU or f"{tile}S(" in TPU or f"){tile[1:]}" in TPU, tile
    assert "T(16,128)" not in text("whatif:tiles", lang)


def test_the_tiles_the_layout_text_says_the_captures_show_are_in_them():
    pairs = re.findall(r"`(T\([0-9,]+\)(?:\([0-9,]+\))*)` for `([a-z0-9]+\[[0-9,]+\])`", text("layout:tiles"))
    assert len(pairs) >= 3
    for tile, shape in pairs:
        assert re.search(re.escape(shape) + r"\{[0-9,]*:" + re.escape(tile) + r"[}S]", TPU), (shape, tile)
    assert "picks tiles by the same rule" not in text("layout:tiles")


def test_a_tpu_estimate_already_takes_the_bf16_peak_for_f32_work_a_gpu_does_not():
    found = bundle(MNIST)
    peaks = {}
    for target in ("tpu:v5e", "gpu:h100"):
        module = found.hlo_module(target, True)
        work = next(i for i in module.entry.instructions if i.opcode == "fusion" and i.shape.element_type == "f32")
        peaks[target] = roofline.estimate(module, module.entry, work, TARGETS[target]).peak_dtype
    assert peaks == {"tpu:v5e": "bf16", "gpu:h100": "f32"}
    english = text("whatif:bound")
    assert "on a GPU it also moves the peak up" in english and "bf16 peak for `f32` work too" in english


# --- the passport ------------------------------------------------------------------------------------

def _conv_output(found: Bundle) -> str:
    """conv2d's convolution on the v5e, a `kOutput` fusion (its ReLU went into max_pooling2d's fusion)."""
    return next(name for name in trace.items_for_layer(found, "conv2d", "optimized-hlo", "tpu:v5e")
                if entry(found, "tpu:v5e", name).fusion_kind == "kOutput")


def test_a_tpu_pads_and_reshapes_the_dimensions_while_tile_padding_keeps_the_element_count():
    found = bundle(MNIST)
    shape = entry(found, "tpu:v5e", _conv_output(found)).shape
    assert shape.dims == (26, 8, 4, 8) and shape.element_count != 26 * 26 * 8  # Keras: (1, 26, 26, 8)
    assert layout_math.padded_byte_size(shape) > layout_math.unpadded_byte_size(shape) == 4 * shape.element_count
    for lang in ("en", "de"):
        assert "`f32[26,8,4,8]`" in text("passport:output", lang)
    assert "pads its tiles" not in text("passport:output")
    assert "a TPU pads its tiles" not in (ROOT / "docs" / "passport.md").read_text("utf-8")


def test_the_cpu_passport_reads_tensorflow_s_tracebacks_and_borrows_nothing():
    python = passport(bundle(MNIST), "cpu", "conv2d").hops[0]
    assert python.evidence == "op_traceback" and not python.heuristic
    assert "Only a bundle recorded before those tracebacks borrows" in text("passport:python")


def test_the_german_passport_is_the_steckbrief_and_names_its_level_in_german():
    found = bundle(MNIST)
    assert title(passport(found, "cpu", "conv2d", lang="de"), "de") == "Steckbrief von conv2d auf cpu"
    item = passport(found, "cpu", level="kernels", item="broadcast_maximum_fusion", lang="de")
    assert title(item, "de") == "Steckbrief von broadcast_maximum_fusion (Kernel) auf cpu"


def test_the_german_panes_say_pufferallokation_and_count_the_plumbing_in_german():
    found = bundle(MNIST)
    facts = "\n".join(panes.memory_facts(found, "optimized-hlo", "tpu:v5e", "fusion.11", "de"))
    assert "Pufferallokation 22" in facts and "Puffer Allokation" not in facts
    lines = panes.device_lines(found, "layers", "conv2d", "cpu", "cpu", "de")
    assert "  +2 ohne Rechenarbeit: parameter" in lines and "  +2 parameter" not in lines


# --- the lessons -----------------------------------------------------------------------------------------

def _xla_peak_values(found: Bundle, target: str) -> list[tuple[str, int]]:
    """(value, bytes) XLA lists under `Live ranges at N (peak):` in its live-range dump."""
    dump = (found.path / "targets" / target.replace(":", "-") / "live_range.txt").read_text("utf-8")
    section = dump.split("(peak):", 1)[1].split("Stack trace", 1)[0]
    return [(name, int(size)) for name, size in re.findall(r"^\s+(\S+)\{[^}]*\}: (\d+) bytes", section, re.M)]


def test_the_what_if_lesson_s_last_step_says_what_the_batch_1_capture_shows():
    """At batch 1 on the v5e, conv2d's output is not at XLA's peak (the dense weights are its largest
    value), lives in VMEM, and padded takes more than the whole peak; the skyline (`V`) counts padded
    bytes and puts it first. (Batch 64: tests/test_whatif_e2e.py.)"""
    found = bundle(MNIST)
    memory = found.memory("tpu:v5e")
    conv = _conv_output(found)
    shape = entry(found, "tpu:v5e", conv).shape
    at_peak = _xla_peak_values(found, "tpu:v5e")
    assert memory.peak_source == "xla" and sum(size for _, size in at_peak) == memory.peak_bytes
    assert conv not in {name for name, _ in at_peak}
    largest = max(at_peak, key=lambda value: value[1])[0]
    assert entry(found, "tpu:v5e", largest).opcode == "parameter"  # the dense layer's weights
    assert shape.layout.memory_space == 1 and layout_math.padded_byte_size(shape) > memory.peak_bytes
    assert skyline(found, "tpu:v5e").at_peak[0].value.startswith(f"{conv}{{")
    for name in ("what_if", "was_waere_wenn"):
        last = builtin_tour(name).steps[-1].text
        assert "VMEM (`S(1)`)" in last and "`V`" in last
    assert "64" in builtin_tour("what_if").title


@pytest.mark.parametrize("name", ["tensor_to_registers", "tensor_bis_register"])
def test_the_register_steps_name_the_registers_of_the_capture_they_are_shown_on(name):
    """The lesson says `ymm` on the committed AVX2 capture because the capture says so; the tours name
    no register class of their own (an AVX-512 machine's capture says `zmm`: tests/test_tours.py, e2e)."""
    tour, found = builtin_tour(name), bundle(MNIST)
    widest = kernel(found, "cpu", "broadcast_maximum_fusion").vector_registers[-1]
    assert widest.startswith("ymm")
    steps = [step for step in tour.steps if "{vector_register}" in step.text]
    assert len(steps) == 2 and steps[-1] is tour.steps[-1]
    for step in steps:
        assert "`ymm`" in step_text(found, step, tour.lang)
        general = re.sub(r"`xmm`, `ymm` (?:or|oder) `zmm`", "", step.text)  # what the three names mean
        assert not re.search(r"`[xyz]mm`", general), step.text
