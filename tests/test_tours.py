"""The tour format: parsing, error positions, selectors, the built-in lessons, and (e2e) that
every built-in step selects an item that really exists in captures of its sample model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from explorer.cli.commands import capture_options as cli_capture_options
from explorer.cli.commands import with_capture_options
from explorer.cli.parser import build_parser
from explorer.course import lessons
from explorer.course.tours import (
    Candidate,
    Condition,
    builtin_tour,
    builtin_tours,
    capture_options,
    load_tour,
    parse_selection,
    parse_tour,
    resolve_selection,
    visited_targets,
)
from explorer.errors import ParseError, TensorwegError
from explorer.texts.content_files import LANGUAGES
from explorer.views import panes

EXAMPLE = """\
# title: Eine Faltung von oben nach unten
# model: mnist_cnn
# lang: de

step: level=layers select=conv2d target=cpu
text: Das ist die Faltungsschicht.
  Sie hat 8 Filter.
explain: layer:Conv2D

# a comment between steps
step: level=optimized-hlo select=layer:conv2d,kind:convolution
text: Erster Absatz.
text: Zweiter Absatz.

step: target=tpu:v5e select="name with spaces"
explain: selected
"""


def test_example_parses_into_steps_that_carry_level_and_target_forward():
    tour = parse_tour(EXAMPLE, "example.tour")
    assert (tour.title, tour.model, tour.lang) == ("Eine Faltung von oben nach unten", "mnist_cnn", "de")
    first, second, third = tour.steps
    assert (first.level, first.target, first.line) == ("layers", "cpu", 5)
    assert first.text == "Das ist die Faltungsschicht. Sie hat 8 Filter."
    assert first.explain == "layer:Conv2D"
    assert second.text == "Erster Absatz.\n\nZweiter Absatz."
    assert (second.level, second.target) == ("optimized-hlo", "cpu")
    assert second.selection.conditions == (Condition("layer", "conv2d"), Condition("kind", "convolution"))
    assert (third.level, third.target, third.explain) == ("optimized-hlo", "tpu:v5e", "selected")
    assert third.selection.conditions == (Condition("name", "name with spaces"),)


def _error(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse_tour(text, "bad.tour")
    return caught.value


HEADER = "# title: T\n# model: mlp\n# lang: en\n"


@pytest.mark.parametrize(("body", "line", "column", "message"), [
    ("step: level=hlo2\ntext: x\n", 4, 13, "unknown level 'hlo2'"),
    ("step: level=hlo target=tpu:v9\ntext: x\n", 4, 24, "unknown target 'tpu:v9'"),
    ("step: level=hlo colour=red\ntext: x\n", 4, 17, "unknown step option 'colour'"),
    ("step: level=hlo select\ntext: x\n", 4, 17, "expected 'name=value'"),
    ("text: before any step\n", 4, 1, "before the first 'step:'"),
    ("step: level=hlo\n", 4, 1, "neither 'text:' nor 'explain:'"),
    ("step: level=hlo\nexplain: hlo:no-such-op\n", 5, 10, "unknown explanation key"),
    ("step: level=hlo\ntext: x\nexplain: hlo:dot\nexplain: hlo:add\n", 7, 1, "at most one 'explain:'"),
    ("step: text=x\ntext: x\n", 4, 7, "unknown step option 'text'"),
    ("step: target=cpu\ntext: x\n", 4, 7, "must set 'level='"),
    ("step: level=hlo\nnarrate: x\n", 5, 1, "unknown line kind 'narrate:'"),
    ("step: level=hlo\ntext: x\nsomething without colon\n", 6, 1, "expected 'step:'"),
    ("step: level=hlo select=layer:\ntext: x\n", 4, 24, "empty selector part"),
], ids=["level", "target", "option", "bare-word", "text-first", "empty-step", "explain-key",
        "two-explains", "text-as-option", "no-level", "line-kind", "no-colon", "empty-selector"])
def test_malformed_steps_name_line_and_column(body, line, column, message):
    error = _error(HEADER + body)
    assert message in str(error)
    assert (error.line, error.column) == (line, column)
    assert str(error).startswith(f"bad.tour:{line}:{column}: ")


def test_header_problems_are_reported():
    assert "missing header '# model" in str(_error("# title: T\n# lang: de\nstep: level=hlo\ntext: x\n"))
    assert "lang must be" in str(_error("# title: T\n# model: m\n# lang: fr\nstep: level=hlo\ntext: x\n"))
    unknown = _error("# titel: T\n# model: m\n# lang: de\nstep: level=hlo\ntext: x\n")
    assert "unknown header 'titel'" in str(unknown) and (unknown.line, unknown.column) == (1, 3)
    assert "at least one 'step:'" in str(_error(HEADER))
    assert "continuation" in str(_error(HEADER + "  indented first\n"))


def test_selectors_resolve_to_the_first_item_meeting_every_condition():
    items = [
        Candidate("convolution.1", ("convolution",), "conv2d"),
        Candidate("broadcast_maximum_fusion", ("fusion", "kLoop"), "conv2d"),
        Candidate("dot_add_fusion", ("fusion", "kOutput"), "dense"),
        Candidate("conv2d", ("Conv2D",), ""),
    ]
    assert resolve_selection(parse_selection("layer:conv2d,kind:kLoop"), items) == "broadcast_maximum_fusion"
    assert resolve_selection(parse_selection("kind:fusion"), items) == "broadcast_maximum_fusion"
    assert resolve_selection(parse_selection("dot_add_fusion"), items) == "dot_add_fusion"
    assert resolve_selection(parse_selection("layer:dense,kind:kLoop"), items) is None
    # On the layers level an item without a layer is the layer itself.
    assert resolve_selection(parse_selection("layer:conv2d,kind:Conv2D"), items) == "conv2d"


def test_load_tour_names_the_file_in_errors(tmp_path):
    path = tmp_path / "mine.tour"
    path.write_text(HEADER + "step: level=nowhere\ntext: x\n", encoding="utf-8")
    with pytest.raises(ParseError, match=r"^mine\.tour:4:13: unknown level"):
        load_tour(path)
    path.write_text(HEADER + "step: level=hlo\ntext: fine\n", encoding="utf-8")
    assert load_tour(path).steps[0].text == "fine"


OUTCOMES = ("Maschinencode", "Matrixarbeit", "Graphen optimieren", "Speicher", "Register")


def test_builtin_lessons_cover_every_learning_outcome_in_german_with_5_to_12_steps():
    german = builtin_tours("de")
    for outcome in OUTCOMES:
        assert any(outcome in tour.outcome for _, tour in german), outcome
    for name, tour in builtin_tours():
        assert 5 <= len(tour.steps) <= 12, name
        for step in tour.steps:
            if step.explain == "selected":
                assert step.selection is not None, (name, step.line)


def test_every_builtin_tour_states_its_own_learning_outcome():
    for lang in ("en", "de"):
        outcomes = [tour.outcome for _, tour in builtin_tours(lang)]
        assert all(outcomes) and len(set(outcomes)) == len(outcomes), lang


def _route(tour) -> list[tuple]:
    """What a tour shows, apart from its words: each step's level, target, selector and key."""
    return [(s.level, s.target, s.selection.text if s.selection else None, s.explain) for s in tour.steps]


def _follows(short: list, long: list) -> bool:
    """True when `short` is `long` with some steps left out (order kept)."""
    rest = iter(long)
    return all(step in rest for step in short)


def test_every_german_lesson_has_an_english_twin_that_visits_the_same_items():
    # tensor_to_registers leaves out two steps of its German twin: the UI tests and the
    # tour snapshot are pinned to its step positions (tests/test_screens_course.py).
    english = [tour for _, tour in builtin_tours("en")]
    missing = [name for name, german in builtin_tours("de")
               if not any(tour.model == german.model and len(tour.steps) >= len(german.steps) - 2
                          and _follows(_route(tour), _route(german)) for tour in english)]
    assert not missing, f"no English tour with the same steps as {missing}"


def test_the_lstm_lesson_follows_the_while_loop_through_every_compiled_level():
    for lang in LANGUAGES:
        tours = [tour for _, tour in builtin_tours(lang) if tour.model == "lstm"]
        assert tours, lang
        visited = {(s.level, s.target.partition(":")[0]) for s in tours[0].steps
                   if s.selection and "kind:while" in s.selection.text}
        assert {("hlo", "cpu"), ("optimized-hlo", "cpu"), ("optimized-hlo", "tpu")} <= visited, lang


def test_the_capture_header_takes_only_capture_options():
    tour = parse_tour(HEADER + "# capture: --mode train --mesh 2x2 --shard model --targets tpu:v5e --batch 8\n"
                      "step: level=hlo target=tpu:v5e\ntext: x\n", "t.tour")
    options = capture_options(tour)
    assert (options.mode, options.optimizer, options.mesh, options.shard) == ("train", "adam", "2x2", "model")
    assert options.targets == ("tpu:v5e",) and options.batch == 8
    assert capture_options(parse_tour(HEADER + "step: level=hlo\ntext: x\n", "t.tour")).mode == "inference"
    # every target a step shows is captured too, beside the header's (steps on the layers level show none)
    visiting = parse_tour(HEADER + "# capture: --targets tpu:v5e\nstep: level=layers\ntext: x\n"
                          "step: level=kernels target=tvm:cpu\ntext: y\n", "t.tour")
    assert capture_options(visiting).targets == ("tpu:v5e", "tvm:cpu")
    bad = _error(HEADER + "# capture: --mode train --layout-map /etc/passwd\nstep: level=hlo\ntext: x\n")
    assert "unknown capture option '--layout-map'" in str(bad) and (bad.line, bad.column) == (4, 25)
    unsafe = _error(HEADER + "# capture: --unsafe\nstep: level=hlo\ntext: x\n")
    assert "unknown capture option '--unsafe'" in str(unsafe)
    assert "needs a value" in str(_error(HEADER + "# capture: --mode\nstep: level=hlo\ntext: x\n"))


def test_the_training_and_mesh_lessons_are_written_for_their_captures():
    for name in ("training_memory", "training_speicher"):
        assert capture_options(builtin_tour(name)).mode == "train"
    for name in ("four_chips", "vier_chips"):
        options = capture_options(builtin_tour(name))
        assert (options.mesh, options.shard, options.targets) == ("2x2", "model", ("tpu:v5e",))


def test_tensorweg_tour_captures_what_the_lesson_was_written_for():
    tour = builtin_tour("four_chips")
    plain = build_parser().parse_args(["tour", "four_chips", "mlp"])
    options = cli_capture_options(with_capture_options(plain, tour))
    assert options == capture_options(tour) and options.mesh == "2x2"
    # A command line that asks for a training step or a mesh of its own keeps it.
    own = build_parser().parse_args(["tour", "four_chips", "mlp", "--mode", "train", "--targets", "gpu:h100"])
    assert cli_capture_options(with_capture_options(own, tour)).targets == ("gpu:h100",)
    inference = build_parser().parse_args(["tour", "basics", "mlp", "--targets", "cpu"])
    assert with_capture_options(inference, builtin_tour("basics")) is inference


def _with_header(capture: str):
    """A tour whose `# capture:` is `capture`, set past parse_tour's check, as a hand-made Tour may hold it."""
    return replace(parse_tour(HEADER + "step: level=hlo target=tpu:v5e\ntext: x\n", "t.tour"), capture=capture)


# Headers beside the built-in lessons': every option, a flag, a repeated option (the last one counts, but
# --xla-flag's add up).
HEADERS = ("--mode train --optimizer sgd --remat --batch 4", "--mesh 2x2 --shard data --targets tpu:v5e --batch 4",
           "--targets cpu,tvm:cpu --batch 2", "--mode train --mode inference", "--batch 8 --mesh 4x2 --shard model "
           "--targets tpu:v5e,gpu:h100 --mode train --optimizer adam",
           "--xla-flag xla_disable_hlo_passes=fusion --targets cpu,tpu:v5e --xla-flag xla_cpu_enable_fast_math=true")


@pytest.mark.parametrize("tour", [tour for _, tour in builtin_tours()] + [_with_header(h) for h in HEADERS],
                         ids=[name for name, _ in builtin_tours()] + list(HEADERS))
def test_a_capture_header_gives_what_the_command_line_gives_for_its_words(tour):
    """The header is read without argparse; the CLI's real path is the reference (plus the visited targets)."""
    cli = cli_capture_options(build_parser().parse_args(["capture", tour.model, *tour.capture.split()]))
    assert capture_options(tour) == replace(cli, targets=tuple(dict.fromkeys((*cli.targets, *visited_targets(tour)))))


@pytest.mark.parametrize("tour", [t for _, t in builtin_tours() if t.capture] + [_with_header(h) for h in HEADERS],
                         ids=[name for name, t in builtin_tours() if t.capture] + list(HEADERS))
def test_tensorweg_tour_reads_the_header_as_its_words_on_the_command_line(tour):
    plain = build_parser().parse_args(["tour", "t", tour.model])
    spelled_out = build_parser().parse_args(["tour", "t", tour.model, *tour.capture.split()])
    assert with_capture_options(plain, tour) == spelled_out


@pytest.mark.parametrize(("capture", "fragment"), [
    ("--unsafe", "unknown capture option '--unsafe' (known: --batch, --mode, "),
    ("--mode train --layout-map /etc/passwd", "unknown capture option '--layout-map'"),
    ("--input-shape x=1x2", "unknown capture option '--input-shape'"),
    ("--mode", "capture option '--mode' needs a value"),
    ("--mode --remat", "capture option '--mode' needs a value"),
    ("--batch eight", "bad --batch 'eight': expected a whole number"),
    ("--mode fly", "bad --mode 'fly': expected inference or train"),
    ("--mode train --optimizer lion", "bad --optimizer 'lion': expected adam or sgd"),
    ("--mesh 2x2 --shard rows --targets tpu:v5e", "bad --shard 'rows': expected data or model"),
    ("--batch 0", "bad --batch 0: must be at least 1"),
    ("--remat", "--remat needs --mode train"),
    ("--optimizer sgd", "--optimizer sgd needs --mode train"),
    ("--mesh 2x2 --targets tpu:v5e", "--mesh needs --shard data or --shard model"),
])
def test_a_bad_capture_header_is_one_line_naming_the_tour(capture, fragment):
    with pytest.raises(TensorwegError) as caught:
        capture_options(_with_header(capture))
    message = str(caught.value)
    assert message.startswith("t.tour: # capture: ") and fragment in message and "\n" not in message


@pytest.mark.parametrize(("capture", "message"), [
    ("--mode train --batch", "capture option '--batch' needs a value"),
    ("--mode fly", "bad --mode 'fly': expected inference or train"),
    ("--mode train --batch 1.5", "bad --batch '1.5': expected a whole number"),
])
def test_tensorweg_tour_names_the_tour_of_a_bad_header(capture, message):
    plain = build_parser().parse_args(["tour", "t", "mlp"])
    with pytest.raises(TensorwegError) as caught:
        with_capture_options(plain, _with_header(capture))
    assert str(caught.value) == f"t.tour: # capture: {message}"


def test_builtin_tour_by_name_and_unknown_name():
    assert builtin_tour("tensor_bis_register").model == "mnist_cnn"
    with pytest.raises(TensorwegError, match="unknown tour 'nope' \\(try: .*grundlagen"):
        builtin_tour("nope")


# --- e2e: the built-in steps select real items -------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("name", [name for name, _ in builtin_tours()])
def test_every_builtin_step_selects_an_item_of_a_real_capture(name, tmp_path_factory):
    from test_course import sample_bundle  # the same shared captures as the coverage test

    tour = builtin_tour(name)
    bundle = sample_bundle(tmp_path_factory, tour.model, capture_options(tour))
    missing = []
    for step in tour.steps:
        assert step.target in bundle.targets or step.level in ("layers", "graph"), step
        # what the tour screen selects
        if step.selection is not None and lessons.resolve_tour_step(bundle, step) is None:
            missing.append(f"line {step.line}: {step.level} {step.target} select={step.selection.text}")
    assert not missing, "selects nothing:\n" + "\n".join(missing)


@pytest.mark.e2e
def test_the_four_chips_lesson_shows_half_a_kernel_and_the_all_reduce_of_a_model_group(tmp_path_factory):
    """What its texts claim, on the capture its `# capture:` header asks for."""
    from test_course import sample_bundle

    tour = builtin_tour("four_chips")
    bundle = sample_bundle(tmp_path_factory, tour.model, capture_options(tour))
    kernel = lessons.resolve_tour_step(bundle, tour.steps[1])
    assert "shape  f32[64,64]" in panes.memory_facts(bundle, "optimized-hlo", "tpu:v5e", kernel)
    assert bundle.index.layer_of("optimized-hlo", kernel, "tpu:v5e") == "dense"  # "This is dense's kernel"
    reduce = lessons.resolve_tour_step(bundle, tour.steps[3])
    assert reduce.startswith("all-reduce")
    assert any(line.strip().startswith("all-reduce") and "[2,2]<=[4]" in line and "[dense_1, backward]" in line
               for line in panes.step_lines(bundle, "tpu:v5e"))
