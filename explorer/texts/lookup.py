"""Which explanation to show for a selected item, in which language, with its real figures.

`explain` walks from the most specific text to the most general one:
`hlo:dot@tpu` (this target family) -> `hlo:dot` -> `level:hlo@tpu` -> `level:hlo`,
so every item gets at least its level's text, and `fallback` tells the UI how
close the match was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from explorer.errors import TensorwegError
from explorer.labels.numbers import number
from explorer.levels import LEVELS
from explorer.targets import DEFAULT_TARGETS, TARGETS
from explorer.texts.chip_figures import chip_figures
from explorer.texts.content_files import LANGUAGES, ContentFile, content_file, load_language
from explorer.texts.language import default_language as default_language  # one place; the CLI asks it alone
from explorer.texts.xla_opcodes import custom_call_names

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_TPU_MEMORY_SPACES = {1: "vmem", 2: "smem"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Explanation:
    """A text ready to show. fallback: "specific" (text for this target), "general"
    (text for the item kind), "level" (only the level's text matched)."""

    key: str
    title: str
    body: str
    source: str
    terms: tuple[str, ...]
    fallback: str


def target_family(target: str) -> str:
    """`gpu:h100` -> `gpu`; texts are specialised per family, not per chip."""
    return target.partition(":")[0]


# The target families a topic may name after `@` (`hlo:dot@tpu`).
_FAMILIES = frozenset(map(target_family, TARGETS))


def memory_space_key(target: str, memory_space: int) -> str:
    """The explanation key for a layout's `S(n)` memory space on a target.

    The TPU names come from XLA's own TPU memory report (`Memory Space: vmem
    (color=1)`, `smem (color=2)`); other numbers get a text that says only what
    the capture shows.
    """
    if memory_space == 0:
        return "memory:device"
    if target_family(target) == "tpu" and memory_space in _TPU_MEMORY_SPACES:
        return f"memory:{_TPU_MEMORY_SPACES[memory_space]}"
    return f"memory:s{memory_space}"


def canonical_key(key: str) -> str:
    """Accept `memory:tpu:vmem` as a spelling of `memory:vmem@tpu`."""
    family, _, rest = key.partition(":")
    prefix, colon, name = rest.partition(":")
    if family == "memory" and colon and prefix in ("cpu", "gpu", "tpu") and "@" not in name:
        return f"memory:{name}@{prefix}"
    return key


def explain(level: str, kind_keys: list[str], target: str, lang: str,
            figures: dict[str, object] | None = None) -> Explanation:
    """The best text for an item of `level` described by `kind_keys` (most specific first).

    The selected chip's figures (`{hbm_capacity}`, `{mxu_count}`, ... from
    `chip_figures`) fill the text's placeholders unless `figures` gives its own.
    Raises TensorwegError for an unknown level or language.
    """
    if level not in LEVELS:
        raise TensorwegError(f"unknown level '{level}' (try: {', '.join(LEVELS)})")
    _check_language(lang)
    texts = partial(content_file, lang)  # the few texts tried, each file read alone until all are
    figures = {**chip_figures(target, lang), **(figures or {})}
    family = target_family(target) if target else ""
    for key in kind_keys:
        key = canonical_key(key)
        found = _find(texts, key, family)
        if found:
            content, fallback = found
            return _render(content, fallback, figures, lang)
    content, fallback = _find(texts, f"level:{level}", family) or (None, "")
    if content is None:  # a missing level text is a packaging bug, not user error
        raise TensorwegError(f"no text for level '{level}' in language '{lang}'")
    return _render(content, "level", figures, lang)


def explain_topic(topic: str, lang: str, target: str = "") -> Explanation:
    """The text for a key as typed on the command line, e.g. `hlo:dot`, `hlo:dot@tpu`, or
    `hlo:dot@tpu:v6e` (the family's text with that chip's figures).

    A family text without a chip (`hlo:dot@tpu`) quotes the family's default target
    (`tpu:v5e`, `gpu:h100`), whose name the text itself gives.
    A family the topic has no text of its own for falls back to the general text, as a selected
    item's does (`memory:vmem@tpu` is `memory:vmem`, quoting the TPU's figures).
    """
    texts = _texts(lang)
    key, chip = split_topic(topic.strip())
    base, _, family = key.partition("@")
    content = texts.get(key) or _named_custom_call(texts, key)
    if content is None and family in _FAMILIES:
        content = texts.get(base)
    if content is None:
        raise TensorwegError(f"unknown topic '{topic}' (close: {', '.join(similar_topics(topic, lang))}; "
                             "`tensorweg explain --list` lists every topic)")
    chip = chip or target or next((t for t in DEFAULT_TARGETS if target_family(t) == family), "")
    return _render(content, "specific" if content.key == key and family else "general", chip_figures(chip, lang), lang)


def _named_custom_call(texts: dict[str, ContentFile], key: str) -> ContentFile | None:
    """`custom-call:cu_threefry2x32_ffi`, the name a listing shows, finds the text the explanation
    pane shows for that call (its version's or family's, `xla_opcodes.custom_call_names`)."""
    family, _, name = key.partition(":")
    if family != "custom-call" or "@" in name:
        return None
    return next((texts[f"custom-call:{n}"] for n in custom_call_names(name) if f"custom-call:{n}" in texts), None)


def split_topic(topic: str) -> tuple[str, str]:
    """`hlo:dot@tpu:v6e` -> (`hlo:dot@tpu`, `tpu:v6e`); other topics keep no chip."""
    key = canonical_key(topic)
    base, at, chip = key.partition("@")
    if at and chip in TARGETS:
        return f"{base}@{target_family(chip)}", chip
    return key, ""


def topics(lang: str) -> list[str]:
    return sorted(_texts(lang))


def topic_family(text: str, lang: str) -> str | None:
    """The family a topic prefix names, None when `text` is not one: what `tensorweg explain memory:`
    lists. `memory:` is one (a family there is none of is refused by listed_topics, naming those
    there are); a bare word only when it is a family (`memory`, not `vmem`: that is a topic misspelt)."""
    text = text.strip()
    family = text.removesuffix(":")
    if not family or ":" in family or "@" in family:
        return None
    return family if text.endswith(":") or any(key.startswith(f"{family}:") for key in _texts(lang)) else None


def listed_topics(lang: str, family: str | None = None) -> list[tuple[str, str]]:
    """(key, title) of every topic, or of one family's (`memory`), in key order; TensorwegError for a
    family with no topic (naming the families there are)."""
    texts = _texts(lang)
    keys = [key for key in sorted(texts) if family is None or key.partition(":")[0] == family]
    if not keys:
        families = sorted({key.partition(":")[0] for key in texts})
        raise TensorwegError(f"no topic starts with '{family}:' (families: {', '.join(families)})")
    return [(key, texts[key].title) for key in keys]


def has_topic(key: str, lang: str = "en") -> bool:
    return canonical_key(key) in _texts(lang)


def similar_topics(topic: str, lang: str, limit: int = 5) -> list[str]:
    """Close spellings first, then keys containing the name or sharing its family; else level keys."""
    import difflib  # noqa: PLC0415 (a mistyped topic's: off the explanation pane's first text)

    family, colon, name = topic.lower().partition(":")
    name = name if colon else family  # a bare word (`vmem`) is a topic's name more likely than a family
    keys = topics(lang)
    hits = difflib.get_close_matches(topic, keys, n=limit, cutoff=0.6)
    hits += [k for k in keys if name and name.split("@")[0] in k.lower() and k not in hits]
    hits += [k for k in keys if k.lower().startswith(family + ":") and k not in hits]
    if not hits:
        hits = [f"level:{level}" for level in LEVELS]
    return hits[:limit]


def _check_language(lang: str) -> None:
    if lang not in LANGUAGES:
        raise TensorwegError(f"unknown language '{lang}' (try: {', '.join(LANGUAGES)})")


def _texts(lang: str) -> dict[str, ContentFile]:
    _check_language(lang)
    return load_language(lang)


def _find(texts: Callable[[str], ContentFile | None], key: str, family: str) -> tuple[ContentFile, str] | None:
    """The text for `key` most specific first: as written (`hlo:dot@tpu`), for the target's family, general."""
    base, _, explicit = key.partition("@")
    if explicit and (found := texts(key)) is not None:
        return found, "specific"
    if family and (found := texts(f"{base}@{family}")) is not None:
        return found, "specific"
    if (found := texts(base)) is not None:
        return found, "general"
    return None


def _render(content: ContentFile, fallback: str, figures: dict[str, object] | None,
            lang: str) -> Explanation:
    body = fill_placeholders(content.body, figures or {}, lang)
    return Explanation(content.key, content.title, body, content.source, content.terms, fallback)


def fill_placeholders(body: str, figures: Mapping[str, object], lang: str) -> str:
    """Put real figures into `{name}` placeholders; drop each sentence whose figure is missing.

    Dropping the whole sentence (not just the placeholder) avoids texts like
    "this buffer holds  bytes"; a sentence ends at `.`, `!` or `?` plus space.
    """
    def sentence_ok(sentence: str) -> bool:
        return all(figures.get(name) is not None for name in PLACEHOLDER.findall(sentence))

    lines = []
    for line in body.split("\n"):
        if PLACEHOLDER.search(line):
            kept = [s for s in _SENTENCE_END.split(line) if sentence_ok(s)]
            if not kept:
                continue
            line = " ".join(kept)
        lines.append(PLACEHOLDER.sub(lambda m: format_figure(figures[m.group(1)], lang), line))
    return "\n".join(lines).strip()


def format_figure(value: object, lang: str) -> str:
    """Numbers with the language's separators (explorer.labels.numbers); tuples as `64 × 1 × 1`."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return number(value, ",", lang)
    if isinstance(value, float):
        return number(value, ",g", lang)
    if isinstance(value, (tuple, list)):
        return " × ".join(format_figure(v, lang) for v in value)
    return str(value)
