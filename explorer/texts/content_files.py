"""Reading the Markdown content files: a `---` header of `name: value` lines, then a body.

Files live under `content/<lang>/<family>/<name>.md` for a key `<family>:<name>`
(a colon in a file name breaks checkouts on Windows, so the family becomes a
folder). The header's `key:` is authoritative; a test checks it matches the path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from explorer.errors import ParseError

LANGUAGES = ("de", "en")
REQUIRED_FIELDS = ("key", "title", "source")
# What a key's family and name may hold to be looked up as a file: a key can come from a bundle (a
# custom-call target's name), so no separator, no dot, nothing that leaves the family's folder.
_FAMILY = re.compile(r"[a-z][a-z-]*")
_NAME = re.compile(r"[A-Za-z0-9_$@-]+")


@dataclass(frozen=True)
class ContentFile:
    """One explanation text as written (placeholders not yet filled)."""

    key: str
    title: str
    source: str
    terms: tuple[str, ...]
    body: str
    path: str  # relative to content/, for error messages and tests


def parse_content(text: str, path: str) -> ContentFile:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ParseError("content file must start with a '---' header line", 1, 1, path)
    fields: dict[str, str] = {}
    end = 0
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            end = number
            break
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise ParseError("header line must read 'name: value'", number, 1, path)
        fields[name.strip()] = value.strip()
    if not end:
        raise ParseError("header is not closed by a '---' line", len(lines), 1, path)
    for required in REQUIRED_FIELDS:
        if not fields.get(required):
            raise ParseError(f"header lacks '{required}:'", 1, 1, path)
    terms = tuple(t.strip() for t in fields.get("terms", "").split(",") if t.strip())
    body = "\n".join(lines[end:]).strip()
    return ContentFile(fields["key"], fields["title"], fields["source"], terms, body, path)


def _content_root() -> Traversable:
    return resources.files("explorer.texts").joinpath("content")


_loaded: dict[str, dict[str, ContentFile]] = {}  # the languages read whole, once per process


def load_language(lang: str) -> dict[str, ContentFile]:
    """Every explanation of one language, by key (read once per process)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    found = _loaded.get(lang)
    if found is None:  # two threads at once read it twice, the same texts: no lock needed
        found = _loaded[lang] = _read_language(lang)
    return found


@cache
def content_file(lang: str, key: str) -> ContentFile | None:
    """The text of `key` (`family:name`), or None: from its language read whole if it was, else its one
    file read alone. A selection's first explanation needs two or three texts, not the ~400 files of
    a language (20 ms on the first screen)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    if lang in _loaded:
        return _loaded[lang].get(key)
    family, _, name = key.partition(":")
    if not (_FAMILY.fullmatch(family) and _NAME.fullmatch(name)):
        return None
    entry = _content_root().joinpath(lang, family, f"{name}.md")
    if not entry.is_file():
        return None
    content = parse_content(entry.read_text(encoding="utf-8"), f"{lang}/{family}/{name}.md")
    return content if content.key == key else None  # the header's key is authoritative, as when read whole


def _read_language(lang: str) -> dict[str, ContentFile]:
    found: dict[str, ContentFile] = {}
    root = _content_root().joinpath(lang)
    for family in sorted(root.iterdir(), key=lambda t: t.name):
        if not family.is_dir():
            continue  # glossary.md sits beside the families
        for entry in sorted(family.iterdir(), key=lambda t: t.name):
            if entry.name.endswith(".md"):
                relative = f"{lang}/{family.name}/{entry.name}"
                content = parse_content(entry.read_text(encoding="utf-8"), relative)
                found[content.key] = content
    return found


def read_text(relative: str) -> str:
    return _content_root().joinpath(*relative.split("/")).read_text(encoding="utf-8")
