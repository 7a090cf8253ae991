"""Parsing the plain-text tour format (documented in docs/tours.md)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.capture.option_table import GIVEN, CaptureOption, Kind
from explorer.course.questions import EXTREMES, ITEM_FIGURES, QUESTION_KINDS, TARGET_FACTS, Question
from explorer.course.selectors import Condition, Selection
from explorer.errors import ParseError, TensorwegError
from explorer.targets import TOUR_TARGETS
from explorer.texts.lookup import LEVELS, has_topic

HEADER_FIELDS = ("title", "model", "lang", "outcome", "description", "capture")
# `# capture:` names the capture options a lesson was written for (a training step, a mesh): the
# rows with `tour` (explorer.capture.option_table), by flag; never a file or --unsafe, so a tour
# file can never point the capture at a file or at unsafe code.
HEADER_OPTIONS: dict[str, CaptureOption] = {row.flag: row for row in GIVEN if row.tour and row.flag}
REQUIRED_HEADERS = ("title", "model", "lang")
STEP_OPTIONS = ("level", "target", "select")
ASK_OPTIONS = (*QUESTION_KINDS, "tolerance")
SELECTOR_KINDS = ("layer", "kind")
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
    # Editors on Windows save UTF-8 with a byte-order mark; it is not part of the first line. Stripped
    # here, so tour files, packs' tours and built-in tours all accept it.
    reading = _Reading(source, text.removeprefix("\ufeff").splitlines())
    for number, raw in enumerate(reading.lines, start=1):
        _read_line(reading, raw, number)
    reading.finish_step()
    return _finished_tour(reading)


@dataclass
class _Reading:
    """What parse_tour has read so far: the headers, the finished steps and the step being read.

    Level and target carry over from one `step:` to the next; `ask_line` is where the current
    step's `ask:` stands, so a missing `hint:` is reported there.
    """

    source: str
    lines: list[str]
    headers: dict[str, str] = field(default_factory=dict)
    header_at: dict[str, tuple[int, int]] = field(default_factory=dict)  # header -> (line, column) of its value
    steps: list[TourStep] = field(default_factory=list)
    current: TourStep | None = None
    level: str = ""
    target: str = "cpu"
    ask_line: int = 0

    def finish_step(self) -> None:
        """Check the step being read (if any) and add it to the finished ones."""
        step = self.current
        if step is None:
            return
        if not step.text and not step.explain:
            raise ParseError("step has neither 'text:' nor 'explain:'", step.line, 1, self.source)
        if step.question is not None and not step.question.hint:
            raise ParseError("a step with 'ask:' needs a 'hint:' (what a wrong answer should look at)",
                             self.ask_line, 1, self.source)
        self.steps.append(step)


def _read_line(reading: _Reading, raw: str, number: int) -> None:
    """One line of the file: blank, a header or comment, a continuation, or `kind: ...`."""
    line = raw.rstrip()
    stripped = line.strip()
    if not stripped:
        return
    if stripped.startswith("#"):
        _read_header(reading, raw, stripped, number)
    elif line[0] in " \t":
        _read_continuation(reading, stripped, number)
    else:
        _read_kind_line(reading, line, number)


def _read_header(reading: _Reading, raw: str, stripped: str, number: int) -> None:
    """`# name: value` before the first step is a header; anything else starting with '#' is a comment."""
    match = _HEADER.match(stripped)
    if reading.current is not None or not match:
        return
    name, value = match.group(1), match.group(2)
    if name not in HEADER_FIELDS:
        raise ParseError(f"unknown header '{name}' (known: {', '.join(HEADER_FIELDS)})",
                         number, raw.index(name) + 1, reading.source)
    reading.headers[name] = value.strip()
    reading.header_at[name] = (number, len(raw) - len(value) + 1)


def _read_continuation(reading: _Reading, stripped: str, number: int) -> None:
    """An indented line continues the `hint:` or `text:` line above it."""
    step = reading.current
    if step is None or not step.text:
        raise ParseError("indented continuation line outside a 'text:'", number, 1, reading.source)
    question = step.question
    if question is not None and question.hint and _last_kind(reading.lines, number) == "hint":
        reading.current = replace(step, question=replace(question, hint=question.hint + " " + stripped))
    else:
        reading.current = replace(step, text=step.text + " " + stripped)


def _read_kind_line(reading: _Reading, line: str, number: int) -> None:
    """`kind: rest`, handed to the reader of its kind (_LINE_READERS)."""
    word, colon, rest = line.partition(":")
    if not colon:
        raise ParseError("expected 'step:', 'text:' or 'explain:'", number, 1, reading.source)
    rest_column = len(word) + 2 + (len(rest) - len(rest.lstrip()))
    if word != "step" and reading.current is None:
        raise ParseError(f"'{word}:' before the first 'step:'", number, 1, reading.source)
    read = _LINE_READERS.get(word)
    if read is None:
        raise ParseError(f"unknown line kind '{word}:' (known: {', '.join(LINE_KINDS)})", number, 1, reading.source)
    read(reading, rest.strip(), number, rest_column)


def _read_step(reading: _Reading, rest: str, number: int, column: int) -> None:
    reading.finish_step()
    reading.level, reading.target, selection = _parse_options(
        rest, reading.level, reading.target, number, column, reading.source)
    reading.current = TourStep(reading.level, reading.target, selection, "", "", number)


def _read_text(reading: _Reading, rest: str, number: int, column: int) -> None:
    """A second `text:` in a step starts a new paragraph."""
    step = _current(reading)
    if not rest:
        raise ParseError("empty 'text:'", number, column, reading.source)
    reading.current = replace(step, text=f"{step.text}\n\n{rest}" if step.text else rest)


def _read_explain(reading: _Reading, rest: str, number: int, column: int) -> None:
    step = _current(reading)
    if step.explain:
        raise ParseError("a step has at most one 'explain:'", number, 1, reading.source)
    if rest != EXPLAIN_SELECTED and not has_topic(rest):
        raise ParseError(f"unknown explanation key '{rest}'", number, column, reading.source)
    reading.current = replace(step, explain=rest)


def _read_ask(reading: _Reading, rest: str, number: int, column: int) -> None:
    step = _current(reading)
    if step.question is not None:
        raise ParseError("a step has at most one 'ask:'", number, 1, reading.source)
    reading.current = replace(step, question=_parse_question(rest, number, column, reading.source))
    reading.ask_line = number


def _read_hint(reading: _Reading, rest: str, number: int, column: int) -> None:
    step = _current(reading)
    if step.question is None:
        raise ParseError("'hint:' before the step's 'ask:'", number, 1, reading.source)
    if step.question.hint:
        raise ParseError("a question has at most one 'hint:'", number, 1, reading.source)
    if not rest:
        raise ParseError("empty 'hint:'", number, column, reading.source)
    reading.current = replace(step, question=replace(step.question, hint=rest))


def _current(reading: _Reading) -> TourStep:
    """The step being read; _read_kind_line has refused every line kind but `step:` before the first step."""
    assert reading.current is not None, "only `step:` may come before the first step"
    return reading.current


# Each line kind and its reader, in the order the "unknown line kind" error lists them.
_LINE_READERS: dict[str, Callable[[_Reading, str, int, int], None]] = {
    "step": _read_step, "text": _read_text, "explain": _read_explain, "ask": _read_ask, "hint": _read_hint,
}
LINE_KINDS = tuple(_LINE_READERS)


def _finished_tour(reading: _Reading) -> Tour:
    """The tour, once its headers and steps are all there and its `lang` and `capture` are valid."""
    headers, header_at, source = reading.headers, reading.header_at, reading.source
    for name in REQUIRED_HEADERS:
        if not headers.get(name):
            raise ParseError(f"missing header '# {name}: ...'", 1, 1, source)
    if headers["lang"] not in ("de", "en"):
        raise ParseError(f"lang must be 'de' or 'en', not '{headers['lang']}'", *header_at["lang"], source)
    if not reading.steps:
        raise ParseError("a tour needs at least one 'step:'", len(reading.lines) or 1, 1, source)
    if "capture" in headers:
        _check_capture(headers["capture"], *header_at["capture"], source)
    return Tour(headers["title"], headers["model"], headers["lang"], tuple(reading.steps), source,
                headers.get("outcome", ""), headers.get("description", ""), headers.get("capture", ""))


def _check_capture(text: str, line: int, column: int, source: str) -> None:
    """Only the options of HEADER_OPTIONS, each written `--name value` (a switch, `--remat`, alone)."""
    words = text.split()
    at = 0
    while at < len(words):
        word = words[at]
        if word not in HEADER_OPTIONS:
            raise ParseError(f"unknown capture option '{word}' (known: {', '.join(HEADER_OPTIONS)})",
                             line, column + text.index(word), source)
        at += 1 if HEADER_OPTIONS[word].kind is Kind.SWITCH else 2
        if at > len(words):
            raise ParseError(f"capture option '{word}' needs a value", line, column + text.index(word), source)


def _options(text: str, column: int) -> Iterator[tuple[re.Match[str] | None, int]]:
    """Each `name=value` in `text` with its column; a None match (then nothing more) where no option starts."""
    position = 0
    while position < len(text):
        if text[position] == " ":
            position += 1
            continue
        match = _OPTION.match(text, position)
        yield match, column + position
        if match is None:
            return
        position = match.end()


def _option_value(match: re.Match[str]) -> str:
    """The value of a `name=value` match, without its quotes."""
    return match.group(3) if match.group(3) is not None else match.group(4)


def _parse_options(text: str, level: str, target: str, line: int, column: int,
                   source: str) -> tuple[str, str, Selection | None]:
    selection = None
    for match, where in _options(text, column):
        if match is None:
            quote = text.find('"', where - column)
            if quote >= 0 and text.count('"', quote) % 2:
                raise ParseError("unterminated quote", line, column + quote, source)
            raise ParseError("expected 'name=value' (quote values with spaces)", line, where, source)
        name, value = match.group(1), _option_value(match)
        value_column = where + len(name) + 1
        if name == "level":
            if value not in LEVELS:
                raise ParseError(f"unknown level '{value}' (known: {', '.join(LEVELS)})", line, value_column, source)
            level = value
        elif name == "target":
            if value not in TOUR_TARGETS:  # the table says which targets a tour may name; another is a typo
                raise ParseError(f"unknown target '{value}' (known: {', '.join(TOUR_TARGETS)})",
                                 line, value_column, source)
            target = value
        elif name == "select":
            selection = parse_selection(value, line, value_column, source)
        else:
            raise ParseError(f"unknown step option '{name}' (known: {', '.join(STEP_OPTIONS)})", line, where, source)
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
    """`select=SELECTOR`, `target=most:FACT`, `number=FACT [tolerance=N|N%]`, `bound=LAYER`."""
    options = _question_options(text, line, column, source)
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
        return _target_question(value, line, value_column, source)
    if kind == "bound":
        if not value:
            raise ParseError("expected bound=LAYER, e.g. bound=conv2d", line, value_column, source)
        return Question("bound", fact=value)
    if value not in TARGET_FACTS + ITEM_FIGURES:
        raise ParseError(f"unknown fact '{value}' (known: {', '.join(TARGET_FACTS + ITEM_FIGURES)})",
                         line, value_column, source)
    tolerance, relative = 0.0, False
    if "tolerance" in options:
        tolerance, relative = _parse_tolerance(*options["tolerance"], line, source)
    return Question("number", fact=value, tolerance=tolerance, relative=relative)


def _question_options(text: str, line: int, column: int, source: str) -> dict[str, tuple[str, int]]:
    """The options of an `ask:` line: name -> (value, column of the value); each known, none twice."""
    options: dict[str, tuple[str, int]] = {}
    for match, where in _options(text, column):
        if match is None:
            raise ParseError("expected 'name=value' after 'ask:', e.g. select=layer:dense,kind:fusion",
                             line, where, source)
        name = match.group(1)
        if name not in ASK_OPTIONS:
            raise ParseError(f"unknown question '{name}' (known: {', '.join(ASK_OPTIONS)})", line, where, source)
        if name in options:
            raise ParseError(f"'{name}=' given twice", line, where, source)
        options[name] = (_option_value(match), where + len(name) + 1)
    return options


def _target_question(value: str, line: int, column: int, source: str) -> Question:
    """`target=most:FACT` or `target=least:FACT`: which target has the most (least) of FACT."""
    extreme, colon, fact = value.partition(":")
    if not colon or extreme not in EXTREMES:
        raise ParseError(f"expected target=most:FACT or target=least:FACT, not '{value}'", line, column, source)
    if fact not in TARGET_FACTS:
        raise ParseError(f"unknown fact '{fact}' (known: {', '.join(TARGET_FACTS)})",
                         line, column + len(extreme) + 1, source)
    return Question("target", fact=fact, extreme=extreme)


def _parse_tolerance(raw: str, column: int, line: int, source: str) -> tuple[float, bool]:
    """`tolerance=N` (absolute) or `tolerance=N%` (relative, returned as a fraction): (tolerance, relative)."""
    relative = raw.endswith("%")
    try:
        tolerance = float(raw[:-1] if relative else raw)
    except ValueError:
        tolerance = -1.0
    # inf (or 1e999, which float() reads as inf) would accept every answer, NaN none: finite only
    if not math.isfinite(tolerance) or tolerance < 0:
        raise ParseError(f"bad tolerance '{raw}': a finite number or percentage, not negative, e.g. 5 or 10%",
                         line, column, source)
    return (tolerance / 100 if relative else tolerance), relative
