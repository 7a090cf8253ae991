"""Every source file the course cites exists where it says (issue 37: `jax/_src/prng.py`, cited by three
texts and the docs, no longer exists in jax 0.10.2; `xla/backends/cpu/codegen/thunk_emitter.cc` was
`xla/service/cpu/thunk_emitter.cc`).

Each cited GitHub address names a repository path and, through `UPSTREAM_REVISIONS`, the revision it
was read at. The paths the installed packages carry as files (jax, keras, TensorFlow's and TVM's
Python) are checked here against the installed packages; scripts/check_cited_sources.py checks every
path, C++ sources included, in clones at those revisions (its logic is tested here on a small repository).
"""

from __future__ import annotations

import importlib.metadata
import re
import runpy
import subprocess
import sysconfig
from pathlib import Path

import pytest

from explorer.texts.sources import UPSTREAM_REVISIONS, cited_addresses, cited_path, installed_copy

from tests.conftest import ROOT

SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])
CITED = [cited for address in cited_addresses() if (cited := cited_path(address)) is not None]


def test_the_cited_addresses_are_read_and_each_repository_names_its_revision():
    assert len(CITED) > 40
    assert {cited.repo for cited in CITED} <= set(UPSTREAM_REVISIONS)
    assert all(cited.revision not in ("main", "master") for cited in CITED)


def test_the_installed_jax_is_the_revision_its_cited_files_are_checked_at():
    assert UPSTREAM_REVISIONS["jax-ml/jax"] == f"jax-v{importlib.metadata.version('jax')}"


@pytest.mark.parametrize("cited", [c for c in CITED if installed_copy(c, SITE_PACKAGES) is not None],
                         ids=lambda cited: f"{cited.repo}:{cited.path}")
def test_every_cited_file_an_installed_package_carries_is_there(cited):
    assert installed_copy(cited, SITE_PACKAGES).is_file(), cited.address


def test_the_stale_paths_the_fact_check_found_are_no_longer_cited():
    paths = {(cited.repo, cited.path) for cited in CITED}
    assert ("jax-ml/jax", "jax/_src/prng.py") not in paths
    assert ("openxla/xla", "xla/backends/cpu/codegen/thunk_emitter.cc") not in paths
    assert ("openxla/xla", "xla/service/cpu/thunk_emitter.cc") in paths
    assert installed_copy(cited_path("https://github.com/jax-ml/jax/blob/main/jax/_src/prng.py"), SITE_PACKAGES) \
        and not installed_copy(cited_path("https://github.com/jax-ml/jax/blob/main/jax/_src/prng.py"),
                               SITE_PACKAGES).exists()  # the old citation, checked as above, fails


@pytest.mark.parametrize("doc", ["docs/course-sources.md", "docs/passport.md", "docs/tours.md"])
def test_the_package_files_the_docs_name_are_installed(doc):
    named = re.findall(r"`((?:keras|jax|tensorflow|tvm)/[\w/.-]+\.py)(?::\d+)?`", (ROOT / doc).read_text("utf-8"))
    for path in named:
        assert (SITE_PACKAGES / path).is_file(), (doc, path)


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout


def test_the_script_finds_files_and_folders_at_the_revision_and_reports_what_is_not_there(tmp_path, capsys):
    """scripts/check_cited_sources.py on a clone of a small repository standing in for openxla/xla."""
    clone = tmp_path / "xla"
    (clone / "xla" / "service" / "cpu").mkdir(parents=True)
    (clone / "xla" / "service" / "cpu" / "thunk_emitter.cc").write_text("// emitter\n")
    _git(tmp_path, "init", "-q", str(clone))
    _git(clone, "add", ".")
    _git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    commit = _git(clone, "rev-parse", "HEAD").strip()
    script = runpy.run_path(str(ROOT / "scripts" / "check_cited_sources.py"))
    at = script["CitedPath"]
    assert script["in_clone"](at("openxla/xla", commit, "xla/service/cpu/thunk_emitter.cc", ""), clone) == "ok (clone)"
    assert script["in_clone"](at("openxla/xla", commit, "xla/service/cpu/", ""), clone) == "ok (clone)"
    missing = script["in_clone"](at("openxla/xla", commit, "xla/backends/cpu/codegen/thunk_emitter.cc", ""), clone)
    assert missing == f"MISSING (not at {commit})"
    assert script["in_clone"](at("openxla/xla", "0" * 40, "xla/service/", ""), clone).startswith("not checked")
    # The real citations: this clone lacks the named revision, so nothing is checked, and --all says so.
    assert script["main"](["--clone", f"openxla/xla={clone}"]) == 0
    assert script["main"](["--clone", f"openxla/xla={clone}", "--all"]) == 1
    assert f"not checked (revision {UPSTREAM_REVISIONS['openxla/xla']} not in the clone" in capsys.readouterr().out
