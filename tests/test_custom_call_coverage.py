"""Every custom call the app's own captures hold has its own course text, in both languages (issue 25).

tests/fixtures/custom_calls_seen.json is recorded by scripts/collect_custom_calls.py from real
captures of every sample model on every default target, for inference, a training step and a
2x2 mesh. Each target listed there must reach a `custom-call:` text of its own through the keys
and lookup the explanation pane uses: by its exact name, by the name it is a version of
(`CUSTOM_CALL_VERSIONS`) or by its family (`CUSTOM_CALL_FAMILIES`), never the generic
`hlo:custom-call` text. tests/test_custom_call_coverage_e2e.py checks the same on fresh captures,
so a compiler that starts emitting a new call fails CI there before this fixture is recorded again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.hlo.model import HloInstruction, Shape
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
