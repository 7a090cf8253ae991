"""Parsing the plain-text tour format (documented in docs/tours.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from explorer.course.questions import EXTREMES, ITEM_FIGURES, QUESTION_KINDS, TARGET_FACTS, Question
from explorer.course.selectors import Condition, Selection
from explorer.errors import ParseError, TensorwegError
from explorer.texts.lookup import LEVELS, has_topic

HEADER_FIELDS = ("title", "model", "lang", "outcome", "description", "capture")
# `# capture:` names the capture options a lesson was written for (a training step, a mesh);
# only these, so a tour file can never point the capture at a file or at unsafe code.
CAPTURE_OPTIONS = ("--mode", "--optimizer", "--remat", "--mesh", "--shard", "--targets", "--batch")
REQUIRED_HEADERS = ("title", "model", "lang")
STEP_OPTIONS = ("level", "target", "select")
ASK_OPTIONS = (*QUESTION_KINDS, "tolerance")
LINE_KINDS = ("step", "text", "explain", "ask", "hint")
SELECTOR_KINDS = ("layer", "kind")
# The targets of docs/architecture.md; a tour naming another one is a typo.
KNOWN_TARGETS = ("cpu", "gpu:h100", "gpu:a100", "gpu:local", "tpu:v5e", "tpu:v4", "tpu:v5p", "tpu:v6e", "tvm:cpu")
EXPLAIN_SELECTED = "selected"

_HEADER = re.compile(r"#\s*([A-Za-z]+)\s*:\s*(.*)$")
# A quoted value runs to the next quote; an unquoted one may not start with a quote
# (so `select="a b` is an unterminated quote, not the value `"a`).
_OPTION = re.compile(r'([A-Za-z]+)=("([^"]*)"|([^"\s]\S*))')


@dataclass(frozen=True)
class TourStep:
    """One step, with level and target carried over from earlier steps.

    explain: an explanation key, "selected" (the selected item's explanation) or "".
    question: what the step asks the learner (`ask:` and `hint:`), checked by
        explorer.course.questions; None for a step that only shows.
    """

    level: str
    target: str
    selection: Selection | None
    text: str
    explain: str
    line: int
    question: Question | None = None


@dataclass(frozen=True)
class Tour:
    title: str
    model: str
    lang: str
    steps: tuple[TourStep, ...]
    source: str = ""
    outcome: str = ""
    description: str = ""
    capture: str = ""  # e.g. `--mode train --targets tpu:v5e` (explorer.course.tours.capture_options)


def parse_selection(text: str, line: int = 0, column: int = 0, source: str = "") -> Selection:
    """`conv2d`, `layer:conv2d`, `kind:dot`, or several joined by commas: `layer:dense,kind:fusion`."""
    conditions = []
    for part in text.split(","):
        kind, colon, value = part.partition(":")
        if not colon:
            kind, value = "name", part
        elif kind not in SELECTOR_KINDS:
            kind, value = "name", part  # HLO names never contain ':', but keep them verbatim
        if not value:
            raise ParseError(f"empty selector part in '{text}'", line, column, source)
        conditions.append(Condition(kind, value))
    return Selection(tuple(conditions), text)


def read_tour_file(path: Path, source: str = "") -> str:
    """The text of a tour file; a binary or non-UTF-8 file raises ParseError at its first bad byte."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TensorwegError(f"{source or path.name}: cannot read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data[:exc.start].decode("utf-8", errors="replace"))
        raise ParseError("not a UTF-8 text file", line, column, source or path.name) from None
    if "\0" in text:
        line, column = _position(text[:text.index("\0")])
        raise ParseError("not a text file (contains a NUL byte)", line, column, source or path.name)
    return text


def _position(before: str) -> tuple[int, int]:
    """1-based line and column just after `before`."""
    lines = before.split("\n")
    return len(lines), len(lines[-1]) + 1


def parse_tour(text: str, source: str = "") -> Tour:
    """Parse a tour file; raises ParseError naming the line and column of the first problem."""
    headers: dict[str, str] = {}
    header_at: dict[str, tuple[int, int]] = {}  # header -> (line, column) of its value
    steps: list[TourStep] = []
    current: TourStep | None = None
    level, target = "", "cpu"
    ask_line = 0
    lines = text.splitlines()

    def finish(step: TourStep | None) -> None:
        if step is None:
            return
        if not step.text and not step.explain:
            raise ParseError("step has neither 'text:' nor 'explain:'", step.line, 1, source)
        if step.question is not None and not step.question.hint:
            raise ParseError("a step with 'ask:' needs a 'hint:' (what a wrong answer should look at)",
                             ask_line, 1, source)
        steps.append(step)

    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            match = _HEADER.match(stripped)
            if current is None and match and match.group(1) in HEADER_FIELDS:
                headers[match.group(1)] = match.group(2).strip()
                header_at[match.group(1)] = (number, len(raw) - len(match.group(2)) + 1)
            elif current is None and match:
                raise ParseError(f"unknown header '{match.group(1)}' (known: {', '.join(HEADER_FIELDS)})",
                                 number, raw.index(match.group(1)) + 1, source)
            continue  # a comment
        if line[0] in " \t":
            if current is None or not current.text:
                raise ParseError("indented continuation line outside a 'text:'", number, 1, source)
            if current.question is not None and current.question.hint and _last_kind(lines, number) == "hint":
                current = replace(current, question=replace(current.question,
                                                            hint=current.question.hint + " " + stripped))
            else:
                current = replace(current, text=current.text + " " + stripped)
            continue
        word, colon, rest = line.partition(":")
        if not colon:
            raise ParseError("expected 'step:', 'text:' or 'explain:'", number, 1, source)
        rest_column = len(word) + 2 + (len(rest) - len(rest.lstrip()))
        rest = rest.strip()
        if word == "step":
            finish(current)
            level, target, selection = _parse_options(rest, level, target, number, rest_column, source)
            current = TourStep(level, target, selection, "", "", number)
        elif current is None:
            raise ParseError(f"'{word}:' before the first 'step:'", number, 1, source)
        elif word == "text":
            if not rest:
                raise ParseError("empty 'text:'", number, rest_column, source)
            current = replace(current, text=f"{current.text}\n\n{rest}" if current.text else rest)
        elif word == "explain":
            if current.explain:
                raise ParseError("a step has at most one 'explain:'", number, 1, source)
            if rest != EXPLAIN_SELECTED and not has_topic(rest):
                raise ParseError(f"unknown explanation key '{rest}'", number, rest_column, source)
            current = replace(current, explain=rest)
        elif word == "ask":
            if current.question is not None:
                raise ParseError("a step has at most one 'ask:'", number, 1, source)
            current = replace(current, question=_parse_question(rest, number, rest_column, source))
            ask_line = number
        elif word == "hint":
            if current.question is None:
                raise ParseError("'hint:' before the step's 'ask:'", number, 1, source)
            if current.question.hint:
                raise ParseError("a question has at most one 'hint:'", number, 1, source)
            if not rest:
                raise ParseError("empty 'hint:'", number, rest_column, source)
            current = replace(current, question=replace(current.question, hint=rest))
        else:
            raise ParseError(f"unknown line kind '{word}:' (known: {', '.join(LINE_KINDS)})", number, 1, source)
    finish(current)
    for name in REQUIRED_HEADERS:
        if not headers.get(name):
            raise ParseError(f"missing header '# {name}: ...'", 1, 1, source)
    if headers["lang"] not in ("de", "en"):
        raise ParseError(f"lang must be 'de' or 'en', not '{headers['lang']}'", *header_at["lang"], source)
    if not steps:
        raise ParseError("a tour needs at least one 'step:'", len(lines) or 1, 1, source)
    if "capture" in headers:
        _check_capture(headers["capture"], *header_at["capture"], source)
    return Tour(headers["title"], headers["model"], headers["lang"], tuple(steps), source,
                headers.get("outcome", ""), headers.get("description", ""), headers.get("capture", ""))


def _check_capture(text: str, line: int, column: int, source: str) -> None:
    """Only the options of CAPTURE_OPTIONS, each written `--name value` (`--remat` alone)."""
    words = text.split()
    at = 0
    while at < len(words):
        word = words[at]
        if word not in CAPTURE_OPTIONS:
            raise ParseError(f"unknown capture option '{word}' (known: {', '.join(CAPTURE_OPTIONS)})",
                             line, column + text.index(word), source)
        at += 1 if word == "--remat" else 2
        if at > len(words):
            raise ParseError(f"capture option '{word}' needs a value", line, column + text.index(word), source)


def _parse_options(text: str, level: str, target: str, line: int, column: int,
                   source: str) -> tuple[str, str, Selection | None]:
    selection = None
    position = 0
    while position < len(text):
        if text[position] == " ":
            position += 1
            continue
        match = _OPTION.match(text, position)
        where = column + position
        if not match:
            quote = text.find('"', position)
            if quote >= 0 and text.count('"', quote) % 2:
                raise ParseError("unterminated quote", line, column + quote, source)
            raise ParseError("expected 'name=value' (quote values with spaces)", line, where, source)
        name, value = match.group(1), match.group(3) if match.group(3) is not None else match.group(4)
        value_column = where + len(name) + 1
        if name == "level":
            if value not in LEVELS:
                raise ParseError(f"unknown level '{value}' (known: {', '.join(LEVELS)})", line, value_column, source)
            level = value
        elif name == "target":
            if value not in KNOWN_TARGETS:
                raise ParseError(f"unknown target '{value}' (known: {', '.join(KNOWN_TARGETS)})",
                                 line, value_column, source)
            target = value
        elif name == "select":
            selection = parse_selection(value, line, value_column, source)
        else:
            raise ParseError(f"unknown step option '{name}' (known: {', '.join(STEP_OPTIONS)})", line, where, source)
        position = match.end()
    if not level:
        raise ParseError("the first step must set 'level='", line, column, source)
    return level, target, selection


def _last_kind(lines: list[str], number: int) -> str:
    """The kind (`text`, `hint`, ...) of the unindented line that an indented line `number` continues."""
    for raw in reversed(lines[: number - 1]):
        if raw.strip() and not raw.strip().startswith("#") and raw[0] not in " \t":
            return raw.partition(":")[0]
    return ""


def _parse_question(text: str, line: int, column: int, source: str) -> Question:
    """`select=SELECTOR`, `target=most:FACT`, `number=FACT [tolerance=N|N%]`."""
    options: dict[str, tuple[str, int]] = {}
    position = 0
    while position < len(text):
        if text[position] == " ":
            position += 1
            continue
        match = _OPTION.match(text, position)
        where = column + position
        if not match:
            raise ParseError("expected 'name=value' after 'ask:', e.g. select=layer:dense,kind:fusion",
                             line, where, source)
        name, value = match.group(1), match.group(3) if match.group(3) is not None else match.group(4)
        if name not in ASK_OPTIONS:
            raise ParseError(f"unknown question '{name}' (known: {', '.join(ASK_OPTIONS)})", line, where, source)
        if name in options:
            raise ParseError(f"'{name}=' given twice", line, where, source)
        options[name] = (value, where + len(name) + 1)
        position = match.end()
    kinds = [k for k in QUESTION_KINDS if k in options]
    if len(kinds) != 1:
        raise ParseError(f"'ask:' needs exactly one of {', '.join(k + '=' for k in QUESTION_KINDS)}",
                         line, column, source)
    kind = kinds[0]
    value, value_column = options[kind]
    if "tolerance" in options and kind != "number":
        raise ParseError("'tolerance=' belongs to a number= question", line, options["tolerance"][1], source)
    if kind == "select":
        return Question("select", selection=parse_selection(value, line, value_column, source))
    if kind == "target":
        extreme, colon, fact = value.partition(":")
        if not colon or extreme not in EXTREMES:
            raise ParseError(f"expected target=most:FACT or target=least:FACT, not '{value}'",
                             line, value_column, source)
        if fact not in TARGET_FACTS:
            raise ParseError(f"unknown fact '{fact}' (known: {', '.join(TARGET_FACTS)})",
                             line, value_column + len(extreme) + 1, source)
        return Question("target", fact=fact, extreme=extreme)
    if value not in TARGET_FACTS + ITEM_FIGURES:
        raise ParseError(f"unknown fact '{value}' (known: {', '.join(TARGET_FACTS + ITEM_FIGURES)})",
                         line, value_column, source)
    tolerance, relative = 0.0, False
    if "tolerance" in options:
        raw, tolerance_column = options["tolerance"]
        relative = raw.endswith("%")
        try:
            tolerance = float(raw[:-1] if relative else raw)
        except ValueError:
            tolerance = -1.0
        if tolerance < 0 or tolerance != tolerance:  # negative, or NaN
            raise ParseError(f"bad tolerance '{raw}': a number or a percentage, e.g. 5 or 10%",
                             line, tolerance_column, source)
        tolerance = tolerance / 100 if relative else tolerance
    return Question("number", fact=value, tolerance=tolerance, relative=relative)
