"""Damaged bundles read as one clear error (TensorwegError / `error: ...`, exit 2), never a traceback.

Cases from the trust review (issue 16) against a copy of the recorded mnist_cnn
bundle, then a hypothesis fuzz over every JSON file of it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.errors import BundleError, DataError, TensorwegError
from explorer.levels import LEVELS
from explorer.model.bundle import Bundle
from explorer.views import inspect as inspect_view

FIXTURE = Path(__file__).parent / "fixtures" / "bundles" / "mnist_cnn"
JSON_FILES = sorted(str(p.relative_to(FIXTURE)) for p in FIXTURE.rglob("*.json"))


@pytest.fixture
def bundle_copy(tmp_path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "mnist_cnn"))


def read_everything(path: Path) -> None:
    """What `inspect` and the screens read: the manifest, every level of every target."""
    bundle = Bundle.open(path)
    for target in bundle.targets:
        for level in LEVELS:
            bundle.status(level, target)
            inspect_view.level_data(bundle, level, target)
        bundle.cost(target)
    assert isinstance(bundle.scopes, dict)


def inspect(path: Path, level: str = "layers", target: str = "cpu") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", "inspect", str(path), "--level", level,
                           "--target", target], capture_output=True, text=True, timeout=120)


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_the_fixture_itself_reads_completely(bundle_copy):
    read_everything(bundle_copy)


@pytest.mark.parametrize("manifest, fragment", [
    ({"schema_version": 1}, "damaged manifest: model: missing"),
    ([1, 2, 3], "bundle schema None"),
    ("not json at all", "unreadable manifest"),
], ids=["only-schema", "a-list", "not-json"])
def test_a_damaged_manifest_is_one_line_for_inspect(bundle_copy, manifest, fragment):
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (bundle_copy / "manifest.json").write_text(text)
    with pytest.raises(BundleError, match=fragment):
        Bundle.open(bundle_copy)
    assert_one_line_error(inspect(bundle_copy), fragment)


def test_a_manifest_naming_a_target_outside_the_bundle_is_refused(bundle_copy):
    manifest = json.loads((bundle_copy / "manifest.json").read_text())
    manifest["options"]["targets"] = ["../../../etc"]
    (bundle_copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match="unknown target '../../../etc'"):
        Bundle.open(bundle_copy)


def test_a_captured_level_whose_text_is_gone_names_the_file(bundle_copy):
    """The text is the module's only record: a captured level without it is damaged, not empty."""
    (bundle_copy / "targets" / "cpu" / "hlo.txt").unlink()
    with pytest.raises(DataError, match="targets/cpu/hlo.txt: missing"):
        Bundle.open(bundle_copy).hlo_module("cpu")
    assert_one_line_error(inspect(bundle_copy, "hlo"), "targets/cpu/hlo.txt")


def test_a_captured_graph_whose_file_is_gone_names_the_file(bundle_copy):
    """The manifest says the graph level was captured; without graph.json inspect says so (it was a traceback)."""
    (bundle_copy / "graph.json").unlink()
    assert_one_line_error(inspect(bundle_copy, "graph"), "graph.json: missing")


def test_a_corrupted_hlo_text_names_the_file(bundle_copy):
    hlo = bundle_copy / "targets" / "cpu" / "hlo.txt"
    hlo.write_text(hlo.read_text()[: len(hlo.read_text()) // 2])
    with pytest.raises(DataError, match="targets/cpu/hlo.txt: "):
        Bundle.open(bundle_copy).hlo_module("cpu")
    assert_one_line_error(inspect(bundle_copy, "hlo"), "targets/cpu/hlo.txt")


def test_layers_json_with_wrong_types_names_the_field(bundle_copy):
    layers = json.loads((bundle_copy / "layers.json").read_text())
    layers[1]["trainable_params"] = "many"
    (bundle_copy / "layers.json").write_text(json.dumps(layers))
    with pytest.raises(DataError, match=r"layers.json: \[1\].trainable_params: expected int, found str"):
        layers = Bundle.open(bundle_copy).layers
        pytest.fail(f"read the broken layers.json as {layers!r}")
    assert_one_line_error(inspect(bundle_copy, "layers"), "layers.json: [1].trainable_params")


def test_a_binary_kernels_file_is_one_line(bundle_copy):
    (bundle_copy / "targets" / "cpu" / "kernels.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert_one_line_error(inspect(bundle_copy, "kernels"), "targets/cpu/kernels.json: not UTF-8 text")


# --- fuzz -------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _nodes(value, path=()):
    """Every (path, value) in a JSON tree, the root included."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _nodes(child, (*path, index))


def _replaced(tree, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(tree, dict):
        return {**tree, head: _replaced(tree[head], rest, new)}
    copy = list(tree)
    copy[head] = _replaced(tree[head], rest, new)
    return copy


def _deleted(tree, path):
    parent_path, key = path[:-1], path[-1]
    parent = tree
    for step in parent_path:
        parent = parent[step]
    smaller = {k: v for k, v in parent.items() if k != key} if isinstance(parent, dict) else \
        [v for i, v in enumerate(parent) if i != key]
    return _replaced(tree, parent_path, smaller)


@st.composite
def mutations(draw):
    """(file, new text): a JSON file of the bundle truncated, replaced, or with one node changed or removed."""
    name = draw(st.sampled_from(JSON_FILES))
    text = (FIXTURE / name).read_text()
    how = draw(st.sampled_from(["truncate", "replace-node", "delete-node", "whole"]))
    if how == "truncate":
        return name, text[: draw(st.integers(0, max(0, len(text) - 1)))]
    if how == "whole":
        return name, json.dumps(draw(json_values))
    tree = json.loads(text)
    nodes = list(_nodes(tree))
    path, _ = nodes[draw(st.integers(0, len(nodes) - 1))]
    if how == "delete-node" and path:
        return name, json.dumps(_deleted(tree, path))
    return name, json.dumps(_replaced(tree, path, draw(json_values)))


@pytest.fixture(scope="module")
def fuzz_copy(tmp_path_factory) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path_factory.mktemp("fuzz") / "mnist_cnn"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation=mutations())
def test_any_damage_to_a_bundle_file_is_a_tensorweg_error(fuzz_copy, mutation):
    name, text = mutation
    target = fuzz_copy / name
    target.write_text(text)
    try:
        read_everything(fuzz_copy)
    except TensorwegError:
        pass
    finally:
        shutil.copyfile(FIXTURE / name, target)


def test_capture_checks_that_the_text_parses_and_writes_no_record_beside_it(tmp_path, capsys):
    """The parsed module is not stored: nothing would read it (the text parses faster than it decodes)."""
    from explorer.capture.artifacts import write_parsed

    text = tmp_path / "hlo.txt"
    text.write_text((FIXTURE / "targets" / "cpu" / "hlo.txt").read_text())
    assert write_parsed(text) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hlo.txt"]
    text.write_text("HloModule broken\n\nENTRY {\n")
    assert write_parsed(text) is False
    assert "hlo.txt not parsed" in capsys.readouterr().err


def test_the_recorded_sample_bundles_are_keyed_by_the_sample_sources_as_they_are():
    """The compare screen finds a bundle's mesh siblings in the cache by the bundle's model hash,
    and a sample's hash covers sample_models/*.py: an edit there keys every sample capture anew.
    The recorded mesh bundles must carry the current key, or `M` captures what it then cannot find
    (tests/test_mesh_e2e.py). After an edit that leaves the builders' models as they were, write the
    new hash into these manifests; after one that changes a model, record the bundles again."""
    from explorer.capture.model_source import resolve

    bundles = Path(__file__).parent / "fixtures" / "bundles"
    stale = []
    for name in ("mlp_one_chip", "mlp_mesh_2x2", "mlp_mesh_4x4", "mnist_cnn_tvm"):
        identity = json.loads((bundles / name / "manifest.json").read_text())["model"]
        if identity["sha256"] != resolve(identity["spec"]).content_hash:
            stale.append(name)
    assert stale == [], f"recorded with other sample sources: {stale}"
