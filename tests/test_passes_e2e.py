"""End to end: `tensorweg passes` captures mnist_cnn with --passes on cpu and tpu:v5e (real XLA), and
Grappler's film of its TensorFlow graph (real TensorFlow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from explorer.model.passes_dump import read_pass_texts

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


def test_passes_captures_grapplers_film_of_mnist_cnn(tmp_path):
    """Real TensorFlow: Grappler's optimizers run one by one end where its default run ends."""
    from explorer.model.bundle import Bundle
    from explorer.model.passes_grappler import GRAPPLER

    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "mnist_cnn", "--targets", "cpu",
                             "--passes", "-o", str(tmp_path / "bundle")], capture_output=True, text=True, env=env,
                            timeout=900)
    assert result.returncode == 0, result.stderr
    bundle = Bundle.open(tmp_path / "bundle")
    strip = bundle.passes(GRAPPLER)
    assert strip is not None and len(strip) >= 2  # the frozen graph and at least one optimizer that changed it
    assert strip.frames[0].pass_name == "before-optimizations"
    assert "constant_folding" in [frame.pass_name for frame in strip.frames]
    last = strip.frame(len(strip) - 1).computations["graph"]
    assert sorted(node.name for node in last) == sorted(op.name for op in bundle.graph.optimized_ops)
    stored = "".join(read_pass_texts(tmp_path / "bundle" / "grappler"))
    assert str(tmp_path) not in stored and "site-packages" not in stored
    # Without --passes there is no film, and the graph level is the same.
    plain = subprocess.run([sys.executable, "-m", "explorer.cli", "capture", "mnist_cnn", "--targets", "cpu",
                            "-o", str(tmp_path / "plain")], capture_output=True, text=True, env=env, timeout=900)
    assert plain.returncode == 0, plain.stderr
    assert not (tmp_path / "plain" / "grappler").exists()
    assert Bundle.open(tmp_path / "plain").graph.optimized_ops == bundle.graph.optimized_ops


def test_train_remat_film_is_the_step_with_its_recomputation(tmp_path):
    """Real JAX/XLA:CPU: with --mode train --remat the film is the remat step (not the copy compiled
    without remat for the comparison), and following its recomputed convolution says so."""
    env = {**os.environ, "TENSORWEG_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "explorer.cli", "passes", "mnist_cnn", "--mode", "train", "--remat",
                             "--target", "cpu", "--follow", "conv_general_dilated.4", "--json"],
                            capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["follow"][0]["kind"] == "rematerialised" and data["follow"][0]["into"] == "conv_general_dilated.3"
    assert not any("remat" in frame["pass"] for frame in data["frames"])  # XLA's own remat pass changed nothing
