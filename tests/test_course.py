"""Course texts: file format, bilingual twins, glossary, fallback, placeholders, CLI handlers,
and (e2e) coverage of every item kind that real captures of the sample models contain."""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
from dataclasses import replace
from importlib import resources

import pytest

from explorer.cli import texts_commands as commands
from explorer.cli.main import main as core_main
from explorer.errors import ParseError, TensorwegError
from explorer.hlo.model import HloInstruction, Layout, Shape, Tile
from explorer.labels import LABELS, label
from explorer.model.records import Allocation, KernelRecord
from explorer.texts import keys
from explorer.texts.content_files import LANGUAGES, load_language, parse_content
from explorer.texts.glossary import glossary, glossary_entry, parse_glossary, search_glossary
from explorer.texts.lookup import (
    LEVELS,
    PLACEHOLDER,
    canonical_key,
    default_language,
    explain,
    explain_topic,
    fill_placeholders,
    memory_space_key,
    topics,
)

# --- the content files ----------------------------------------------------------


def test_every_english_text_has_a_german_twin_with_the_same_key_and_placeholders():
    english, german = load_language("en"), load_language("de")
    assert set(english) == set(german)
    for key, text in english.items():
        twin = german[key]
        assert sorted(PLACEHOLDER.findall(text.body)) == sorted(PLACEHOLDER.findall(twin.body)), key
        assert text.terms == twin.terms, key
        assert text.source == twin.source, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_file_sits_at_the_path_of_its_key_and_names_a_real_source(lang):
    root = resources.files("explorer.texts").joinpath("content")
    for key, text in load_language(lang).items():
        family, _, name = key.partition(":")
        assert text.path == f"{lang}/{family}/{name}.md", key  # `opcode:add` lives at en/opcode/add.md
        assert root.joinpath(*text.path.split("/")).is_file()
        assert text.title.strip() and text.body.strip(), key
        assert "http" in text.source, f"{key}: source without an address: {text.source!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_term_an_explanation_uses_is_in_the_glossary(lang):
    # Headers name entries by their English key, in any case ("Custom Call" is German spelling).
    defined = {entry.key.lower() for entry in glossary(lang)}
    for key, text in load_language(lang).items():
        missing = {term for term in text.terms if term.lower() not in defined}
        assert not missing, f"{key} uses undefined terms {missing}"


def test_glossaries_define_the_same_terms_and_see_also_points_at_real_terms():
    english = {e.key.lower(): e for e in glossary("en")}
    german = {e.key.lower(): e for e in glossary("de")}
    assert set(english) == set(german)
    for entries in (english, german):
        headwords = {entry.term for entry in entries.values()}
        for entry in entries.values():
            assert set(entry.see_also) <= headwords, entry
            assert entry.definition
    for key, entry in english.items():  # the twins point at the same entries
        assert [german_key(t) for t in german[key].see_also] == [t.lower() for t in entry.see_also], key


def german_key(headword: str) -> str:
    return next(e.key.lower() for e in glossary("de") if e.term == headword)


def test_level_texts_exist_for_every_level_in_both_languages():
    for lang in LANGUAGES:
        for level in LEVELS:
            assert f"level:{level}" in load_language(lang)


def test_content_parser_rejects_a_file_without_header_or_source():
    with pytest.raises(ParseError) as error:
        parse_content("no header\n", "x.md")
    assert error.value.line == 1
    with pytest.raises(ParseError, match="source"):
        parse_content("---\nkey: hlo:x\ntitle: X\n---\nbody\n", "x.md")
    with pytest.raises(ParseError) as error:
        parse_content("---\nkey: hlo:x\nnot a field\n---\n", "x.md")
    assert error.value.line == 3


def test_glossary_parser_reads_terms_definitions_and_see_also():
    entries = parse_glossary("# G\n\n## HLO\nXLA's IR.\nsecond line.\nSee also: XLA\n\n## XLA\nA compiler.\n")
    assert entries[0].term == "HLO" and entries[0].definition == "XLA's IR. second line."
    assert entries[0].see_also == ("XLA",) and entries[1].see_also == ()
    with pytest.raises(ParseError):
        parse_glossary("text before any term\n")


def test_glossary_search_ranks_term_matches_before_definition_matches():
    hits = search_glossary("hbm", "en")
    assert hits[0].term == "HBM"
    assert any(e.term == "VMEM" for e in hits)  # VMEM names HBM under "see also"
    assert search_glossary("zzzz-nothing", "de") == []
    assert glossary_entry("vmem", "de").term == "VMEM"


# --- lookup and fallback --------------------------------------------------------------


def test_fallback_goes_from_target_text_to_general_text_to_level_text():
    assert explain("hlo", ["hlo:dot"], "tpu:v5e", "de").key == "hlo:dot@tpu"
    assert explain("hlo", ["hlo:dot"], "tpu:v5e", "de").fallback == "specific"
    general = explain("hlo", ["hlo:reduce"], "tpu:v5e", "en")
    assert (general.key, general.fallback) == ("hlo:reduce", "general")
    level = explain("optimized-hlo", ["hlo:no-such-opcode"], "gpu:h100", "en")
    assert (level.key, level.fallback) == ("level:optimized-hlo", "level")


def test_the_first_matching_kind_key_wins_over_later_more_general_ones():
    text = explain("optimized-hlo", ["fusion:kLoop", "hlo:fusion"], "gpu:h100", "en")
    assert text.key == "fusion:kLoop"
    text = explain("optimized-hlo", ["fusion:kUnknown", "hlo:fusion"], "gpu:h100", "en")
    assert text.key == "hlo:fusion@gpu"


def test_memory_space_spellings_and_numbers_map_to_keys():
    assert canonical_key("memory:tpu:vmem") == "memory:vmem@tpu"
    assert explain("memory", ["memory:tpu:vmem"], "tpu:v5e", "en").key == "memory:vmem"
    assert memory_space_key("tpu:v5e", 1) == "memory:vmem"
    assert memory_space_key("tpu:v5e", 2) == "memory:smem"
    assert memory_space_key("gpu:h100", 0) == "memory:device"
    assert explain("memory", [memory_space_key("gpu:h100", 0)], "gpu:h100", "de").key == "memory:device@gpu"


def test_unknown_level_or_language_is_a_user_error():
    with pytest.raises(TensorwegError, match="unknown level"):
        explain("assembly", [], "cpu", "en")
    with pytest.raises(TensorwegError, match="unknown language"):
        explain("hlo", [], "cpu", "fr")


def test_missing_figures_drop_their_sentence_and_present_ones_are_formatted_per_language():
    body = "Fusion kernel. It uses {vector_width_bits}-bit registers. Grid {grid}."
    assert fill_placeholders(body, {}, "en") == "Fusion kernel."
    assert fill_placeholders(body, {"grid": (64, 1, 1)}, "en") == "Fusion kernel. Grid 64 × 1 × 1."
    assert fill_placeholders("{bytes} Bytes.", {"bytes": 1234567}, "de") == "1.234.567 Bytes."
    # A colon does not end a sentence: "Launch:" goes with its figures.
    assert fill_placeholders("Kernel. Launch: grid {grid}.", {}, "en") == "Kernel."
    assert fill_placeholders("{bytes} bytes.", {"bytes": 1234567}, "en") == "1,234,567 bytes."
    # Braces that are not placeholders (HLO layouts) are left alone.
    assert fill_placeholders("Layout `{1,0}`.", {}, "en") == "Layout `{1,0}`."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_shows_a_raw_placeholder_with_or_without_figures(lang):
    figures = {"bytes": 4096, "padding_bytes": 512, "vector_width_bits": 512, "grid": (2, 1, 1), "block": (128, 1, 1)}
    for key in topics(lang):
        level = "memory"
        for given in ({}, figures):
            body = explain(level, [key], "cpu", lang, given).body
            assert not PLACEHOLDER.search(body), (key, body)
            assert body, key


def test_explain_topic_knows_specialised_keys_and_suggests_similar_ones():
    assert explain_topic("hlo:dot@tpu", "en").title == "Dot on the TPU"
    with pytest.raises(TensorwegError, match=r"unknown topic 'hlo:dott' \(close: hlo:dot, .*; "
                                             r"`tensorweg explain --list` lists every topic\)"):
        explain_topic("hlo:dott", "en")


def test_a_family_the_topic_has_no_own_text_for_falls_back_to_the_general_text():
    """`tensorweg explain memory:vmem@tpu` (the README's example): VMEM has one text, on the TPU."""
    assert explain_topic("memory:vmem@tpu", "en") == explain_topic("memory:vmem", "en", "tpu:v5e")
    assert explain_topic("memory:vmem@tpu:v6e", "de").title == "VMEM (S(1))"
    with pytest.raises(TensorwegError, match="unknown topic 'memory:vmem@npu'"):  # not a target family
        explain_topic("memory:vmem@npu", "en")
    with pytest.raises(TensorwegError, match="unknown topic 'hlo:nope@tpu'"):
        explain_topic("hlo:nope@tpu", "en")


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LC_ALL": "de_AT.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
    ({"LC_MESSAGES": "C", "LANG": "de_DE.UTF-8"}, "en"),
    ({"LC_ALL": "", "LANG": "de_CH"}, "de"),
    ({}, "en"),
], ids=["lang-de", "lang-en", "lc_all-wins", "lc_messages-before-lang", "empty-lc_all-skipped", "unset"])
def test_default_language_follows_posix_locale_precedence(environ, expected):
    assert default_language(environ) == expected


def test_every_label_has_both_languages_and_unknown_labels_raise():
    for key, (english, german) in LABELS.items():
        assert english and german, key
    assert label("pane.memory_layout", "de") == "Speicherlayout"
    assert label("state.created_by_xla", "en") == "created by XLA"
    with pytest.raises(TensorwegError):
        label("pane.nonexistent", "en")


# --- keys for captured items ------------------------------------------------------


def test_instruction_keys_prefer_fusion_kind_and_custom_call_target():
    shape = Shape("f32", (4,))
    fusion = HloInstruction("f", "fusion", shape, fusion_kind="kLoop")
    call = HloInstruction("c", "custom-call", shape, custom_call_target="__cudnn$convForward")
    assert keys.instruction_keys(fusion) == ["fusion:kLoop", "hlo:fusion"]
    assert keys.instruction_keys(call) == ["custom-call:__cudnn$convForward", "hlo:custom-call"]
    assert keys.instruction_keys(HloInstruction("d", "dot", shape)) == ["hlo:dot"]


def test_memory_space_and_layout_keys_look_into_tuple_parts():
    vmem = Shape("f32", (8, 128), layout=Layout((1, 0), (Tile((8, 128)),), memory_space=1))
    smem = Shape("u32", (), layout=Layout((), memory_space=2))
    pair = Shape("tuple", tuple_shapes=(vmem, Shape("f32", (8, 128), layout=Layout((1, 0))), smem))
    assert keys.memory_space_keys(pair, "tpu:v5e") == ["memory:vmem", "memory:device", "memory:smem"]
    assert keys.layout_keys(pair) == ["layout:tiles", "layout:padding"]
    assert keys.layout_keys(Shape("f32", (2, 3), layout=Layout((1, 0)))) == ["layout:minor-to-major"]


def test_allocation_and_kernel_keys():
    allocation = Allocation(3, 40, "output", flags=("output", "maybe-live-out"))
    assert keys.allocation_keys(allocation) == ["allocation:output", "allocation:maybe-live-out"]
    assert keys.kernel_keys(KernelRecord("k", ("f",), kind="emitter")) == ["kernel:emitter"]
    on_tpu = Allocation(7, 512, "preallocated-temp", flags=("color 1", "page 0", "preallocated-temp"))
    assert keys.allocation_keys(on_tpu, "tpu:v5e") == ["allocation:preallocated-temp", "memory:vmem"]


def test_a_title_naming_another_chip_family_is_caught():
    from test_course import other_family_named
    assert other_family_named("Copy step (TPU)", "gpu:h100")
    assert other_family_named("Dot on the CPU", "tpu:v5e")
    assert not other_family_named("Copy step (TPU)", "tpu:v5e")
    assert not other_family_named("Memory space S(6)", "tpu:v5e")
    assert not other_family_named("Dense (fully connected)", "")


# --- command-line handlers ------------------------------------------------------------


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tensorweg")
    commands.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_explain_prints_title_body_and_source_in_the_chosen_language():
    out = io.StringIO()
    args = _parse("explain", "hlo:dot@tpu", "--lang", "de")
    assert args.handler(args, out) == 0
    text = out.getvalue()
    assert text.startswith("Dot auf der TPU\n\n")
    assert "MXU" in text and "\n\nQuelle: XLA operation semantics" in text


def test_explain_takes_the_language_from_the_locale(monkeypatch):
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    out = io.StringIO()
    args = _parse("explain", "layer:Dense")
    commands.run_explain(args, out)
    assert "Source: Keras API reference" in out.getvalue()


def test_explain_unknown_topic_raises_a_user_error():
    with pytest.raises(TensorwegError, match="unknown topic 'hlo:nope'"):
        commands.run_explain(_parse("explain", "hlo:nope", "--lang", "en"), io.StringIO())


@pytest.mark.parametrize("argv", [["--list"], ["--list", "memory"], ["memory:"], ["memory"], ["--list", "memory:"]],
                         ids=["all", "list-family", "family-colon", "family-word", "list-family-colon"])
def test_explain_lists_every_topic_or_a_familys_with_their_titles(capsys, argv):
    assert core_main(["explain", *argv, "--lang", "en"]) == 0
    lines = capsys.readouterr().out.splitlines()
    keys = [line.split()[0] for line in lines]
    if argv == ["--list"]:
        assert keys == sorted(keys) and {"hlo:dot", "layer:Conv2D", "memory:vmem", "whatif:bound"} <= set(keys)
        assert len(keys) == len(set(keys)) > 100
    else:
        assert keys and all(key.startswith("memory:") for key in keys) and "memory:vmem" in keys
    vmem = next(line for line in lines if line.startswith("memory:vmem "))
    assert vmem.endswith("  VMEM (S(1))")
    for key in keys:  # every key listed explains itself
        assert explain_topic(key, "en").key == key


@pytest.mark.parametrize("argv, message", [
    ([], "error: explain: name a TOPIC (e.g. hlo:dot), a family (e.g. memory:), or --list"),
    (["nope:"], "error: no topic starts with 'nope:' (families: allocation, "),
    (["--list", "vmem"], "error: no topic starts with 'vmem:' (families: "),
    (["vmem"], "error: unknown topic 'vmem' (close: memory:vmem; `tensorweg explain --list` lists every topic)"),
    (["memory:vmm"], "error: unknown topic 'memory:vmm' (close: memory:vmem, "),
], ids=["nothing", "unknown-family", "list-a-topic", "bare-name", "misspelt"])
def test_explain_refuses_in_one_line_and_suggests(capsys, argv, message):
    assert core_main(["explain", *argv, "--lang", "en"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and err.count("\n") == 1, err


def test_glossary_command_lists_and_searches():
    out = io.StringIO()
    assert commands.run_glossary(_parse("glossary", "--lang", "de", "--search", "VMEM"), out) == 0
    assert out.getvalue().startswith("VMEM\n  Vektorspeicher")
    assert "Siehe auch: HBM, Speicherraum (Memory space)" in out.getvalue()
    assert commands.run_glossary(_parse("glossary", "--lang", "en", "--search", "qqqq"), io.StringIO()) == 1
    everything = io.StringIO()
    commands.run_glossary(_parse("glossary", "--lang", "en"), everything)
    assert everything.getvalue().count("\n  ") >= len(glossary("en"))


def test_course_package_imports_neither_textual_nor_a_compiler():
    code = ("import sys, explorer.texts.lookup, explorer.texts.glossary, explorer.course.tours, "
            "explorer.cli.texts_commands, explorer.texts.keys, explorer.labels; "
            "bad = [m for m in ('textual', 'tensorflow', 'keras', 'jax') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# --- e2e: every kind of item in real captures has its own text --------------------------

SAMPLES = ("mnist_cnn", "mlp", "lstm", "tiny_transformer", "resnet_block", "depthwise")
DEFAULT_TARGETS = ("cpu", "gpu:h100", "tpu:v5e")


def sample_bundle(tmp_path_factory, sample: str, options=None):
    """A capture of one sample for the default targets (or a tour's `# capture:` options, see
    explorer.course.tours.capture_options), shared by the course and tour tests."""
    from explorer.capture.orchestrator import capture
    from explorer.model.bundle import Bundle, is_bundle
    from explorer.model.records import CaptureOptions

    options = options or CaptureOptions(targets=DEFAULT_TARGETS)
    how = options.without_targets()  # one bundle per way of compiling; it grows by targets
    variant = "" if how == CaptureOptions().without_targets() else "-" + hashlib.sha256(
        repr(how).encode()).hexdigest()[:10]
    path = tmp_path_factory.getbasetemp() / "course-bundles" / f"{sample}{variant}"
    had = Bundle.open(path).targets if is_bundle(path) else ()
    if not set(options.targets) <= set(had):
        path.parent.mkdir(parents=True, exist_ok=True)
        targets = tuple(dict.fromkeys((*had, *options.targets)))
        capture(sample, replace(options, targets=targets), out_dir=path, use_cache=False)
    return Bundle.open(path)


def needed_keys(bundle) -> set[tuple[str, str, tuple[str, ...]]]:
    """(level, target, kind keys) for every item of every level of a bundle, from
    `explorer.views.explain.explanation_keys`: the function the explanation pane shows."""
    from explorer.levels import LIST_LEVELS, TARGET_LEVELS
    from explorer.views import explain as explain_view
    from explorer.views import rows

    found = set()
    for level in LIST_LEVELS:
        for target in bundle.targets if level in TARGET_LEVELS else ("cpu",):
            for item in rows.rows(bundle, level, target):
                for group in explain_view.explanation_keys(bundle, level, target, item.name):
                    found.add((level, target if level in TARGET_LEVELS else "", group))
    from explorer.targets import get_target

    for target in bundle.targets:
        for optimized in (False, True):
            # TVM's levels are Relax, not HLO: their rows came from rows.rows above
            module = bundle.hlo_module(target, optimized)
            assert get_target(target).compiler == "tvm" or module is not None, (bundle.model_name, target)
        memory = bundle.memory(target)
        for allocation in memory.allocations if memory else ():
            for group in explain_view.explanation_keys(bundle, "memory", target, str(allocation.index)):
                found.add(("memory", target, group))
    graph = bundle.graph
    for op in graph.optimized_ops:  # Grappler's ops are listed in the graph's summary, not as rows
        found.add(("graph", "", tuple(keys.graph_op_keys(op))))
    return found


@pytest.mark.e2e
@pytest.mark.parametrize("sample", SAMPLES)
def test_every_item_kind_in_real_captures_has_its_own_text_in_both_languages(sample, tmp_path_factory):
    # TVM's second compiler on the samples its e2e tests capture (tests/test_tvm_e2e.py)
    from explorer.model.records import CaptureOptions

    extra = ("tvm:cpu",) if sample in ("mnist_cnn", "mlp") else ()
    bundle = sample_bundle(tmp_path_factory, sample, CaptureOptions(targets=(*DEFAULT_TARGETS, *extra)))
    gaps = []
    for level, target, kind_keys in sorted(needed_keys(bundle)):
        for lang in LANGUAGES:
            text = explain(level, list(kind_keys), target, lang)
            if text.fallback == "level":
                gaps.append(f"{lang} {level} {target or '-'}: {' / '.join(kind_keys)}")
            elif other_family_named(text.title, target):
                gaps.append(f"{lang} {level} {target}: {text.key} is titled for another chip: {text.title!r}")
    assert not gaps, "no text for:\n" + "\n".join(gaps)


def other_family_named(title: str, target: str) -> bool:
    """A title that names CPU, GPU or TPU, shown for an item of a different target family
    (e.g. a TPU-only copy text under a GPU kernel)."""
    family = target.partition(":")[0].upper()
    return bool(family) and any(name in title.split(" ") or f"({name})" in title
                                for name in ("CPU", "GPU", "TPU") if name != family)
