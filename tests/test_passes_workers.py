"""The workers' per-pass hooks without a compiler: the flags they add, and which dump files they collect."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from explorer.capture import jax_worker, tf_worker
from explorer.model.passes_dump import read_pass_index

DUMP = Path(__file__).parent / "fixtures" / "xla_dump_passes_cpu"


def test_pass_flags_are_added_only_when_asked(monkeypatch):
    for worker, module in ((tf_worker, ".*a_inference.*"), (jax_worker, "jit_fwd")):
        monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=d")
        worker._enable_pass_dump({"passes": False})
        assert "pass_re" not in os.environ["XLA_FLAGS"]
        worker._enable_pass_dump({"passes": True})
        flags = os.environ["XLA_FLAGS"].split()
        assert flags == ["--xla_dump_to=d", "--xla_dump_hlo_pass_re=.*", f"--xla_dump_hlo_module_re={module}"]


def _jax_like_dump(tmp_path: Path) -> Path:
    """The recorded snapshots under the names the JAX worker sees, plus a helper module's snapshot."""
    dump = tmp_path / "dump"
    dump.mkdir()
    for path in DUMP.iterdir():
        rest = path.name.split("_.5.", 1)[1].replace("cpu_after", "sm_9.0a_gpu_after")
        shutil.copy(path, dump / f"module_0007.jit_fwd.12.{rest}")
    shutil.copy(next(DUMP.glob("*.0005.*")), dump / "module_0001.jit_convert.3.0001.simplification.after_algsimp.txt")
    return dump


def test_the_jax_worker_collects_the_model_module_only(tmp_path):
    dump = _jax_like_dump(tmp_path)
    jax_worker._collect_passes({"passes": True}, dump, tmp_path / "out")
    index = read_pass_index(tmp_path / "out" / "passes")
    assert index.snapshots_dumped == 25 and len(index.frames) == 9
    jax_worker._collect_passes({"passes": False}, dump, tmp_path / "none")
    assert not (tmp_path / "none").exists()


def test_the_tf_worker_collects_the_inference_module(tmp_path):
    tf_worker._cpu_passes({"passes": True}, DUMP, tmp_path / "cpu")
    assert len(read_pass_index(tmp_path / "cpu" / "passes").frames) == 9


def test_in_train_mode_the_jax_worker_films_the_training_step(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=d")
    jax_worker._enable_pass_dump({"passes": True, "mode": "train"})
    assert os.environ["XLA_FLAGS"].split()[-1] == "--xla_dump_hlo_module_re=jit_train_step"


def test_with_remat_the_film_is_the_step_compiled_first(tmp_path):
    """--remat compiles the same step again without it (for the comparison) after the levels'
    step: the film must show the first one, as the optimized level does."""
    dump = tmp_path / "dump"
    dump.mkdir()
    for number in ("0003", "0009"):
        for path in DUMP.iterdir():
            rest = path.name.split("_.5.", 1)[1].replace("cpu_after", "sm_9.0a_gpu_after")
            shutil.copy(path, dump / f"module_{number}.jit_train_step.12.{rest}")
    train = {"passes": True, "mode": "train", "target": "gpu:h100"}
    assert jax_worker._filmed_dump(dump, "jit_train_step", train).name.startswith("module_0003.")
    assert jax_worker._filmed_dump(dump, "jit_train_step", {"passes": True}).name.startswith("module_0009.")
    for path in dump.iterdir():  # XLA:CPU names its optimized module `cpu_after_optimizations`
        path.rename(dump / path.name.replace("sm_9.0a_gpu_after", "cpu_after"))
    cpu = jax_worker._filmed_dump(dump, "jit_train_step", {**train, "target": "cpu"})
    assert cpu.name.startswith("module_0003.") and cpu.name.endswith("cpu_after_optimizations.txt")
