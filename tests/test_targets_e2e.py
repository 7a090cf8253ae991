"""End to end for the accelerators: mnist_cnn and tiny_transformer on cpu, gpu:h100 and tpu:v5e,
compiled for real by XLA's GPU and TPU compilers without the hardware, checked for what a learner sees."""

from __future__ import annotations

import pytest

from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

pytestmark = pytest.mark.e2e

DEFAULT = CaptureOptions(targets=("cpu", "gpu:h100", "tpu:v5e"))


@pytest.fixture(scope="module", params=["mnist_cnn", "tiny_transformer"])
def bundle(request, tmp_path_factory):
    path = capture(request.param, DEFAULT, out_dir=tmp_path_factory.mktemp("b") / request.param)
    return Bundle.open(path)


def test_every_level_of_every_target_is_captured(bundle):
    for target in DEFAULT.targets:
        for level in ("hlo", "optimized-hlo", "kernels", "memory"):
            status = bundle.status(level, target)
            assert status.status == "ok", (target, level, status.error)


def test_tpu_shows_tiles_and_on_chip_memory(bundle):
    module = bundle.hlo_module("tpu:v5e", optimized=True)
    layouts = [i.shape.layout for _, i in module.all_instructions() if i.shape.layout]
    assert any(tile.dims == (8, 128) for layout in layouts for tile in layout.tiles)
    assert any(layout.memory_space == 1 for layout in layouts), "nothing placed in VMEM (S(1))?"
    assert bundle.memory("tpu:v5e").allocations


def test_gpu_kernels_have_ptx_for_hopper_and_launch_shapes(bundle):
    kernels = bundle.kernels("gpu:h100")
    launched = [k for k in kernels if k.launch is not None]
    assert launched, "no kernel launch recorded"
    assert all(k.launch.block[0] >= 1 and k.launch.grid[0] >= 1 for k in launched)
    assert any(".target sm_90a" in k.ptx for k in kernels)
    assert bundle.memory("gpu:h100").allocations


def test_accelerator_instructions_link_back_to_layers(bundle):
    """The same Keras layer is found in the optimized HLO of all three targets."""
    index = bundle.index
    layer_names = {layer.name for layer in bundle.layers if layer.params}
    for target in DEFAULT.targets:
        owned = {index.layer_of("optimized-hlo", name, target)
                 for _, instruction in bundle.hlo_module(target, optimized=True).all_instructions()
                 for name in [instruction.name]}
        assert layer_names & owned, (target, layer_names, owned)
