"""Guided tours: a plain-text format (docs/tours.md), its parser, and the built-in lessons.

Built-in lessons are the `*.tour` files in this package.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path

from explorer.capture.option_table import GIVEN, Kind
from explorer.capture.options import build_capture_options, read_word
from explorer.course.selectors import Candidate, Condition, Selection, meets, resolve_selection
from explorer.course.tours.parser import (
    HEADER_OPTIONS,
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
    "load_tour", "meets", "parse_selection", "parse_tour", "resolve_selection", "twin_in",
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
    "data_centre_to_device": "rechenzentrum_aufs_geraet",
}



def twin_in(tour_name: str, lang: str) -> str:
    """The built-in lesson `tour_name` in `lang`: itself, or its twin (`basics` -> `grundlagen` in
    de); any other name (a tour file, an instructor's tour in a pack) as it is."""
    for english, german in TWINS.items():
        if tour_name in (english, german):
            return german if lang == "de" else english
    return tour_name


# A header option's name (argparse's destination, `xla_flag`) -> its row (explorer.capture.option_table).
_ROW_OF = {row.dest: row for row in GIVEN}


def capture_options(tour: Tour) -> CaptureOptions:
    """What the lesson was written on: its `# capture:` options, checked as the command line checks
    them (explorer.capture.options.build_capture_options), or the default capture without them, plus
    every target its steps visit."""
    header = capture_header(tour)  # before the try: its errors name the tour already
    try:
        options = build_capture_options(**{_ROW_OF[name].field: value for name, value in header.items()})
    except TensorwegError as exc:
        raise TensorwegError(f"{_tour_name(tour)}: # capture: {exc}") from None
    return replace(options, targets=tuple(dict.fromkeys((*options.targets, *visited_targets(tour)))))


def visited_targets(tour: Tour) -> tuple[str, ...]:
    """The targets the tour's steps show (the two-compiler lesson visits `tvm:cpu`); steps on the
    layers and graph levels show no target."""
    return tuple(dict.fromkeys(step.target for step in tour.steps if step.level in TARGET_LEVELS))


def capture_header(tour: Tour) -> dict[str, str | int | bool | list[str]]:
    """The `# capture:` header as the command line's argument names (argparse's destinations):
    `--mode train --batch 8 --remat` -> {"mode": "train", "batch": 8, "remat": True};
    `--xla-flag xla_disable_hlo_passes=fusion` -> {"xla_flag": ["xla_disable_hlo_passes=fusion"]}.

    Only HEADER_OPTIONS (parse_tour refuses the others too: a tour never points the capture at a
    file or at unsafe code); a switch stands alone, every other option takes the next word; a later
    option replaces an earlier one, as on the command line, except a repeatable one (`--xla-flag`),
    whose words add up. An unknown option, one without its value, or a value the command line's
    parser would refuse (explorer.capture.options.read_word) raises one TensorwegError line naming
    the tour; an XLA flag the app does not know is refused when the options are built
    (capture_options), with the list.
    """
    found: dict[str, str | int | bool | list[str]] = {}
    words = tour.capture.split()
    at = 0
    while at < len(words):
        word = words[at]
        row = HEADER_OPTIONS.get(word)
        if row is None:
            raise TensorwegError(f"{_tour_name(tour)}: # capture: unknown capture option '{word}' "
                                 f"(known: {', '.join(HEADER_OPTIONS)})")
        if row.kind is Kind.SWITCH:
            found[row.dest], at = True, at + 1
            continue
        if at + 1 == len(words) or words[at + 1].startswith("--"):
            raise TensorwegError(f"{_tour_name(tour)}: # capture: capture option '{word}' needs a value")
        if row.kind is Kind.LIST:
            earlier = found.get(row.dest, [])  # a repeatable option's words so far
            found[row.dest] = [*(earlier if isinstance(earlier, list) else []), words[at + 1]]
        else:
            try:
                found[row.dest] = read_word(row, words[at + 1])
            except TensorwegError as exc:
                raise TensorwegError(f"{_tour_name(tour)}: # capture: {exc}") from None
        at += 2
    return found


def _tour_name(tour: Tour) -> str:
    """The tour as errors name it: its file (as the user typed it), else its title."""
    return tour.source or tour.title


def missing_capture(tour: Tour, model: str, options: CaptureOptions) -> str:
    """What a bundle of `model` captured with `options` lacks for the lesson's steps: "" when it
    has what they select, else the lesson's model and the capture options it differs in, as the
    command line writes them (`mlp --mode train --targets tpu:v5e`; `without --mesh` for one the
    lesson does not use). A lesson selects in the model it was written for: another model's bundle
    lacks it (its steps would select another network's items, or nothing), header or not.

    With a `# capture:` header, the lesson is written for the options it names (in its order) and for
    the defaults of the rows with `lesson` it leaves out (a training step, a mesh, a dtype policy);
    batch and input shapes only matter where it names them."""
    needed = capture_options(tour)
    words: list[str] = [tour.model] if model != tour.model else []
    if tour.capture:
        named: dict[str, str] = {}
        for name, text in header_options(tour.capture):  # a repeated --xla-flag: every one is needed
            repeated = _ROW_OF[name].kind is Kind.LIST and name in named
            named[name] = f"{named[name]} {text}" if repeated else text
        rows = [*(_ROW_OF[name] for name in named), *(row for row in GIVEN if row.lesson and row.dest not in named)]
        for row in rows:
            if row.field != "targets" and getattr(needed, row.field) != getattr(options, row.field):
                words.append(named.get(row.dest, f"without {row.flag}"))
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
