"""The cache key: same model bytes, options and tools -> same bundle; any change -> another.

The targets are not in the key: one bundle per model and options grows by targets
(tests/test_bundle_grow.py).
"""

from __future__ import annotations

from explorer.capture.cache import cache_key, cache_root, cached_bundle_path, tool_versions
from explorer.capture.model_source import resolve
from explorer.model.records import CaptureOptions


def test_key_follows_model_bytes_and_options(tmp_path):
    model = tmp_path / "m.keras"
    model.write_bytes(b"first")
    options = CaptureOptions(targets=("cpu",))
    key = cache_key(resolve(str(model)), options)
    assert key == cache_key(resolve(str(model)), CaptureOptions(targets=("cpu",)))
    assert key != cache_key(resolve(str(model)), CaptureOptions(targets=("cpu",), batch=2))
    assert key != cache_key(resolve(str(model)), CaptureOptions(targets=("cpu",), unsafe=True))
    assert key != cache_key(resolve(str(model)), CaptureOptions(targets=("cpu",), input_shapes=(("x", (8,)),)))
    model.write_bytes(b"second")
    assert key != cache_key(resolve(str(model)), options)


def test_same_bytes_elsewhere_share_the_key(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "m.h5").write_bytes(b"weights")
    options = CaptureOptions()
    assert cache_key(resolve(str(tmp_path / "a" / "m.h5")), options) == cache_key(
        resolve(str(tmp_path / "b" / "m.h5")), options)


def test_cache_lives_under_the_configured_root(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORWEG_CACHE_DIR", str(tmp_path))
    path = cached_bundle_path(resolve("mnist_cnn"), CaptureOptions())
    assert cache_root() == tmp_path and path.parent.parent == tmp_path


def test_tool_versions_name_the_compilers():
    names = dict(tool_versions())
    assert names["tensorflow"] != "not installed" and names["keras"] != "not installed"


def test_targets_do_not_change_the_key(tmp_path):
    """A capture for one more target finds the same bundle and grows it instead of starting over."""
    model = tmp_path / "m.keras"
    model.write_bytes(b"weights")
    keys = {cache_key(resolve(str(model)), CaptureOptions(targets=targets))
            for targets in [("cpu",), ("tpu:v5e",), ("cpu", "gpu:h100", "tpu:v5e"), ("tpu:v5e", "cpu")]}
    assert len(keys) == 1
