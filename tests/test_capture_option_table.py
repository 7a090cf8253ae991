"""The capture option table (explorer.capture.option_table) walked through every consumer.

One row per `CaptureOptions` field; for every row: the parser of every capturing command accepts its
flag and reads it back to the same options (what `serve` passes its tabs), changing it changes the
cache key exactly when the row says so (and the keys users' caches hold stay byte for byte), each
worker's request carries it exactly when the row names that worker, `--vary` takes its key, a tour's
`# capture:` header takes it or refuses it as the row says, and a variant's label and the title name it.
Each check goes through the code the command line, the workers and the screens run.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from dataclasses import fields, replace
from pathlib import Path

import pytest

from explorer.capture import cache
from explorer.capture.model_source import ModelSource
from explorer.capture.option_table import CAPTURE_OPTIONS, GIVEN, CaptureOption, Key, Kind, Worker
from explorer.capture.options import build_capture_options, capture_flags, option_differences, variant_words
from explorer.capture.staging_manifest import SIGNATURE_FILE
from explorer.capture.vary import VARY_KEYS, variants
from explorer.capture.worker_requests import accelerator_request, request_options, tensorflow_request
from explorer.cli.commands import capture_keywords, capture_options
from explorer.cli.parser import SUBCOMMANDS, build_parser
from explorer.course.tours import capture_options as tour_options
from explorer.course.tours import missing_capture, parse_tour
from explorer.errors import ParseError, TensorwegError
from explorer.model.records import CaptureOptions
from explorer.model.serial import dump_json, from_jsonable

from screens.cli import main
from screens.serve import command as serve_module

from tests.conftest import FIXTURES
from tests.serve_support import ServerRecorder

ROWS = {row.field: row for row in CAPTURE_OPTIONS}
LAYOUT_MAP = '"dense/kernel" = ["", "model"]\n'
# build_capture_options' keywords that set each option to something other than what a plain capture
# has, with the options it needs (a training step, a mesh); LAYOUT_MAP_FILE stands for a map's path.
SAMPLES: dict[str, dict] = {
    "targets": {"targets": "tpu:v5e"},
    "batch": {"batch": 8},
    "input_shapes": {"input_shapes": ["x=8x4"]},
    "unsafe": {"unsafe": True},
    "passes": {"passes": True},
    "mode": {"mode": "train"},
    "optimizer": {"mode": "train", "optimizer": "sgd"},
    "remat": {"mode": "train", "remat": True},
    "mesh": {"targets": "tpu:v5e", "mesh": "2x2", "shard": "data", "batch": 4},
    "shard": {"targets": "tpu:v5e", "mesh": "2x2", "shard": "model", "batch": 2},
    "layout_map": {"targets": "tpu:v5e", "mesh": "2x2", "layout_map": "LAYOUT_MAP_FILE", "batch": 2},
    "layout_map_file": {"targets": "tpu:v5e", "mesh": "2x2", "layout_map": "LAYOUT_MAP_FILE", "batch": 2},
    "dtype": {"dtype": "bfloat16"},
    "remat_layers": {"mode": "train", "remat_layers": "conv"},
    "xla_flags": {"xla_flags": ["xla_disable_hlo_passes=fusion"]},
    "donate": {"mode": "train", "donate": False},
    "quantize": {"quantize": "int8"},
}
# `--vary KEY=A,B` per key, and the options it needs.
VARY_SAMPLES: dict[str, tuple[str, dict]] = {
    "batch": ("1,8", {}),
    "mode": ("inference,train", {}),
    "optimizer": ("adam,sgd", {"mode": "train"}),
    "remat": ("off,on", {"mode": "train"}),
    "mesh": ("2x2,4x2", {"targets": "tpu:v5e", "shard": "data", "batch": 8}),
    "dtype": ("float32,bfloat16", {}),
    "remat-layers": ("none,conv", {"mode": "train"}),
    "xla-flag": ("none,xla_disable_hlo_passes=fusion", {}),
    "donate": ("on,off", {"mode": "train"}),
    "quantize": ("none,int8", {}),
}
# A value each row's check refuses, with the flag its one line names.
BAD_VALUES: dict[str, object] = {"batch": 0, "remat_layers": "(", "input_shapes": ["x"], "xla_flags": ["xla_bogus=1"]}
# Each capturing command's arguments besides the capture options.
COMMAND_ARGUMENTS = {
    "open": ["mlp"], "capture": ["mlp"], "inspect": ["mlp", "--level", "layers"], "compare": ["mlp"],
    "passes": ["mlp"], "screenshot": ["mlp", "--out", "s.svg"], "tour": ["basics", "mlp"], "serve": ["mlp"],
    "pack": ["mlp", "-o", "p.twpack"], "handout": ["basics", "mlp", "-o", "out"],
    "graph": ["mlp", "--level", "layers", "-o", "g.dot"], "passport": ["mlp", "--layer", "d"],
    "diff": ["mlp", "--vary", "batch=1,2"],
}
PLAIN = CaptureOptions()
# The options a training step refuses (build_capture_options' rules between options).
INFERENCE_ONLY = ("quantize",)


@pytest.fixture
def layout_map(tmp_path) -> Path:
    path = tmp_path / "map.toml"
    path.write_text(LAYOUT_MAP, encoding="utf-8")
    return path


def _keywords(field: str, layout_map: Path) -> dict:
    return {name: layout_map if value == "LAYOUT_MAP_FILE" else value for name, value in SAMPLES[field].items()}


def _sample(field: str, layout_map: Path) -> CaptureOptions:
    return build_capture_options(**_keywords(field, layout_map))


def _reset(options: CaptureOptions, row: CaptureOption) -> CaptureOptions:
    """`options` with the row's field as a plain capture has it (the rest left as they are)."""
    return replace(options, **{row.field: getattr(PLAIN, row.field)})


def test_every_field_of_the_options_has_one_row_and_every_row_a_sample():
    assert [row.field for row in CAPTURE_OPTIONS] == list(dict.fromkeys(row.field for row in CAPTURE_OPTIONS))
    assert {row.field for row in CAPTURE_OPTIONS} == {f.name for f in fields(CaptureOptions)}
    assert set(SAMPLES) == set(ROWS)
    assert set(VARY_SAMPLES) == set(VARY_KEYS)
    assert {row.field for row in CAPTURE_OPTIONS if row.check is not None} <= set(BAD_VALUES)


@pytest.mark.parametrize("field", list(ROWS))
def test_each_sample_sets_its_option(field, layout_map):
    plain = build_capture_options()
    assert getattr(_sample(field, layout_map), field) != getattr(plain, field)


@pytest.mark.parametrize("field", list(ROWS))
def test_changing_an_option_changes_the_cache_key_exactly_when_its_row_says(field, layout_map):
    row, source = ROWS[field], ModelSource("mnist_cnn", "sample", "mnist_cnn", "0" * 64)
    options = _sample(field, layout_map)
    in_key = row.key is not Key.NO
    assert (cache.cache_key(source, options) != cache.cache_key(source, _reset(options, row))) is in_key
    # growing a bundle (-o DIR) and `--vary`'s "the same variant" compare the options the key names
    assert (options.without_targets() != _reset(options, row).without_targets()) is in_key


def test_the_cache_keys_users_caches_hold_stay_byte_for_byte(monkeypatch):
    """tests/fixtures/cache_keys/keys.json: the keys the code before the table wrote (its script says how)."""
    recorded = json.loads((FIXTURES / "cache_keys" / "keys.json").read_text(encoding="utf-8"))
    monkeypatch.setattr(cache, "tool_versions", lambda: tuple(tuple(pair) for pair in recorded["tools"]))
    source = ModelSource(**recorded["source"])
    for case in recorded["keys"]:
        assert cache.cache_key(source, from_jsonable(CaptureOptions, case["options"])) == case["key"], case


@pytest.mark.parametrize("command", [c for c in SUBCOMMANDS if c not in ("samples", "explain", "glossary")])
def test_every_capturing_command_reads_every_option_back_as_serve_writes_it(command, layout_map):
    """capture_flags (what `serve` starts its tabs with, and what a screen tells a learner to type)
    parsed by each command's own parser gives the same options; a command without `--targets`
    (inspect, passes, ...) is given its target as its handler gives it."""
    parser = build_parser(command)
    has_targets = hasattr(parser.parse_args([command, *COMMAND_ARGUMENTS[command]]), "targets")
    assert has_targets == (command in ("open", "capture", "compare", "tour", "serve", "pack", "handout"))
    for field in ROWS:
        options = _sample(field, layout_map)
        files = {"layout_map": layout_map} if options.layout_map else {}
        for every in (True, False):
            flags = capture_flags(options, every=every, files=files)
            if not has_targets:  # --targets comes last, where it differs or every flag is written
                flags = flags[:-2] if flags[-2:-1] == ["--targets"] else flags
            argv = [command, *COMMAND_ARGUMENTS[command], *flags]
            args = parser.parse_args(argv)
            targets = None if has_targets else ",".join(options.targets)
            assert capture_options(args, targets) == options, argv


def test_a_file_option_is_written_as_its_name_unless_its_path_is_given(layout_map, tmp_path, monkeypatch):
    options = _sample("layout_map", layout_map)
    assert capture_flags(options, every=False)[-4:] == ["--layout-map", "map.toml", "--targets", "tpu:v5e"]
    monkeypatch.chdir(tmp_path)  # where a learner captured beside the file
    args = build_parser("capture").parse_args(["capture", "mlp", *capture_flags(options, every=False)])
    assert capture_options(args) == options


@pytest.mark.parametrize("field", [row.field for row in GIVEN if row.choices or row.field in BAD_VALUES])
def test_a_value_the_row_refuses_is_one_line_naming_its_flag(field):
    row = ROWS[field]
    bad = BAD_VALUES.get(field, "nonsense")
    with pytest.raises(TensorwegError) as refused:
        build_capture_options(**{field: bad})
    assert f"bad {row.flag} " in str(refused.value) and "\n" not in str(refused.value)


def test_an_unknown_keyword_is_a_programming_error():
    with pytest.raises(TypeError, match="quantise"):
        build_capture_options(quantise="int8")


@pytest.mark.parametrize("field", [field for field in ROWS if field != "targets"])  # each worker's own, per run
def test_each_worker_request_carries_an_option_exactly_when_its_row_names_the_worker(field, layout_map, tmp_path):
    row, options = ROWS[field], _sample(field, layout_map)
    staging = tmp_path / "staging"
    staging.mkdir()
    dump_json([("x", (1, 4), "float32")], staging / SIGNATURE_FILE)
    source = ModelSource("mnist_cnn", "sample", "mnist_cnn", "0" * 64)
    requests = {Worker.TENSORFLOW: lambda o: tensorflow_request(source, o, staging, cpu=True),
                Worker.ACCELERATOR: lambda o: accelerator_request(source, o, staging, "tpu:v5e")[1]}
    for worker, request_of in requests.items():
        request, plain = request_of(options), request_of(_reset(options, row))
        assert (field in request) is (worker in row.workers)
        if worker in row.workers:
            assert request[field] != plain[field]
    target_request = requests[Worker.ACCELERATOR](options)
    if Worker.ACCELERATOR in row.workers:  # the target workers read the options back from their request
        assert getattr(request_options(target_request), field) == getattr(options, field)


@pytest.mark.parametrize("key", list(VARY_KEYS))
def test_vary_takes_each_key_its_rows_name(key):
    values, base_keywords = VARY_SAMPLES[key]
    base = {**capture_keywords(build_parser("diff").parse_args(["diff", "mlp"]), targets="cpu"), **base_keywords}
    first, second = variants(f"{key}={values}", base)
    field = VARY_KEYS[key][1]
    assert getattr(first.options, field) != getattr(second.options, field)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser("diff").parse_args(["diff", "--help"])
    assert key in " ".join(out.getvalue().split()).replace("- ", "-")  # `tensorweg diff --help` lists it


def _tour(capture: str):
    return parse_tour(f"# title: T\n# model: mnist_cnn\n# lang: en\n# capture: {capture}\nstep: level=layers\n"
                      "text: x\n", "t.tour")


@pytest.mark.parametrize("field", [row.field for row in GIVEN])
def test_a_tour_header_takes_an_option_exactly_when_its_row_says(field, layout_map):
    row, options = ROWS[field], _sample(field, layout_map)
    if row.tour:
        header = shlex.join(capture_flags(options, every=False))
        assert tour_options(_tour(header)) == options
    else:
        with pytest.raises(ParseError, match=f"unknown capture option '{row.flag}'"):
            _tour(row.flag if row.kind is Kind.SWITCH else f"{row.flag} x")


def test_no_tour_header_points_a_capture_at_a_file_or_at_a_models_own_code():
    assert not [row.field for row in CAPTURE_OPTIONS if row.tour and (row.kind is Kind.FILE or row.field == "unsafe")]
    assert all(row.kind in (Kind.VALUE, Kind.SWITCH, Kind.LIST) for row in CAPTURE_OPTIONS if row.tour)


@pytest.mark.parametrize("field", [field for field in ROWS if field != "targets"])
def test_a_lesson_with_a_header_lacks_a_bundle_that_differs_in_an_option_it_was_written_for(field, layout_map):
    row = ROWS[field]
    tour = _tour("--targets cpu")
    plain = tour_options(tour)
    differing = replace(plain, **{field: getattr(_sample(field, layout_map), field)})
    assert bool(missing_capture(tour, "mnist_cnn", differing)) is row.lesson


@pytest.mark.parametrize("field", list(ROWS))
def test_a_sibling_variant_and_the_title_name_an_option_as_its_row_says(field, layout_map):
    row, options = ROWS[field], _sample(field, layout_map)
    assert bool(option_differences(_reset(options, row), options)) is row.compared
    assert (variant_words(options) != variant_words(_reset(options, row))) is (row.title is not None)


def test_serve_starts_its_tabs_with_every_option_it_captured(fake, layout_map, monkeypatch):
    """`serve MODEL --allow-capture` with every option changed at once (stand-in workers): the tab's own
    command line asks for the very bundle serve captured, so no tab compiles it again."""
    fake("ok")
    monkeypatch.setattr(serve_module, "_server_class", lambda: ServerRecorder)
    ServerRecorder.calls.clear()
    argv = ["serve", "mlp", "--allow-capture", "--targets", "tpu:v5e", "--batch", "4", "--input-shape", "x=4x4",
            "--unsafe", "--passes", "--mode", "train", "--optimizer", "sgd", "--mesh", "2x2",
            "--layout-map", str(layout_map), "--dtype", "bfloat16", "--remat-layers", "dense",
            "--xla-flag", "xla_disable_hlo_passes=cse", "--no-donate"]
    assert main(argv) == 0
    served = capture_options(build_parser().parse_args(argv))
    # --quantize compiles the inference call a deployment runs: it cannot join a training step, so it
    # is served on its own below.
    assert [row.field for row in CAPTURE_OPTIONS
            if getattr(served, row.field) == getattr(PLAIN, row.field)] == list(INFERENCE_ONLY)
    command = shlex.split(ServerRecorder.calls[0].command)
    tab = build_parser().parse_args(command[command.index("open"):])
    assert capture_options(tab) == served
    inference = ["serve", "mlp", "--allow-capture", "--targets", "cpu", "--quantize", "int8"]
    assert main(inference) == 0
    command = shlex.split(ServerRecorder.calls[-1].command)
    assert capture_options(build_parser().parse_args(command[command.index("open"):])) == capture_options(
        build_parser().parse_args(inference))
    from explorer.capture import orchestrator

    assert orchestrator.cached_bundle("mlp", served) is not None
