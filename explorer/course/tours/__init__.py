"""Guided tours: a plain-text format (docs/tours.md), its parser, and the built-in lessons.

Built-in lessons are the `*.tour` files in this package.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path

from explorer.capture.options import build_capture_options, check_choice
from explorer.course.selectors import Candidate, Condition, Selection, meets, resolve_selection
from explorer.course.tours.parser import (
    CAPTURE_OPTIONS,
    Tour,
    TourStep,
    parse_selection,
    parse_tour,
    read_tour_file,
)
from explorer.errors import TensorwegError
from explorer.levels import TARGET_LEVELS
from explorer.model.records import CaptureOptions
from explorer.views import suggested

__all__ = [
    "TWINS", "Candidate", "Condition", "Selection", "Tour", "TourStep", "builtin_tour", "builtin_tours",
    "capture_header", "capture_options", "header_options", "missing_capture", "tour_command",
    "load_tour", "meets", "parse_selection", "parse_tour", "resolve_selection",
]


# Each English lesson and its German twin: they visit the same items in the same order,
# so a class can follow one lesson in either language (tests/test_course_texts.py checks it).
TWINS: dict[str, str] = {
    "basics": "grundlagen",
    "graph_optimisation": "graph_optimierung",
    "matrix_work_cpu_gpu_tpu": "matrix_cpu_gpu_tpu",
    "memory_and_work": "speicher",
    "tensor_to_registers": "tensor_bis_register",
    "two_compilers": "zwei_compiler",
    "while_loop": "while_schleife",
    "training_memory": "training_speicher",
    "four_chips": "vier_chips",
    "what_if": "was_waere_wenn",
    "what_if_no_fusion": "was_waere_ohne_fusion",
}

# The `# capture:` options that stand alone; every other one takes the next word as its value.
_FLAGS = ("--remat",)
# The options given once per value, as on the command line (argparse's `append`): `--xla-flag A=1
# --xla-flag B=2` is two flags, not the second replacing the first.
_REPEATED = ("--xla-flag",)
# A header option's name where build_capture_options' keyword differs from the command line's
# destination (`--xla-flag` appends to `xla_flag`; the options take `xla_flags`).
_KEYWORDS = {"xla_flag": "xla_flags"}


def capture_options(tour: Tour) -> CaptureOptions:
    """What the lesson was written on: its `# capture:` options, checked as the command line checks
    them (explorer.capture.options.build_capture_options), or the default capture without them, plus
    every target its steps visit."""
    header = capture_header(tour)  # before the try: its errors name the tour already
    try:
        options = build_capture_options(**{_KEYWORDS.get(name, name): value for name, value in header.items()})
    except TensorwegError as exc:
        raise TensorwegError(f"{_tour_name(tour)}: # capture: {exc}") from None
    return replace(options, targets=tuple(dict.fromkeys((*options.targets, *visited_targets(tour)))))


def visited_targets(tour: Tour) -> tuple[str, ...]:
    """The targets the tour's steps show (the two-compiler lesson visits `tvm:cpu`); steps on the
    layers and graph levels show no target."""
    return tuple(dict.fromkeys(step.target for step in tour.steps if step.level in TARGET_LEVELS))


def capture_header(tour: Tour) -> dict[str, str | int | bool | list[str]]:
    """The `# capture:` header as the command line's argument names (build_capture_options' keywords
    but for `_KEYWORDS`): `--mode train --batch 8 --remat` -> {"mode": "train", "batch": 8, "remat": True};
    `--xla-flag xla_disable_hlo_passes=fusion` -> {"xla_flag": ["xla_disable_hlo_passes=fusion"]}.

    Only CAPTURE_OPTIONS (parse_tour refuses the others too: a tour never points the capture at a
    file or at unsafe code); a later option replaces an earlier one, as on the command line, except
    `_REPEATED` ones, which add up. An unknown option, one without its value, or a value the command
    line's parser would refuse raises one TensorwegError line naming the tour; an XLA flag the app
    does not know is refused when the options are built (capture_options), with the list.
    """
    found: dict[str, str | int | bool | list[str]] = {}
    words = tour.capture.split()
    at = 0
    while at < len(words):
        word = words[at]
        if word not in CAPTURE_OPTIONS:
            raise TensorwegError(f"{_tour_name(tour)}: # capture: unknown capture option '{word}' "
                                 f"(known: {', '.join(CAPTURE_OPTIONS)})")
        name = word[2:].replace("-", "_")
        if word in _FLAGS:
            found[name], at = True, at + 1
            continue
        if at + 1 == len(words) or words[at + 1].startswith("--"):
            raise TensorwegError(f"{_tour_name(tour)}: # capture: capture option '{word}' needs a value")
        if word in _REPEATED:
            found[name] = [*found.get(name, []), words[at + 1]]
        else:
            found[name] = _value(tour, name, words[at + 1])
        at += 2
    return found


def _value(tour: Tour, name: str, text: str) -> str | int:
    """An option's word as argparse reads it on the command line: `type=int` for --batch, `choices`
    for --mode, --optimizer, --shard and --dtype (so `tensorweg tour` names the tour of a bad value)."""
    try:
        if name == "batch":
            return int(text)
        check_choice(name, text)
    except ValueError:
        raise TensorwegError(f"{_tour_name(tour)}: # capture: bad --{name} '{text}': expected a whole number") from None
    except TensorwegError as exc:
        raise TensorwegError(f"{_tour_name(tour)}: # capture: {exc}") from None
    return text


def _tour_name(tour: Tour) -> str:
    """The tour as errors name it: its file (as the user typed it), else its title."""
    return tour.source or tour.title


# A `# capture:` option's field in CaptureOptions, where the names differ.
_FIELDS = {"input_shape": "input_shapes", "xla_flag": "xla_flags"}
# What decides the compiled function: a lesson with a `# capture:` header is written for its values
# of these (named or left at their defaults); batch and input shapes only matter where it names them.
_STEP_FIELDS = ("mode", "optimizer", "mesh", "shard", "remat", "layout_map", "dtype", "xla_flag")


def missing_capture(tour: Tour, model: str, options: CaptureOptions) -> str:
    """What a bundle of `model` captured with `options` lacks for the lesson's steps: "" when it
    has what they select, else the lesson's model and the capture options it differs in, as the
    command line writes them (`mlp --mode train --targets tpu:v5e`; `without --mesh` for one the
    lesson does not use). A lesson selects in the model it was written for: another model's bundle
    lacks it (its steps would select another network's items, or nothing), header or not."""
    needed = capture_options(tour)
    words: list[str] = [tour.model] if model != tour.model else []
    if tour.capture:
        named: dict[str, str] = {}
        for name, text in header_options(tour.capture):  # a repeated --xla-flag: every one is needed
            repeated = f"--{name.replace('_', '-')}" in _REPEATED and name in named
            named[name] = f"{named[name]} {text}" if repeated else text
        for name in dict.fromkeys([*_STEP_FIELDS, *named]):
            field = _FIELDS.get(name, name)
            if name != "targets" and getattr(needed, field, None) != getattr(options, field, None):
                words.append(named.get(name, f"without --{name.replace('_', '-')}"))
    absent = [target for target in needed.targets if target not in options.targets
              and (target in visited_targets(tour) or "--targets" in tour.capture.split())]
    if absent:
        words.append(f"--targets {','.join(absent)}")
    return " ".join(words)


def header_options(capture: str) -> list[tuple[str, str]]:
    """(field name, its text) per option of a `# capture:` header: `--mode train` -> ("mode", ...)."""
    found: list[tuple[str, list[str]]] = []
    for word in capture.split():
        if word.startswith("--"):
            found.append((word[2:].replace("-", "_"), [word]))
        elif found:
            found[-1][1].append(word)
    return [(name, " ".join(words)) for name, words in found]


def tour_command(name: str, tour: Tour) -> str:
    """The command that captures what a built-in lesson needs and opens it (`tensorweg tour`
    applies its `# capture:` header); the tour's model quoted (a pack's tour is untrusted text)."""
    return suggested.tour_command(name, tour.model)


def load_tour(path: Path) -> Tour:
    """Parse an instructor's tour file (its file name is named in error messages)."""
    return parse_tour(read_tour_file(path, path.name), path.name)


@cache
def _builtin() -> tuple[tuple[str, Tour], ...]:
    root = resources.files("explorer.course.tours")
    found = []
    for entry in sorted(root.iterdir(), key=lambda t: t.name):
        if entry.name.endswith(".tour"):
            found.append((entry.name[: -len(".tour")], parse_tour(entry.read_text(encoding="utf-8"), entry.name)))
    return tuple(found)


def builtin_tours(lang: str | None = None) -> list[tuple[str, Tour]]:
    """(name, tour) for every built-in lesson, optionally only one language's."""
    return [(name, tour) for name, tour in _builtin() if lang is None or tour.lang == lang]


def builtin_tour(name: str) -> Tour:
    for found, tour in _builtin():
        if found == name:
            return tour
    names = ", ".join(n for n, _ in _builtin())
    raise TensorwegError(f"unknown tour '{name}' (try: {names})")
