"""The glossary: one `content/<lang>/glossary.md` per language.

Format (one entry per `## ` heading; term names are the same in both
languages, because explanation headers refer to them by name):

    ## HLO
    Definition in a few sentences.
    See also: XLA, Fusion
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from explorer.course.content_files import LANGUAGES, read_text
from explorer.errors import ParseError, TensorwegError

_SEE_ALSO = ("see also:", "siehe auch:")


@dataclass(frozen=True)
class GlossaryEntry:
    term: str
    definition: str
    see_also: tuple[str, ...] = ()


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


@lru_cache(maxsize=None)
def _glossary(lang: str) -> tuple[GlossaryEntry, ...]:
    if lang not in LANGUAGES:
        raise TensorwegError(f"unknown language '{lang}' (try: {', '.join(LANGUAGES)})")
    path = f"{lang}/glossary.md"
    return tuple(parse_glossary(read_text(path), path))


def glossary(lang: str) -> list[GlossaryEntry]:
    """All entries of a language, sorted by term (case-insensitive)."""
    return sorted(_glossary(lang), key=lambda e: e.term.lower())


def glossary_entry(term: str, lang: str) -> GlossaryEntry | None:
    for entry in _glossary(lang):
        if entry.term.lower() == term.lower():
            return entry
    return None


def search_glossary(query: str, lang: str) -> list[GlossaryEntry]:
    """Entries whose term matches first (exact, then prefix, then part), then those that
    mention the query in their definition or name it under "see also"."""
    needle = query.strip().lower()
    if not needle:
        return glossary(lang)

    def rank(entry: GlossaryEntry) -> int:
        term = entry.term.lower()
        if term == needle:
            return 0
        if term.startswith(needle):
            return 1
        if needle in term:
            return 2
        mentioned = needle in entry.definition.lower() or any(needle == t.lower() for t in entry.see_also)
        return 3 if mentioned else 4

    ranked = [(rank(e), e.term.lower(), e) for e in _glossary(lang)]
    return [e for r, _, e in sorted(ranked, key=lambda t: t[:2]) if r < 4]
