"""The glossary: one `content/<lang>/glossary.md` per language.

Format (one entry per `## ` heading):

    ## Kachel (Tile)
    Definition in a few sentences.
    Siehe auch: Layout, Auffüllung (Padding)

A German headword carries the English term in parentheses. That English term is
the entry's `key`, the same in both languages: explanation headers (`terms:`)
name entries by key, and a search finds an entry by either name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from explorer.errors import ParseError, TensorwegError
from explorer.texts.content_files import LANGUAGES, read_text

_SEE_ALSO = ("see also:", "siehe auch:")


_ENGLISH_BESIDE = re.compile(r"^(?P<local>.+?)\s*\((?P<english>[^()]+)\)$")


@dataclass(frozen=True)
class GlossaryEntry:
    """term: the headword as shown ("Kachel (Tile)"); see_also: headwords as written."""

    term: str
    definition: str
    see_also: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The English term, shared by both languages: "Kachel (Tile)" -> "Tile", "HLO" -> "HLO"."""
        match = _ENGLISH_BESIDE.match(self.term)
        return match.group("english").strip() if match else self.term

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the entry answers to, lower-case: headword, local word, English term."""
        match = _ENGLISH_BESIDE.match(self.term)
        local = (match.group("local").strip(),) if match else ()
        return tuple(dict.fromkeys(n.lower() for n in (self.term, *local, self.key)))


def parse_glossary(text: str, source: str = "glossary.md") -> list[GlossaryEntry]:
    entries: list[GlossaryEntry] = []
    term, lines, see_also = "", [], ()

    def close() -> None:
        if term:
            definition = " ".join(line.strip() for line in lines if line.strip())
            if not definition:
                raise ParseError(f"term '{term}' has no definition", 0, 0, source)
            entries.append(GlossaryEntry(term, definition, see_also))

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("## "):
            close()
            term, lines, see_also = line[3:].strip(), [], ()
        elif line.lower().startswith(_SEE_ALSO):
            see_also = tuple(t.strip() for t in line.split(":", 1)[1].split(",") if t.strip())
        elif line.startswith("#") or not line.strip():
            continue  # the file's title and blank lines
        elif not term:
            raise ParseError("text before the first '## term' heading", number, 1, source)
        else:
            lines.append(line)
    close()
    return entries


@cache
def _glossary(lang: str) -> tuple[GlossaryEntry, ...]:
    if lang not in LANGUAGES:
        raise TensorwegError(f"unknown language '{lang}' (try: {', '.join(LANGUAGES)})")
    path = f"{lang}/glossary.md"
    return tuple(parse_glossary(read_text(path), path))


def glossary(lang: str) -> list[GlossaryEntry]:
    """All entries of a language, sorted by term (case-insensitive)."""
    return sorted(_glossary(lang), key=lambda e: e.term.lower())


def glossary_entry(term: str, lang: str) -> GlossaryEntry | None:
    """The entry named `term` by headword, local word or English key ("Kachel", "Tile")."""
    for entry in _glossary(lang):
        if term.lower() in entry.names:
            return entry
    return None


def search_glossary(query: str, lang: str) -> list[GlossaryEntry]:
    """Entries whose term matches first (exact, then prefix, then part), then those that
    mention the query in their definition or name it under "see also"."""
    needle = query.strip().lower()
    if not needle:
        return glossary(lang)

    def rank(entry: GlossaryEntry) -> int:
        names = entry.names
        if needle in names:
            return 0
        if any(name.startswith(needle) for name in names):
            return 1
        if any(needle in name for name in names):
            return 2
        mentioned = needle in entry.definition.lower() or any(
            needle == t.lower() or t.lower().startswith(needle + " (") for t in entry.see_also)
        return 3 if mentioned else 4

    ranked = [(rank(e), e.term.lower(), e) for e in _glossary(lang)]
    return [e for r, _, e in sorted(ranked, key=lambda t: t[:2]) if r < 4]
