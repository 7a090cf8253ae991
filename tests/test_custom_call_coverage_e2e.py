"""End to end: every custom call a fresh capture holds has its own course text (issue 25).

A training step of `mnist_cnn` is compiled for real on gpu:h100 (one chip: cuDNN's forward and
gradient convolutions) and on a 2x2 mesh of gpu:h100 and tpu:v5e (a sharded module). Every custom
call in their HLO and optimized HLO is explained through what the explanation pane asks
(`explorer.views.explain.explanations`); none may fall back to the generic `hlo:custom-call`
text. When a new XLA or JAX adds a call, this fails until the call has a text in both languages
(then record the fixture again: scripts/collect_custom_calls.py).
"""

from __future__ import annotations

import pytest

from explorer.capture.options import build_capture_options
from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.texts.content_files import LANGUAGES
from explorer.views.explain import explanations

pytestmark = pytest.mark.e2e

CAPTURES = {
    "train-gpu": {"targets": "gpu:h100", "mode": "train"},
    "train-mesh-2x2": {"targets": "gpu:h100,tpu:v5e", "mode": "train", "mesh": "2x2", "shard": "data", "batch": 4},
}


@pytest.mark.parametrize("name", CAPTURES)
def test_every_custom_call_of_a_fresh_capture_has_its_own_text(name, tmp_path):
    options = build_capture_options(**CAPTURES[name])
    bundle = Bundle.open(capture("mnist_cnn", options, out_dir=tmp_path / name, use_cache=False))
    seen = []
    for target in bundle.targets:
        assert bundle.status("optimized-hlo", target).status == "ok", (target, bundle.status("optimized-hlo", target))
        for level, optimized in (("hlo", False), ("optimized-hlo", True)):
            module = bundle.hlo_module(target, optimized)
            calls = [i for _, i in module.all_instructions() if i.opcode == "custom-call"]
            for call, lang in ((call, lang) for call in calls for lang in LANGUAGES):
                own = explanations(bundle, level, target, call.name, lang)[0]
                assert own.key.startswith("custom-call:"), (target, level, call.custom_call_target, lang, own.key)
            seen += [call.custom_call_target for call in calls]
    if name == "train-gpu":  # the gradient of a convolution is a cuDNN call on the GPU
        assert "__cudnn$convBackwardFilter" in seen, seen
