"""Check that every source file the course cites exists at the revision it was read at (issue 37).

Each GitHub address in the course texts, the glossary and the documented sources
(`explorer.texts.sources.cited_addresses`) names a repository path; `UPSTREAM_REVISIONS` says which
revision an address that points at `main` was read at (an address naming a tag or a commit is read
there). Each path is looked up in a clone of its repository (`git cat-file`; a folder with `git
ls-tree`), or, where no clone is given, in the installed package that carries it (jax, keras,
TensorFlow's and TVM's Python sources; tests/test_cited_sources.py does that part in the unit lane):

    python scripts/check_cited_sources.py --clone openxla/xla=~/src/xla --clone jax-ml/jax=~/src/jax

Each path gets one line: `ok (clone)`, `ok (installed)`, `MISSING (...)` or `not checked (no clone of
REPO)`. The exit status is 1 when a path is missing, or with `--all` when one could not be checked;
clones need the revisions (`git fetch --tags`, or a full clone).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.texts.sources import CitedPath, cited_addresses, cited_path, installed_copy  # noqa: E402 (the root first)


def in_clone(cited: CitedPath, clone: Path) -> str:
    """`ok (clone)` or why not, for the cited path at its revision in a git clone (work tree or bare)."""
    spec = f"{cited.revision}:{cited.path.rstrip('/')}"
    found = subprocess.run(["git", "-C", str(clone), "cat-file", "-t", spec], capture_output=True, text=True)
    if found.returncode == 0:
        wanted = "tree" if cited.path.endswith("/") else "blob"
        kind = found.stdout.strip()
        return "ok (clone)" if kind == wanted else f"MISSING (a {kind} at {cited.revision}, not a {wanted})"
    known = subprocess.run(["git", "-C", str(clone), "cat-file", "-e", f"{cited.revision}^{{commit}}"],
                           capture_output=True)
    if known.returncode != 0:
        return f"not checked (revision {cited.revision} not in the clone {clone})"
    return f"MISSING (not at {cited.revision})"


def check(cited: CitedPath, clones: dict[str, Path], site_packages: Path) -> str:
    if cited.repo in clones:
        return in_clone(cited, clones[cited.repo])
    copy = installed_copy(cited, site_packages)
    if copy is not None:
        return "ok (installed)" if copy.exists() else f"MISSING (not in the installed package: {copy})"
    return f"not checked (no clone of {cited.repo})"


def parse_clones(pairs: list[str]) -> dict[str, Path]:
    clones = {}
    for pair in pairs:
        repo, equals, folder = pair.partition("=")
        if not equals or "/" not in repo or not Path(folder).expanduser().is_dir():
            raise SystemExit(f"error: --clone takes OWNER/NAME=FOLDER with an existing folder, not {pair!r}")
        clones[repo] = Path(folder).expanduser()
    return clones


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", action="append", default=[], metavar="OWNER/NAME=FOLDER",
                        help="a git clone of a cited repository (repeatable)")
    parser.add_argument("--all", action="store_true", help="fail when a path could not be checked, too")
    args = parser.parse_args(argv)
    clones = parse_clones(args.clone)
    site_packages = Path(sysconfig.get_paths()["purelib"])
    results = []
    for address in cited_addresses():
        cited = cited_path(address)
        if cited is not None:
            results.append((cited, check(cited, clones, site_packages)))
    for cited, verdict in results:
        print(f"{verdict:<44}  {cited.repo}@{cited.revision[:12]}  {cited.path}")
    missing = [cited for cited, verdict in results if verdict.startswith("MISSING")]
    unchecked = [cited for cited, verdict in results if verdict.startswith("not checked")]
    print(f"{len(results)} cited paths: {len(missing)} missing, {len(unchecked)} not checked", file=sys.stderr)
    return 1 if missing or (args.all and unchecked) else 0


if __name__ == "__main__":
    sys.exit(main())
