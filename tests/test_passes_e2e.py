"""End to end: `tensorweg passes` captures mnist_cnn with --passes on cpu and tpu:v5e (real XLA)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from explorer.passes_dump import read_pass_texts

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("target", "fusion_pass", "fused_kind"), [
    ("cpu", "fusion", "feeds"),           # XLA:CPU keeps the convolution a library call; its bias and ReLU fuse
    ("tpu:v5e", "tpu_fusion", "fused"),   # XLA:TPU fuses the convolution itself into a kOutput fusion
])
def test_passes_captures_and_follows_the_convolution(tmp_path, target, fusion_pass, fused_kind):
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "passes", "mnist_cnn", "--target", target,
                             "--follow", "conv2d", "--json"], capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    passes = [frame["pass"] for frame in data["frames"]]
    assert passes[0] == "before-optimizations" and fusion_pass in passes
    assert data["snapshots_dumped"] > len(passes) - 2  # unchanged snapshots were dropped
    step = next(s for s in data["follow"] if s["kind"] == fused_kind)
    assert data["frames"][step["frame"]]["pass"] == fusion_pass
    if target == "tpu:v5e":
        assert "(kOutput)" in step["sentence"]
    (passes_dir,) = (tmp_path / "cache").rglob("passes")
    stored = "".join(read_pass_texts(passes_dir))
    assert "config_proto_" not in stored and str(tmp_path) not in stored and "site-packages" not in stored
