"""End to end: the JAX worker compiles for the H100 and the A100 and every kernel with PTX comes
back with its SASS and registers per thread (the real XLA:GPU, ptxas and cuobjdump)."""

from __future__ import annotations

import platform
import sys

import pytest

from explorer.capture.orchestrator import capture
from explorer.model.bundle import Bundle
from explorer.model.records import CaptureOptions

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not (sys.platform == "linux" and platform.machine() == "x86_64"),
                       reason="the CUDA plugin and NVIDIA's tool wheels are Linux x86-64 only"),
]

ARCH = {"gpu:h100": "sm_90a", "gpu:a100": "sm_80"}


@pytest.mark.parametrize("sample", ["mnist_cnn", "tiny_transformer"])
def test_every_gpu_kernel_with_ptx_has_sass_and_registers(sample, tmp_path):
    path = capture(sample, CaptureOptions(targets=tuple(ARCH)), out_dir=tmp_path / "bundle")
    bundle = Bundle.open(path)
    for target, arch in ARCH.items():
        assert bundle.status("kernels", target).status == "ok", bundle.status("kernels", target)
        compiled = [k for k in bundle.kernels(target) if k.ptx]
        assert compiled, target
        for kernel in compiled:
            assert kernel.sass and not kernel.sass_note, (target, kernel.name, kernel.sass_note)
            assert kernel.ptxas.arch == arch and 0 < kernel.ptxas.registers <= 255, (target, kernel.name)
            assert "  EXIT ;" in kernel.sass, (target, kernel.name)
