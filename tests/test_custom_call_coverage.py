"""Every custom call the app's own captures hold has its own course text, in both languages (issue 25).

tests/fixtures/custom_calls_seen.json is recorded by scripts/collect_custom_calls.py from real
captures of every sample model on every default target, for inference, a training step and a
2x2 mesh. Each target listed there must reach a `custom-call:` text of its own through the keys
and lookup the explanation pane uses: by its exact name, by the name it is a version of
(`CUSTOM_CALL_VERSIONS`) or by its family (`CUSTOM_CALL_FAMILIES`), never the generic
`hlo:custom-call` text. tests/test_custom_call_coverage_e2e.py checks the same on fresh captures,
so a compiler that starts emitting a new call fails CI there before this fixture is recorded again.
Below, every custom call and every kCustom fusion's backend kind in the committed captures (modules
and filmstrip frames under tests/fixtures) must reach its own text too (issue 37).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.hlo.model import HloInstruction, Shape
from explorer.hlo.parser import parse_module
from explorer.targets import DEFAULT_TARGETS
from explorer.texts import keys
from explorer.texts.content_files import LANGUAGES
from explorer.texts.lookup import explain
from explorer.texts.xla_opcodes import CUSTOM_CALL_FAMILIES, CUSTOM_CALL_TARGETS, CUSTOM_CALL_VERSIONS

from sample_models import SAMPLES

SEEN = json.loads((Path(__file__).parent / "fixtures" / "custom_calls_seen.json").read_text("utf-8"))
CUSTOM_CALLS: dict[str, list[dict]] = SEEN["custom_calls"]


def _explained(call_target: str, compile_target: str, lang: str):
    """The text the explanation pane shows for a custom call to `call_target`, and the keys it tried."""
    call = HloInstruction("call", "custom-call", Shape("f32", (8, 128)), custom_call_target=call_target)
    kind_keys = keys.instruction_keys(call)
    return explain("optimized-hlo", kind_keys, compile_target, lang), kind_keys


def test_the_record_covers_every_sample_on_every_default_target_in_each_mode_and_on_a_mesh():
    made = {(c["sample"], c["mode"], c.get("mesh", ""), c.get("shard", "")): c for c in SEEN["captures"]}
    for sample in SAMPLES:
        for mode in ("inference", "train"):
            assert set(made[(sample, mode, "", "")]["targets"].split(",")) == set(DEFAULT_TARGETS), (sample, mode)
            for shard in ("data", "model"):
                assert (sample, mode, "2x2", shard) in made, (sample, mode, shard)
    assert not [c for c in SEEN["captures"] if c["failed_levels"]], "a level failed: its custom calls are unknown"


def test_the_record_holds_the_calls_a_gpu_training_step_and_a_sharded_module_add():
    """The two gaps issue 25 found: a GPU training step's and a sharded module's calls."""
    train_on_gpu = {name for name, seen in CUSTOM_CALLS.items()
                    if any(s["mode"] == "train" and s["target"].startswith("gpu:") for s in seen)}
    on_a_mesh = {name for name, seen in CUSTOM_CALLS.items() if any(s["mesh"] for s in seen)}
    assert "__cudnn$convBackwardFilter" in train_on_gpu
    assert on_a_mesh, "no capture on the mesh held a custom call"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("call_target", sorted(CUSTOM_CALLS))
def test_every_custom_call_seen_in_a_capture_has_its_own_text(call_target, lang):
    for compile_target in sorted({s["target"] for s in CUSTOM_CALLS[call_target]}):
        text, kind_keys = _explained(call_target, compile_target, lang)
        assert text.key != "hlo:custom-call" and text.fallback != "level", (call_target, compile_target, text.key)
        # Matched on purpose: the exact name, the name it is a version of, or its family; never by accident.
        assert text.key.split("@")[0] in kind_keys[:-1], (call_target, text.key)
        assert text.body.strip() and text.source.strip()


@pytest.mark.parametrize("call_target", sorted(CUSTOM_CALLS))
def test_every_custom_call_seen_is_listed_by_name_version_or_family(call_target):
    """The lists in explorer/texts/xla_opcodes.py are the one place that says which calls have texts."""
    assert (call_target in CUSTOM_CALL_TARGETS or call_target in CUSTOM_CALL_VERSIONS
            or any(call_target.startswith(family) for family in CUSTOM_CALL_FAMILIES)), call_target


# --- every custom call and custom-fusion kind in the committed captures (issue 37) ----------------------

FIXTURES = Path(__file__).parent / "fixtures"


def _committed_modules() -> list[tuple[str, str]]:
    """(where, HLO text) of every committed capture that holds a custom call or a kCustom fusion: the
    modules under tests/fixtures (xla_syntax/ holds XLA's parser test inputs, not captures) and every
    frame of the committed filmstrips (`passes/frames.json.gz`, the module after each pass)."""
    found = [(str(path.relative_to(FIXTURES)), path.read_text("utf-8")) for path in sorted(FIXTURES.rglob("*.txt"))
             if "xla_syntax" not in path.parts]
    for path in sorted(FIXTURES.rglob("passes/frames.json.gz")):
        frames = json.loads(gzip.decompress(path.read_bytes()))
        found += [(f"{path.relative_to(FIXTURES)}#{number}", text) for number, text in enumerate(frames)]
    return [(where, text) for where, text in found if "custom_call_target=" in text or "kind=kCustom" in text]


def _custom_items() -> dict[tuple[str, str], str]:
    """(kind of item, its name) -> where it was first seen: every custom call's target and every
    kCustom fusion's backend kind (`custom-fusion:` keys) in the committed captures."""
    seen: dict[tuple[str, str], str] = {}
    for where, text in _committed_modules():
        for _, instruction in parse_module(text, where).all_instructions():
            if instruction.opcode == "custom-call":
                seen.setdefault(("custom-call", instruction.custom_call_target), where)
            elif instruction.opcode == "fusion" and (kind := keys.custom_fusion_kind(instruction)):
                seen.setdefault(("custom-fusion", kind), where)
    return seen


CUSTOM_ITEMS = _custom_items()


def test_the_committed_captures_hold_gpu_cpu_and_tpu_custom_items():
    """Among them XLA:CPU's YNNPACK fusion, whose kind is in `fusion_config` (not `fusion_backend_config`,
    where the GPU writes it): the key code read only the GPU's field and gave it the generic text."""
    names = {name for _, name in CUSTOM_ITEMS}
    assert {"__ynn_fusion", "__triton", "__triton_nested_gemm_fusion", "__custom_fusion"} <= names, names
    assert {"__cudnn$convBiasActivationForward", "AllocateBuffer"} <= names, names
    assert CUSTOM_ITEMS[("custom-fusion", "__ynn_fusion")].startswith("train_remat/cpu/passes/")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("family", "name"), sorted(CUSTOM_ITEMS))
def test_every_custom_call_and_custom_fusion_kind_of_a_committed_capture_has_its_own_text(family, name, lang):
    where = CUSTOM_ITEMS[(family, name)]
    module = parse_module(next(text for w, text in _committed_modules() if w == where), where)
    item = next(i for _, i in module.all_instructions()
                if (i.custom_call_target if family == "custom-call" else keys.custom_fusion_kind(i)) == name)
    kind_keys = keys.instruction_keys(item)
    target = "cpu" if "cpu" in where else "tpu:v5e" if "tpu" in where else "gpu:h100"
    text = explain("optimized-hlo", kind_keys, target, lang)
    assert text.key.startswith(f"{family}:"), (where, name, text.key)  # never hlo:custom-call or fusion:kCustom
    assert text.key.split("@")[0] in kind_keys, (name, text.key)
    assert text.body.strip() and text.source.strip()


@pytest.mark.parametrize("name", sorted({*CUSTOM_CALL_VERSIONS, "__cudnn$fmhaSoftmax", "__onednn$matmul"}))
def test_explain_finds_the_text_of_a_call_by_the_name_a_listing_shows(name, capsys):
    """`tensorweg explain custom-call:cu_threefry2x32_ffi` prints what the pane shows for that call."""
    call = HloInstruction("c", "custom-call", Shape("f32", (8,)), custom_call_target=name)
    shown = explain("optimized-hlo", keys.instruction_keys(call), "gpu:h100", "en")
    assert main(["explain", f"custom-call:{name}"]) == 0
    assert capsys.readouterr().out.startswith(shown.title + "\n")
    assert main(["explain", "custom-call:not_a_call_ffi"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown topic 'custom-call:not_a_call_ffi'")
