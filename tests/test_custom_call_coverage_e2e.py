"""End to end: every custom call and custom-fusion kind a fresh capture holds has its own course text
(issues 25 and 37).

A training step of `mnist_cnn` is compiled for real on gpu:h100 (one chip: cuDNN's forward and
gradient convolutions), on cpu (XLA:CPU's YNNPACK fusions, their kind in `fusion_config`) and on a
2x2 mesh of gpu:h100 and tpu:v5e (a sharded module). Every custom call and every kCustom fusion with
a backend kind in their HLO and optimized HLO is explained through what the explanation pane asks
(`explorer.views.explain.explanations`); none may fall back to the generic `hlo:custom-call` or
`fusion:kCustom` text. When a new XLA or JAX adds one, this fails until it has a text in both
languages (then record the fixture again: scripts/collect_custom_calls.py).
"""

from __future__ import annotations

import pytest

from explorer.capture.options import build_capture_options
from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.texts import keys
from explorer.texts.content_files import LANGUAGES
from explorer.texts.lookup import explain_topic
from explorer.views.explain import explanations

pytestmark = pytest.mark.e2e

CAPTURES = {
    "train-gpu": {"targets": "gpu:h100", "mode": "train"},
    "train-cpu": {"targets": "cpu", "mode": "train"},
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
            fusions = [i for _, i in module.all_instructions() if i.opcode == "fusion" and keys.custom_fusion_kind(i)]
            for fusion, lang in ((fusion, lang) for fusion in fusions for lang in LANGUAGES):
                own = explanations(bundle, level, target, fusion.name, lang)[0]
                assert own.key.startswith("custom-fusion:"), (target, level, fusion.name, lang, own.key)
            seen += [keys.custom_fusion_kind(fusion) for fusion in fusions]
    if name == "train-gpu":  # the gradient of a convolution is a cuDNN call on the GPU
        assert "__cudnn$convBackwardFilter" in seen, seen
        # compiled without a GPU, no algorithm is picked, as its text says (issue 37)
        backward = next(i for _, i in bundle.hlo_module("gpu:h100", True).all_instructions()
                        if i.custom_call_target == "__cudnn$convBackwardFilter")
        assert '"algo_id":"-1"' in backward.backend_config
        assert "`algo_id` `-1`" in explain_topic("custom-call:__cudnn$convBackwardFilter", "en").body
    if name == "train-cpu":  # XLA:CPU hands the pooling and the bias gradient to YNNPACK
        assert "__ynn_fusion" in seen, seen
