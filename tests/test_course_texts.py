"""Course texts as a compiler engineer and a German teacher would check them (issue 9):
every XLA opcode, custom call, custom fusion, attribute and kernel kind has its own text in
both languages (through the same keys and lookup the screens use); texts cite only documented
sources; TPU/GPU texts quote the selected generation's figures; German and English twins
say the same; tour twins visit the same items; German glossary headwords are found. The German
terms are tests/test_german_terms.py's, the German voice tests/test_german_voice.py's."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from explorer.cli import texts_commands as commands
from explorer.course.tours import TWINS, builtin_tour, builtin_tours
from explorer.errors import TensorwegError
from explorer.hlo.model import HloInstruction, Shape
from explorer.hlo.parser import parse_module
from explorer.labels import LABELS, label
from explorer.model.records import KernelRecord
from explorer.targets import TARGETS
from explorer.texts import keys
from explorer.texts.content_files import LANGUAGES, load_language
from explorer.texts.glossary import glossary, glossary_entry, search_glossary
from explorer.texts.lookup import PLACEHOLDER, explain, explain_topic, memory_space_key
from explorer.texts.sources import SOURCES, is_documented
from explorer.texts.xla_opcodes import (
    ATTRIBUTES,
    CUSTOM_CALL_TARGETS,
    CUSTOM_CALL_VERSIONS,
    CUSTOM_FUSION_KINDS,
    FUSION_KINDS,
    HLO_OPCODES,
    KERNEL_KINDS,
)

ROOT = Path(__file__).resolve().parents[1]
FAMILY_TARGETS = ("cpu", "gpu:h100", "gpu:a100", "tpu:v4", "tpu:v5e", "tpu:v5p", "tpu:v6e")
F32 = Shape("f32", (8, 128))


def _own_text(level: str, kind_keys: list[str], target: str, lang: str):
    """The text the screen shows, and whether it is the item's own (not the level's or a
    general one the item only falls back to)."""
    text = explain(level, kind_keys, target, lang)
    return text, text.fallback != "level" and text.key.split("@")[0] == kind_keys[0].split("@")[0]


# --- coverage over XLA's full opcode list and the other kinds learners meet ---------------

def test_the_opcode_list_is_xla_s_and_has_no_duplicates():
    assert len(HLO_OPCODES) == len(set(HLO_OPCODES)) > 120
    for opcode in ("all-reduce-start", "async-start", "sort", "rng", "bitcast-convert", "sine", "cosine",
                   "fft", "infeed", "outfeed", "after-all", "set-dimension-size", "exponential", "opt-barrier"):
        assert opcode in HLO_OPCODES


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("opcode", HLO_OPCODES)
def test_every_xla_opcode_has_its_own_text(opcode, lang):
    instruction = HloInstruction("x", opcode, F32)
    for target in FAMILY_TARGETS:
        text, own = _own_text("optimized-hlo", keys.instruction_keys(instruction), target, lang)
        if opcode in ("fusion", "custom-call"):
            own = text.key.startswith(f"hlo:{opcode}")
        assert own, (opcode, target, lang, text.key)
        assert text.body and not PLACEHOLDER.search(text.body)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("target", [*CUSTOM_CALL_TARGETS, "__cudnn$fmhaSoftmax", "__cudnn$fmhaSoftmaxBackward",
                                    "__onednn$matmul", "__onednn$softmax"])
def test_every_listed_custom_call_has_its_own_text(target, lang):
    call = HloInstruction("c", "custom-call", F32, custom_call_target=target)
    text = explain("optimized-hlo", keys.instruction_keys(call), "gpu:h100", lang)
    assert text.key.startswith("custom-call:"), (target, text.key)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("versioned", "target"), sorted(CUSTOM_CALL_VERSIONS.items()))
def test_a_versioned_custom_call_name_is_explained_by_its_target_s_text(versioned, target, lang):
    call = HloInstruction("c", "custom-call", F32, custom_call_target=versioned)
    assert explain("optimized-hlo", keys.instruction_keys(call), "gpu:h100", lang).key == f"custom-call:{target}"
    assert versioned in explain_topic(f"custom-call:{target}", lang).body


def test_an_unlisted_ffi_suffix_borrows_no_text():
    call = HloInstruction("c", "custom-call", F32, custom_call_target="tpu_custom_call_ffi")
    assert explain("optimized-hlo", keys.instruction_keys(call), "tpu:v5e", "en").key == "hlo:custom-call"


# Captured modules under tests/fixtures (xla_syntax/ holds XLA's parser test inputs, not captures).
CAPTURED_HLO = sorted(path for path in (ROOT / "tests" / "fixtures").rglob("*.txt")
                      if "xla_syntax" not in path.parts and "custom_call_target=" in path.read_text("utf-8"))


def test_fixtures_hold_captured_gpu_and_tpu_custom_calls():
    targets = {i.custom_call_target for path in CAPTURED_HLO
               for _, i in parse_module(path.read_text("utf-8")).all_instructions() if i.opcode == "custom-call"}
    assert targets >= {"__cudnn$convBiasActivationForward", "AllocateBuffer"}, targets


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", CAPTURED_HLO, ids=lambda path: str(path.relative_to(ROOT / "tests" / "fixtures")))
def test_every_custom_call_in_a_captured_module_has_its_own_text(path, lang):
    module = parse_module(path.read_text("utf-8"), str(path))
    calls = [i for _, i in module.all_instructions() if i.opcode == "custom-call"]
    assert calls, path
    for call in calls:
        text = explain("optimized-hlo", keys.instruction_keys(call), "gpu:h100", lang)
        assert text.key.startswith("custom-call:"), (call.custom_call_target, text.key)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", CUSTOM_FUSION_KINDS)
def test_custom_fusions_are_explained_by_their_backend_kind(kind, lang):
    config = json.dumps({"fusion_backend_config": {"kind": kind}})
    fusion = HloInstruction("f", "fusion", F32, fusion_kind="kCustom", backend_config=config)
    assert keys.instruction_keys(fusion)[0] == f"custom-fusion:{kind}"
    assert explain("optimized-hlo", keys.instruction_keys(fusion), "gpu:h100", lang).key == f"custom-fusion:{kind}"


def test_fusions_without_a_backend_kind_keep_their_fusion_kind_text():
    for kind in FUSION_KINDS:
        fusion = HloInstruction("f", "fusion", F32, fusion_kind=kind, backend_config='{"not json')
        assert keys.instruction_keys(fusion) == [f"fusion:{kind}", "hlo:fusion"]
        assert explain("optimized-hlo", keys.instruction_keys(fusion), "cpu", "de").key == f"fusion:{kind}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", KERNEL_KINDS)
def test_every_kernel_kind_has_its_own_text(kind, lang):
    for target in FAMILY_TARGETS:
        text, own = _own_text("kernels", keys.kernel_keys(KernelRecord("k", ("f",), kind=kind)), target, lang)
        assert own, (kind, target, lang)


def test_attribute_keys_find_what_learners_read_on_screen():
    conv = HloInstruction("c", "convolution", F32, attributes=(
        ("window", "{size=3x3}"), ("dim_labels", "b01f_01io->b01f"), ("operand_precision", "{highest,default}")))
    assert keys.attribute_keys(conv) == ["attribute:window", "attribute:dim_labels", "attribute:precision_config"]
    prefetch = HloInstruction("p", "copy-start", F32, attributes=(("cross_program_prefetch_index", "0"),))
    assert keys.attribute_keys(prefetch) == ["attribute:cross_program_prefetch_index"]
    gemm = HloInstruction("g", "fusion", F32, fusion_kind="kCustom", backend_config=json.dumps(
        {"fusion_backend_config": {"kind": "__triton_gemm", "triton_gemm_config": {"block_m": "64"}}}))
    assert keys.attribute_keys(gemm) == ["attribute:triton_gemm_config"]
    cublas = HloInstruction("b", "custom-call", F32, custom_call_target="__cublas$gemm", backend_config=json.dumps(
        {"gemm_backend_config": {"precision_config": {"operand_precision": ["DEFAULT", "DEFAULT"]}}}))
    assert keys.attribute_keys(cublas) == ["attribute:precision_config"]
    scratch = Shape("tuple", tuple_shapes=(F32, Shape("u8", (0,))))
    conv_call = HloInstruction("k", "custom-call", scratch, custom_call_target="__cudnn$convForward")
    assert keys.attribute_keys(conv_call) == ["attribute:cudnn-scratch"]
    assert keys.attribute_keys(HloInstruction("t", "tpu", F32, backend_config="not json")) == []


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_every_attribute_has_a_text(attribute, lang):
    text = explain_topic(f"attribute:{attribute}", lang)
    assert text.body and text.key == f"attribute:{attribute}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_memory_spaces_beyond_one_have_texts(lang):
    for target, spaces in (("tpu:v5e", (0, 1, 2, 5, 6)), ("gpu:h100", (0, 1, 5)), ("cpu", (0, 5))):
        for space in spaces:
            key = memory_space_key(target, space)
            text = explain("memory", [key], target, lang, {"bytes": 64})
            assert text.fallback != "level", (target, space, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_new_glossary_terms_exist(lang):
    for term in ("StableHLO", "SparseCore", "TF32", "SASS", "L2", "DMA", "Layout assignment",
                 "Memory space assignment", "TensorCore", "Tensor Core", "SMEM", "Pass", "Lane"):
        assert glossary_entry(term, lang) is not None, term


# --- target-specific figures ---------------------------------------------------------

# Capacities in binary units, as the mesh panes print them (explorer/targets/figures.py: Google's "16 GB" is 16 GiB).
@pytest.mark.parametrize(("target", "expected", "absent"), [
    ("tpu:v4", ("32 GiB", "1.2 TB/s", "two TensorCores", "4 MXUs", "128 × 128"), ("16 GiB", "819")),
    ("tpu:v5e", ("16 GiB", "819 GB/s", "one TensorCore", "4 MXUs", "128 × 128"), ("32 G", "256 × 256", "16 GB")),
    ("tpu:v5p", ("95 GiB", "2.765 TB/s", "4 MXUs", "128 × 128"), ("16 GiB", "819")),
    ("tpu:v6e", ("32 GiB", "1.64 TB/s", "one TensorCore", "2 MXUs", "256 × 256"), ("16 GiB", "819", "128 × 128")),
])
def test_tpu_texts_quote_the_selected_generation(target, expected, absent):
    memory = explain("memory", ["memory:device"], target, "en", {"bytes": 64}).body
    dot = explain("optimized-hlo", ["hlo:dot"], target, "en").body
    both = memory + " " + dot
    for figure in expected:
        assert figure in both, (target, figure, both)
    for figure in absent:
        assert figure not in both, (target, figure)
    assert f"TPU {target.partition(':')[2]}" in both  # the text names the chip it quotes


def test_gpu_texts_quote_the_selected_board_and_german_uses_a_decimal_comma():
    h100 = explain("memory", ["memory:device"], "gpu:h100", "en", {"bytes": 64}).body
    a100 = explain("memory", ["memory:device"], "gpu:a100", "de", {"bytes": 64}).body
    assert "80 GiB" in h100 and "3.35 TB/s" in h100 and "132 SMs" in h100 and "50 MiB" in h100
    assert "A100" not in h100
    assert "40 GiB" in a100 and "1,555 TB/s" in a100 and "108 SMs" in a100 and "H100" not in a100


def test_v5e_int8_peak_is_googles_393_tops():
    assert dict(TARGETS["tpu:v5e"].peak_flops)["int8"] == 393e12


def test_family_texts_on_the_command_line_take_a_chip_or_the_default():
    assert "256 × 256" in explain_topic("hlo:dot@tpu:v6e", "en").body
    assert "TPU v5e" in explain_topic("hlo:dot@tpu", "en").body
    out = io.StringIO()
    args = argparse_for("explain", "memory:device@gpu:a100", "--lang", "de")
    assert args.handler(args, out) == 0 and "40 GiB" in out.getvalue()
    with pytest.raises(TensorwegError, match="unknown topic"):
        explain_topic("hlo:dot@tpu:v9", "en")


def argparse_for(*argv: str):
    import argparse
    parser = argparse.ArgumentParser(prog="tensorweg")
    commands.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


# --- the fixes the issue names ----------------------------------------------------------

def test_the_texts_the_issue_called_wrong_now_say_what_xla_does():
    kernels = explain_topic("level:kernels", "en").body
    assert "SASS" in kernels and "fallback" in kernels and "the driver turns it into machine code" not in kernels
    conv = explain_topic("custom-call:__cudnn$convForward", "en").body
    assert "compile time" in conv and "backend_config" in conv and "scratch" in conv
    cpu_conv = explain_topic("hlo:convolution@cpu", "en").body
    assert "PotentiallyImplementedAsEigenConvolution" in cpu_conv and "loop nest" in cpu_conv
    assert "High Level Operations" in explain_topic("level:hlo", "en").body
    for name in ("graph_optimisation", "graph_optimierung"):
        freeze = builtin_tour(name).steps[2].text
        assert "tensorweg" in freeze
        assert "Grappler freezes the weights" not in freeze and "Grappler friert die Gewichte" not in freeze


# --- twins ------------------------------------------------------------------------------

def test_german_and_english_twins_show_the_same_code_and_placeholders():
    english, german = load_language("en"), load_language("de")
    for key, text in english.items():
        twin = german[key]
        assert set(re.findall(r"`[^`]+`", text.body)) == set(re.findall(r"`[^`]+`", twin.body)), key
        assert set(PLACEHOLDER.findall(text.body)) == set(PLACEHOLDER.findall(twin.body)), key


def test_every_builtin_tour_has_a_twin_that_visits_the_same_items_in_the_same_order():
    names = {name for name, _ in builtin_tours()}
    assert names == set(TWINS) | set(TWINS.values())
    for english_name, german_name in TWINS.items():
        english, german = builtin_tour(english_name), builtin_tour(german_name)
        assert (english.lang, german.lang, english.model) == ("en", "de", german.model)
        visit = [[(s.level, s.target, s.selection.text if s.selection else "", s.explain) for s in t.steps]
                 for t in (english, german)]
        assert visit[0] == visit[1], english_name


# --- sources ----------------------------------------------------------------------------

def test_every_address_in_a_text_is_a_documented_source():
    for lang in LANGUAGES:
        for key, text in load_language(lang).items():
            for address in re.findall(r"https?://[^\s;,)]+", text.source + " " + text.body):
                assert is_documented(address), (lang, key, address)
    for entry in glossary("en") + glossary("de"):
        for address in re.findall(r"https?://[^\s;,)]+", entry.definition):
            assert is_documented(address), (entry.term, address)


def test_docs_course_sources_lists_every_documented_source():
    page = (ROOT / "docs" / "course-sources.md").read_text(encoding="utf-8")
    missing = [address for _, address in SOURCES if address not in page]
    assert not missing, missing
    assert not is_documented("https://example.com/xla") and is_documented(
        "https://www.tensorflow.org/api_docs/python/tf/raw_ops/MatMul")


# --- glossary: German headwords ------------------------------------------------------------

@pytest.mark.parametrize(("query", "headword"), [
    ("Kachel", "Kachel (Tile)"), ("Puffer", "Puffer (Buffer)"), ("Faltung", "Faltung (Convolution)"),
    ("Speicherraum", "Speicherraum (Memory space)"), ("Schicht", "Schicht (Layer)"),
    ("Gewichte", "Gewichte (Weights)"), ("Lebensdauer", "Lebensdauer (Live range)"), ("Schleife", "Schleife (Loop)"),
    ("tile", "Kachel (Tile)"),
])
def test_german_glossary_search_finds_the_german_headword_first(query, headword):
    assert search_glossary(query, "de")[0].term == headword
    assert glossary_entry(query, "de").term == headword


def test_glossary_command_finds_kachel():
    out = io.StringIO()
    args = argparse_for("glossary", "--lang", "de", "--search", "Kachel")
    assert args.handler(args, out) == 0
    assert out.getvalue().startswith("Kachel (Tile)\n  Ein kleiner rechteckiger Block")


def test_every_german_headword_carries_its_english_term_where_the_words_differ():
    english = {e.key.lower(): e.term for e in glossary("en")}
    for entry in glossary("de"):
        assert entry.key.lower() in english, entry.term
        if entry.term.lower() != entry.key.lower():  # a German word: the English one stands beside it
            assert entry.term.endswith(f"({entry.key})"), entry.term


# --- labels -------------------------------------------------------------------------------

COLUMN_WORDS = ("layer", "class", "output shape", "params", "op", "type", "output", "instruction", "opcode",
                "shape", "op_name", "kernel", "kind", "vector", "implements")
PANE_WORDS = ("dtype policy", "inputs", "outputs", "weights", "activations", "shape", "elements",
              "minor-to-major", "this item belongs to no layer (created by XLA)")


def test_every_word_the_issue_lists_has_a_label_in_both_languages():
    english = {en for en, _ in LABELS.values()}
    for word in COLUMN_WORDS + PANE_WORDS:
        assert word in english, word
    assert label("column.output_shape", "de") == "Ausgabeform"
    assert label("text.no_layer", "de") == "dieses Element gehört zu keiner Schicht (von XLA erzeugt)"
    assert label("word.source", "de") == "Quelle"
    for key, (en, de) in LABELS.items():
        assert en.count("{") == de.count("{") and set(re.findall(r"\{(\w+)\}", en)) == set(
            re.findall(r"\{(\w+)\}", de)), key


def test_every_footer_binding_has_a_label_and_a_help_text():
    binding_keys = [k for k in LABELS if k.startswith("binding.")]
    assert len(binding_keys) > 30
    for key in binding_keys:
        assert f"tooltip.{key[len('binding.'):]}" in LABELS, key
