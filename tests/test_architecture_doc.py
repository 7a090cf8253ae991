"""docs/architecture.md's "Where a change goes" list, held to the code.

Each entry names files (`explorer/levels.py`, `capture/<name>_worker.py`) and the names a contributor
edits there (`VIEWS`, `CaptureOptions`). A file that moved or a name that was renamed leaves the list
stale for the next contributor: this test finds it. A path is read from the repository root or from
`explorer/` (the list writes core paths without it); `<name>` stands for any name and must match at
least one file; a name must be defined (a class, function, assignment or field, or a module) in one of
the files its entry names.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PATH_BASES = (ROOT, ROOT / "explorer")


def entries() -> list[tuple[str, str]]:
    """(title, text) of each entry: the bullets that follow "Where a change goes:"."""
    text = DOC.read_text(encoding="utf-8")
    assert "Where a change goes:" in text, "docs/architecture.md lost its 'Where a change goes:' list"
    after = text.split("Where a change goes:", 1)[1].lstrip("\n")
    block = re.match(r"((?:- .*\n|  .*\n)+)", after)
    assert block, "the list after 'Where a change goes:' is empty"
    found = []
    for bullet in re.split(r"^- ", block.group(1), flags=re.M)[1:]:
        title = re.search(r"\*\*(.+?)\*\*", bullet)
        found.append((title.group(1) if title else bullet[:40], " ".join(bullet.split())))
    return found


def is_path(token: str) -> bool:
    return "/" in token or token.endswith(".py")


def expand(token: str) -> list[str]:
    """`texts/content/{en,de}/` -> both folders; `<name>` -> a glob's `*`."""
    pattern = re.sub(r"<\w+>", "*", token)
    braces = re.match(r"(.*)\{(.*)\}(.*)", pattern)
    return [braces[1] + part + braces[3] for part in braces[2].split(",")] if braces else [pattern]


def files_of(token: str) -> set[Path]:
    """The files a path token names (a folder: every file in it); empty when it names nothing."""
    found: set[Path] = set()
    for pattern in expand(token):
        for base in PATH_BASES:
            for hit in base.glob(pattern.rstrip("/")):
                found |= {path for path in hit.rglob("*") if path.is_file()} if hit.is_dir() else {hit}
    return found


def names_in_code(token: str) -> str | None:
    """The name a code token asks for (`Key.UNLESS_DEFAULT` -> UNLESS_DEFAULT, `app.sync()` -> sync), or
    None for what is not a Python name (a flag, a label key pattern, a command line, a file suffix)."""
    if token.startswith(("-", ".")) or " " in token or "<" in token:
        return None
    name = re.sub(r"\(.*\)$", "", token).split(".")[-1]
    return name if name.isidentifier() else None


@cache
def defined_in(path: Path) -> frozenset[str]:
    """Module-level and class-level names a file defines, and the module's own name."""
    names = {path.stem}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


ENTRIES = entries()


def test_the_list_names_every_kind_of_change_it_promises():
    titles = " | ".join(title for title, _ in ENTRIES)
    for kind in ("new target", "new compiler", "new level", "new capture option", "new key", "new command"):
        assert kind in titles.lower(), f"'Where a change goes' has no entry for a {kind}: {titles}"


@pytest.mark.parametrize(("title", "text"), ENTRIES, ids=[title for title, _ in ENTRIES])
def test_each_entry_names_files_that_exist_and_names_they_define(title, text):
    tokens = re.findall(r"`([^`]+)`", text)
    paths = [token for token in tokens if is_path(token)]
    files: set[Path] = set()
    for token in paths:
        named = files_of(token)
        assert named, f"{title}: `{token}` names no file (moved or renamed?)"
        files |= named
    python_files = {path for path in files if path.suffix == ".py"}
    for token in tokens:
        name = None if token in paths else names_in_code(token)
        if name is None:
            continue
        assert any(name in defined_in(path) for path in python_files), \
            f"{title}: `{token}` is defined in none of the files the entry names ({len(python_files)} files)"
