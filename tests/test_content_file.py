"""A selection's explanation reads only the texts it tries (`explorer.texts.content_files.content_file`),
each file alone, and finds exactly what reading the whole language finds."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explorer.texts.content_files import content_file

FRESH = r"""
import json, sys
from importlib import resources
from explorer.texts import content_files
from explorer.texts.lookup import explain
first = explain("hlo", ["hlo:convolution"], "tpu:v5e", "de")
read_whole_before = sorted(content_files._loaded)
alone = {}
for lang in content_files.LANGUAGES:
    root = resources.files("explorer.texts").joinpath("content", lang)
    for family in root.iterdir():
        if family.is_dir():
            for entry in family.iterdir():
                key = f"{family.name}:{entry.name[:-3]}"
                found = content_files.content_file(lang, key)
                alone[f"{lang} {key}"] = None if found is None else [found.key, found.title, found.body, found.path]
whole = {f"{lang} {key}": [c.key, c.title, c.body, c.path]
         for lang in content_files.LANGUAGES for key, c in content_files.load_language(lang).items()}
print(json.dumps({"first": first.key, "read_whole_before": read_whole_before, "alone": alone, "whole": whole}))
"""


def test_each_text_read_alone_is_the_text_read_with_its_language():
    result = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    read = json.loads(result.stdout)
    assert read["first"] == "hlo:convolution@tpu"
    assert read["read_whole_before"] == []  # the explanation read its few files, not the language
    assert len(read["whole"]) > 700
    assert read["alone"] == read["whole"]


@pytest.mark.parametrize("key", [
    "custom-call:../../../../etc/passwd", "hlo:../level/hlo", "hlo:dot/../add", "../en/hlo:dot", "hlo:.dot",
    "hlo:", ":dot", "hlo", "HLO:dot", "hlo:dot\x00", "hlo:dot.md", "hlo:dot@tpu/../../x", "hlo:~", "",
])
def test_a_key_from_a_bundle_never_names_a_file_outside_its_family(key):
    """Custom-call targets come from the bundle's HLO: a key is looked up as a file name only when it
    is one plain name in one family's folder."""
    assert content_file("en", key) is None


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError):
        content_file("fr", "hlo:dot")
