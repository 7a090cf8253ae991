"""The target registry: names, parsing, GPU target configs, availability."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import replace

import pytest

from explorer import targets
from explorer.errors import TensorwegError
from explorer.targets import (
    AOT_INSTALL_HINT,
    DEFAULT_TARGETS,
    NOT_AVAILABLE,
    TARGETS,
    availability,
    gpu_target_config_text,
    parse_targets,
    target_dirname,
)


def test_defaults_are_registered_and_one_per_kind():
    assert DEFAULT_TARGETS == ("cpu", "gpu:h100", "tpu:v5e")
    assert [TARGETS[t].kind for t in DEFAULT_TARGETS] == ["cpu", "gpu", "tpu"]


def test_architecture_target_names_are_all_known():
    documented = {"cpu", "gpu:h100", "gpu:a100", "tpu:v5e", "tpu:v4", "tpu:v5p", "tpu:v6e", "gpu:local"}
    assert documented <= set(TARGETS)


@pytest.mark.parametrize("name", [n for n, s in TARGETS.items() if not s.on_this_machine])
def test_compile_only_targets_carry_sourced_roofline_figures(name):
    spec = TARGETS[name]
    assert spec.topology or spec.llvm("mcpu")  # a JAX topology, or the CPU an ARM row compiles for
    assert spec.has_roofline_figures
    for dtype, _flops in spec.peak_flops:
        assert spec.roofline_source(dtype)


def test_parse_targets_keeps_order_drops_duplicates_and_expands_bare_kinds():
    assert parse_targets("cpu,gpu:h100") == ("cpu", "gpu:h100")
    assert parse_targets(" TPU:V4 , cpu,tpu:v4") == ("tpu:v4", "cpu")
    assert parse_targets("gpu,tpu") == ("gpu:h100", "tpu:v5e")


@pytest.mark.parametrize("text", ["gpu:h200", "cpu,tpu:v9", "", " , "])
def test_parse_targets_rejects_unknown_or_empty(text):
    with pytest.raises(TensorwegError):
        parse_targets(text)


def test_target_dirname_replaces_colon():
    assert target_dirname("gpu:h100") == "gpu-h100"
    assert target_dirname("cpu") == "cpu"


def test_gpu_target_config_text_has_every_device_field_and_compute_capability():
    spec = TARGETS["gpu:a100"]
    text = gpu_target_config_text(spec)
    for field, value in spec.gpu_device.fields:
        assert f"  {field}: {value}\n" in text
    assert "cuda_compute_capability { major: 8 minor: 0 }" in text
    assert 'device_description_str: "NVIDIA A100-SXM4-40GB"' in text
    assert text.count("{") == text.count("}")


@pytest.mark.parametrize("name", ["tpu:v5e", "gpu:local"])
def test_gpu_target_config_text_refuses_a_target_without_a_device_description(name):
    with pytest.raises(TensorwegError, match=f"{name} has no GPU device description"):
        gpu_target_config_text(TARGETS[name])


def test_peak_for_falls_back_to_headline_figure():
    spec = TARGETS["tpu:v5e"]
    assert spec.peak_for("f32") == spec.peak_flops[0]
    assert spec.peak_for("int8")[0] == "int8"


def test_availability_cpu_always_and_missing_wheels_reported(monkeypatch):
    assert availability("cpu") is None
    real = importlib.util.find_spec
    # The CUDA plugin is looked for as a folder of the jax_plugins namespace (no import of its parents).
    monkeypatch.setattr(targets.importlib.util, "find_spec",
                        lambda name, *a: None if name in ("libtpu", "jax_plugins") else real(name, *a))
    assert availability("tpu:v5e") == NOT_AVAILABLE
    assert availability("gpu:h100") == NOT_AVAILABLE


def test_a_target_row_needing_a_module_that_is_missing_is_refused_before_anything_runs(monkeypatch):
    """A TensorFlow build without XLA's ahead-of-time compiler: an ARM target is bad input naming what is
    missing (the row's `needs_modules`), found without importing TensorFlow."""
    import sys

    spec = TARGETS["arm:cortex-a76"]
    assert spec.needs_modules == ("tensorflow.python._pywrap_tfcompile",)
    monkeypatch.setattr(targets, "TARGETS", {**TARGETS, spec.name: replace(
        spec, needs_modules=("tensorflow.python._pywrap_tfcompile_not_built",))})
    assert availability("arm:cortex-a76") == AOT_INSTALL_HINT
    with pytest.raises(TensorwegError, match=re.escape(f"target arm:cortex-a76: {AOT_INSTALL_HINT}")):
        targets.require_installed(("cpu", "arm:cortex-a76"))
    assert "tensorflow" not in sys.modules


def test_an_unknown_arm_core_names_the_arm_targets():
    with pytest.raises(TensorwegError, match="unknown target 'arm:cortex-a99': the arm targets are "
                                             "arm:cortex-a76, arm:neoverse-n1"):
        parse_targets("cpu,arm:cortex-a99")


def test_availability_in_this_environment_does_not_import_jax():
    import sys

    before = "jax" in sys.modules
    for name in TARGETS:
        availability(name)
    assert ("jax" in sys.modules) == before
