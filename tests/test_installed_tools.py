"""The tool versions in the cache key (explorer/capture/installed_tools.py) read from dist-info folder
names give what `importlib.metadata` gives, so a cached bundle keeps its key."""

from __future__ import annotations

import sys
from importlib import metadata

from explorer.capture.cache import tool_versions
from explorer.capture.installed_tools import NOT_INSTALLED, TOOL_DISTRIBUTIONS, installed_versions, normalise


def _metadata_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


def test_the_folder_names_agree_with_importlib_metadata():
    assert tool_versions() == tuple((name, _metadata_version(name)) for name in TOOL_DISTRIBUTIONS)
    assert dict(tool_versions())["tensorweg"] != NOT_INSTALLED  # the check compared real versions


def test_other_installed_distributions_agree_too():
    """Every distribution on the path, whatever its name's spelling (Jinja2, typing_extensions...)."""
    names = tuple(sorted({dist.metadata["Name"] for dist in metadata.distributions()}))
    assert len(names) > 10
    assert installed_versions(names) == {name: _metadata_version(name) for name in names}


def test_names_are_normalised_as_the_packaging_spec_says():
    assert normalise("jax-cuda12-plugin") == normalise("JAX_cuda12.Plugin") == "jax_cuda12_plugin"
    assert normalise("a-_.b") == "a_b"


def test_what_the_folder_names_do_not_say_is_asked_of_importlib_metadata(tmp_path, monkeypatch):
    """An .egg-info found first (no version in its name here) and a distribution nowhere on the path."""
    (tmp_path / "Some_Tool.egg-info").mkdir()
    (tmp_path / "Some_Tool.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: some-tool\nVersion: 1.2\n")
    (tmp_path / "other_tool-3.4.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "absent"), str(tmp_path), *sys.path])
    assert installed_versions(("some-tool", "Other.Tool", "no-such-tool-for-tensorweg")) == {
        "some-tool": "1.2", "Other.Tool": "3.4", "no-such-tool-for-tensorweg": NOT_INSTALLED}
