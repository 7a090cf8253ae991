"""The `tensorweg` command lines README.md and docs/*.md show, found and made runnable by one rule
(tests/test_docs_commands.py runs them).

Found: every line of a fenced code block, and every inline code span (`...`) of the prose, that
starts with `tensorweg` (in a shell line, each `&&` part that runs `tensorweg`, as
`.venv/bin/tensorweg`). A code block line's `# comment` is not part of the command.

Each shown line is one of:

- **a command line**: no placeholder; run as shown.
- **a template**: it holds placeholders, written in capitals (`MODEL`, `BUNDLE`, `NAME`, `T`, `N`,
  `KEY=A,B`, `MODEL...`, `NAME_OR_FILE,...`, or after a topic family: `custom-call:NAME`), optional
  parts in `[...]`, alternatives written `a|b` (or `[--target T | --grappler]` for alternatives of
  several words), and `...` for a value or the rest of a command line. A template is expanded into
  the command lines it shows, each of which is then run: variant 0 takes every optional part and the
  first of each choice; variant k (k >= 1, up to the most alternatives any choice has) leaves out
  the optional parts that hold no choice and takes the k-th alternative of each choice (its last,
  where it has fewer), so every alternative is run once. `F.dot|svg|png` is `F.dot`, `F.svg`,
  `F.png`. A placeholder becomes the value `_BY_OPTION`, `_BY_PREFIX` or `_BY_NAME` gives it: by the
  option before it (`--layer NAME` is a layer, `--follow NAME` an instruction), else by its name;
  MODEL is the recorded sample `mnist_cnn` unless the line names another model's things. A comment
  `# e.g. A, B, C` gives the values of the template's first placeholder, one command line each
  (`explain TOPIC # e.g. hlo:dot, ...`).
- **a reference**: `tensorweg COMMAND` followed only by option names and placeholders (`tensorweg
  pack --tours`, `tensorweg inspect --select NAME`): prose naming a command or its options. It is
  checked that the command exists and lists each option in its `--help`; and where it is also a
  command line the parser accepts as it stands (`tensorweg serve`, `tensorweg samples`), it is run too.

The install and test commands of the README's shell lines (`python3 -m venv`, `pip install`, `pytest`)
are not `tensorweg` commands and are not run here: they need the network, or are this test suite.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
_FENCE = re.compile(r"^```")
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*")
_COMMENT = re.compile(r"\s{2,}#\s?(.*)$|\s+#\s(.*)$")
_EXAMPLES = re.compile(r"\be\.g\.\s+(.*)")

# What a placeholder stands for, by the option before it, then by its name. The files named are made
# by the test in the folder each command runs in (tests/test_docs_commands.py `workplace`).
_BY_OPTION = {
    "--layer": "conv2d", "--select": "conv2d", "--follow": "convolution.1", "--input-shape": "image",
    "--token": "a-token-of-the-docs-0", "--batch": "1", "--step": "2", "--frame": "2", "--depth": "1",
    "--max-captures": "1", "--targets": "cpu,gpu:h100,tpu:v5e",
    "--tours": "tensor_to_registers,tensor_bis_register", "--layout-map": "layout_map.toml", "--level": "optimized-hlo",
    "--search": "fusion", "-o": "out",
}
_BY_NAME = {
    "MODEL": "mnist_cnn", "SAMPLE": "mnist_cnn", "BUNDLE": "bundle", "PACK": "course.twpack",
    "BUNDLE_A": "batch1", "BUNDLE_B": "batch64", "TOUR": "tensor_to_registers", "NAME": "tensor_to_registers",
    "NAME_OR_FILE": "tensor_to_registers", "FILE": "lesson.tour", "DIR": "out", "T": "cpu", "LEVEL": "optimized-hlo",
    "TOPIC": "hlo:dot", "KEY": "hlo:dot", "FAMILY": "memory", "WORD": "fusion", "CMD": "samples", "L": "conv2d",
    "N": "2", "KEY=A,B": "batch=1,64",
}
# A placeholder after a topic family inside a word (`explain custom-call:NAME`), and its value by the
# family: the name docs/course-sources.md gives as the example.
_TOPIC_PLACEHOLDER = re.compile(r"([a-z][a-z-]*:)([A-Z][A-Z0-9_]*)")
_BY_PREFIX = {"custom-call:": "cu_threefry2x32_ffi"}
# A line that names another sample than the default MODEL selects that sample's layers.
_LAYER_OF_MODEL = {"resnet50": "conv1_conv", "mlp": "dense"}
# A layout map splits the weights of the model it was written for (docs/layout-map.md's: mlp's `dense`).
_MODEL_OF_OPTION = {"--layout-map": "mlp"}


@dataclass(frozen=True)
class Shown:
    """One `tensorweg` line as a document shows it."""

    document: str  # README.md, docs/tours.md
    line: int
    text: str  # from `tensorweg` on, without a code block's comment
    comment: str = ""

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"


def shown_commands(path: Path) -> list[Shown]:
    """Every `tensorweg` line of the document, in order (AssertionError on an unclosed code block)."""
    name = path.relative_to(ROOT).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Shown] = []
    in_block, paragraph, start = False, [], 0
    for number, line in enumerate([*lines, ""], start=1):
        if _FENCE.match(line):
            found += _spans(name, start, paragraph)
            paragraph, in_block = [], not in_block
            continue
        if in_block:
            found += _block_line(name, number, line)
        elif line.strip():
            start = start if paragraph else number
            paragraph.append(line)
        else:
            found += _spans(name, start, paragraph)
            paragraph = []
    assert not in_block, f"{name}: a code block is never closed (the rest of the page renders as code)"
    return found


def _block_line(document: str, number: int, line: str) -> list[Shown]:
    comment = ""
    match = _COMMENT.search(line)
    if match:
        comment, line = (match.group(1) or match.group(2) or "").strip(), line[:match.start()]
    found = []
    for part in line.split("&&"):
        words = part.split()
        if words and words[0].rsplit("/", 1)[-1] == "tensorweg":
            found.append(Shown(document, number, " ".join(["tensorweg", *words[1:]]), comment))
    return found


def _spans(document: str, start: int, paragraph: list[str]) -> list[Shown]:
    """The paragraph's inline code spans that are `tensorweg` lines (a span may wrap onto the next line)."""
    found = []
    text = "\n".join(paragraph)
    for match in re.finditer(r"`([^`]+)`", text):
        span = " ".join(match.group(1).split())
        if span == "tensorweg" or span.startswith("tensorweg "):
            found.append(Shown(document, start + text.count("\n", 0, match.start()), span))
    return found


# --- templates ---------------------------------------------------------------------------------


def is_template(text: str) -> bool:
    return any(_is_placeholder(word) or _TOPIC_PLACEHOLDER.fullmatch(word) or "|" in word or word == "..."
               or word.endswith(",...") for word in _tokens(text)) or "[" in text


def _is_placeholder(word: str) -> bool:
    """`MODEL`, `NAME=1x28x28x1`, `MODEL...`, `NAME_OR_FILE,...` (not `F.svg`: a file name as it is)."""
    return bool(_PLACEHOLDER.fullmatch(word.removesuffix(",...").removesuffix("...").split("=")[0]))


def _tokens(text: str) -> list[str]:
    """Words, with `[`, `]` and a standalone `|` as tokens of their own."""
    return [token for token in re.split(r"\s+|(\[|\])", text) if token]


def expand(shown: Shown) -> list[list[str]]:
    """The command lines (argv after `tensorweg`) a shown line stands for: itself, or a template's variants."""
    if not is_template(shown.text):
        return [shlex.split(shown.text)[1:]]
    tree, rest = _parse(_tokens(shown.text)[1:], 0)
    assert rest == len(_tokens(shown.text)) - 1, f"{shown.where}: unbalanced [ ] in {shown.text!r}"
    variants = [_fill(_words(tree, k)) for k in range(max(_most_alternatives(tree), 1))]
    examples = _EXAMPLES.search(shown.comment)
    if examples:  # `# e.g. A, B`: the values of the first placeholder, in every variant
        values = [value.strip().rstrip(".") for value in examples.group(1).split(",") if value.strip()]
        first = next(i for i, word in enumerate(_words(tree, 0)) if _is_placeholder(word))
        variants = [[*argv[:first], value, *argv[first + 1:]] for argv in variants for value in values]
    unique: list[list[str]] = []
    for argv in variants:
        if argv not in unique:
            unique.append(argv)
    return unique


# A template as a tree: a sequence of words, ("opt", sequence) and ("alt", [sequence, ...]).
def _parse(tokens: list[str], at: int) -> tuple[list, int]:
    alternatives: list[list] = [[]]
    while at < len(tokens):
        token = tokens[at]
        if token == "]":
            break
        if token == "[":
            inner, at = _parse(tokens, at + 1)
            alternatives[-1].append(("opt", inner))
        elif token == "|":
            alternatives.append([])
        else:
            alternatives[-1].append(token)
        at += 1
    return (alternatives[0] if len(alternatives) == 1 else [("alt", alternatives)]), at


def _word_choices(word: str) -> list[str]:
    """`layers|graph` -> both; `F.dot|svg|png` -> F.dot, F.svg, F.png; other words as they are."""
    if "|" not in word:
        return [word]
    first, *others = word.split("|")
    if "." in first and all("." not in other for other in others):
        stem = first.rsplit(".", 1)[0]
        return [first, *(f"{stem}.{other}" for other in others)]
    return [first, *others]


def _most_alternatives(tree: list) -> int:
    most = 0
    for item in tree:
        if isinstance(item, str):
            most = max(most, len(_word_choices(item)) if "|" in item else 0)
        elif item[0] == "opt":
            most = max(most, _most_alternatives(item[1]))
        else:
            most = max([most, len(item[1]), *(_most_alternatives(a) for a in item[1])])
    return most


def _words(tree: list, k: int) -> list[str]:
    words: list[str] = []
    for item in tree:
        if isinstance(item, str):
            choices = _word_choices(item)
            words.append(choices[min(k, len(choices) - 1)])
        elif item[0] == "opt":
            if k == 0 or _most_alternatives(item[1]):
                words += _words(item[1], k)
        else:
            words += _words(item[1][min(k, len(item[1]) - 1)], k)
    return words


def _fill(words: list[str]) -> list[str]:
    """Each placeholder replaced by its value (by the option before it, then by its name)."""
    model = next((_MODEL_OF_OPTION[w] for w in words if w in _MODEL_OF_OPTION), None)
    model = model or next((w for w in words if w in _LAYER_OF_MODEL), _BY_NAME["MODEL"])
    filled: list[str] = []
    for at, word in enumerate(words):
        before = words[at - 1] if at else ""
        if word == "...":  # an option's value, or the rest of the command line: the model
            filled.append(_BY_OPTION.get(before, model))
        elif word in _BY_NAME and "=" in word:  # `KEY=A,B`: a key and its values
            filled.append(_BY_NAME[word])
        elif found := _TOPIC_PLACEHOLDER.fullmatch(word):  # `custom-call:NAME`: a name of that family
            assert found.group(1) in _BY_PREFIX, f"no value for {word}: add its family to _BY_PREFIX"
            filled.append(found.group(1) + _BY_PREFIX[found.group(1)])
        elif _is_placeholder(word):
            base, equals, value = word.removesuffix(",...").removesuffix("...").partition("=")
            filled.append(_value(base, before, model) + (f"={value}" if equals else ""))
        else:
            filled.append(word)
    return filled


def _value(placeholder: str, before: str, model: str) -> str:
    if placeholder in ("MODEL", "SAMPLE"):
        return model
    if before in ("--layer", "--select") or placeholder == "L":
        return _LAYER_OF_MODEL.get(model, _BY_OPTION["--layer"])
    if before in _BY_OPTION:
        return _BY_OPTION[before]
    assert placeholder in _BY_NAME, f"no value for the placeholder {placeholder} (after {before!r}): add it"
    return _BY_NAME[placeholder]
