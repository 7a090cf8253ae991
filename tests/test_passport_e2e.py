"""(e2e) The passport on fresh captures of mnist_cnn and tiny_transformer for cpu, gpu:h100 and tpu:v5e:
every layer on every target gets its eight hops in order, its output tensor read off the data flow
(never the last-instruction guess), and the hops the issue names are there.

The captures run the real compilers (about a minute on two cores, or a cache hit); the passport
is asked through `explorer.views.passport`, what `P` and `tensorweg passport` call.
"""

from __future__ import annotations

import pytest

from explorer.targets import DEFAULT_TARGETS
from explorer.views.passport import passport
from explorer.views.passport.text import as_json

pytestmark = pytest.mark.e2e

LEVELS = ["python", "layers", "graph", "hlo", "optimized-hlo", "kernels", "machine-code", "memory"]


def captured(sample: str):
    from explorer.capture.orchestrator import capture
    from explorer.model.bundle import Bundle
    from explorer.model.records import CaptureOptions

    return Bundle.open(capture(sample, CaptureOptions(targets=tuple(DEFAULT_TARGETS))))


@pytest.mark.parametrize("sample", ["mnist_cnn", "tiny_transformer"])
def test_every_layer_on_every_target_has_its_hops_in_order(sample):
    bundle = captured(sample)
    for target in DEFAULT_TARGETS:
        for record in bundle.layers:
            found = passport(bundle, target, record.name)
            assert [hop.level for hop in found.hops] == LEVELS, (target, record.name)
            assert as_json(found)
            assert found.tensor or found.went, (target, record.name)  # computed, or says where it went
            fusion = next(hop for hop in found.hops if hop.level == "optimized-hlo")
            # the output tensor is read off the data flow, never guessed, on XLA's three targets
            assert not found.tensor or (fusion.evidence == "data_flow" and not fusion.heuristic), (target, record.name)


def test_mnist_cnn_conv2d_down_to_registers_on_each_target():
    bundle = captured("mnist_cnn")
    cpu = {hop.level: hop for hop in passport(bundle, "cpu", "conv2d").hops}
    assert cpu["python"].name.startswith("keras/")
    # cpu's own lines, from the TF ops' tracebacks the worker records: nothing borrowed from a JAX target
    assert cpu["python"].evidence == "op_traceback" and not cpu["python"].heuristic
    assert any(r.startswith(("xmm", "ymm", "zmm")) for r in dict(cpu["machine-code"].details)["registers"])
    tpu = {hop.level: hop for hop in passport(bundle, "tpu:v5e", "conv2d").hops}
    assert any("VMEM" in line for line in tpu["machine-code"].lines)
    gpu = {hop.level: hop for hop in passport(bundle, "gpu:h100", "dense").hops}
    assert dict(gpu["machine-code"].details)["kind"] == "sass"
    # the convolution's buffer is its output's tuple element, not cuDNN's u8[0] scratch workspace
    conv = dict({hop.level: hop for hop in passport(bundle, "gpu:h100", "conv2d").hops}["memory"].details)
    assert conv["size"] == 1 * 26 * 26 * 8 * 4 and conv["shape_index"] != "{}"
