"""The what-if variants as capture options (`--dtype`, `--remat-layers`, `--xla-flag`), `--vary KEY=A,B`,
and every bad input of them: one `error:` line, exit 2, nothing written or cached."""

from __future__ import annotations

from dataclasses import replace

import pytest

from explorer.capture.cache import cache_key
from explorer.capture.dtype_policy import with_layer_dtypes
from explorer.capture.model_source import resolve as resolve_source
from explorer.capture.options import build_capture_options, variant_words
from explorer.capture.variants import XLA_FLAG_CHOICES, parse_xla_flags, worker_xla_flags
from explorer.capture.vary import split_vary, variants
from explorer.course.tours import capture_options, missing_capture, parse_tour
from explorer.errors import TensorwegError
from explorer.model.bundle import Bundle
from explorer.views.session import mode_text

from tests.conftest import FIXTURES, committed, files_under
from tests.test_cli import assert_one_line_error, run_cli

PLAIN = {"targets": "cpu"}


def test_xla_flags_are_checked_and_sorted_by_name():
    flags = parse_xla_flags(["xla_cpu_enable_fast_math=TRUE", "xla_disable_hlo_passes=fusion,algsimp"])
    assert flags == (("xla_cpu_enable_fast_math", "true"), ("xla_disable_hlo_passes", "algsimp,fusion"))
    assert worker_xla_flags(flags) == "--xla_cpu_enable_fast_math=true --xla_disable_hlo_passes=algsimp,fusion"


@pytest.mark.parametrize("text, fragment", [
    ("xla_gpu_autotune_level=0", "the app knows"),
    ("xla_disable_hlo_passes", "the app knows"),
    ("xla_disable_hlo_passes=layout-assignment", "takes"),
    ("xla_disable_hlo_passes=cse,cse", "each once"),
    ("xla_cpu_enable_fast_math=maybe", "takes true or false"),
])
def test_a_flag_or_value_not_on_the_list_is_refused_with_the_list(text, fragment):
    with pytest.raises(TensorwegError, match=fragment) as raised:
        parse_xla_flags([text])
    if "knows" in fragment:
        for name in XLA_FLAG_CHOICES:
            assert name in str(raised.value)


def test_the_worker_passes_no_flag_the_app_does_not_know():
    with pytest.raises(ValueError):
        worker_xla_flags([["xla_dump_to", "/etc"]])
    with pytest.raises(ValueError):
        worker_xla_flags([["xla_disable_hlo_passes", "fusion --xla_dump_to=/etc"]])


@pytest.mark.parametrize("keywords, fragment", [
    ({"targets": "tpu:v5e", "xla_flags": ["xla_cpu_enable_fast_math=true"]}, "only cpu targets read it"),
    ({"targets": "cpu", "xla_flags": ["xla_disable_hlo_passes=priority-fusion"]}, "only gpu targets"),
    ({"targets": "cpu", "xla_flags": ["xla_gpu_enable_triton_gemm=false"]}, "only gpu targets"),
    ({"targets": "tvm:cpu", "dtype": "bfloat16"}, "compiles the float32 model only"),
    ({"targets": "cpu", "dtype": "float64"}, "bad --dtype"),
    ({"targets": "cpu", "remat_layers": "conv"}, "--remat-layers needs --mode train"),
    ({"targets": "cpu", "mode": "train", "remat_layers": "conv("}, "not a regular expression"),
    ({"targets": "cpu", "donate": True}, "--donate needs --mode train"),
    ({"targets": "cpu", "donate": False}, "--no-donate needs --mode train"),
])
def test_variants_no_target_could_compile_are_refused(keywords, fragment):
    with pytest.raises(TensorwegError, match=fragment):
        build_capture_options(**keywords)


def test_remat_layers_implies_remat():
    options = build_capture_options(targets="tpu:v5e", mode="train", remat_layers="conv")
    assert options.remat and options.remat_layers == "conv"


def test_each_variant_is_a_bundle_of_its_own_in_the_cache():
    source = resolve_source("mnist_cnn")
    plain = build_capture_options(**PLAIN)
    keys = {cache_key(source, build_capture_options(**PLAIN, **extra)) for extra in (
        {}, {"batch": 64}, {"dtype": "bfloat16"}, {"dtype": "float32"},
        {"xla_flags": ["xla_disable_hlo_passes=fusion"]}, {"xla_flags": ["xla_disable_hlo_passes=algsimp"]})}
    assert len(keys) == 6
    # Donation is the training step's default: --donate is the plain train capture, --no-donate its own bundle.
    train = {**PLAIN, "mode": "train"}
    donating = cache_key(source, build_capture_options(**train, donate=True))
    assert donating == cache_key(source, build_capture_options(**train))
    assert cache_key(source, build_capture_options(**train, donate=False)) != donating
    # The key covers what is compiled, not the targets: a bundle grows by targets.
    assert cache_key(source, plain) == cache_key(source, build_capture_options(targets="cpu,tpu:v5e"))


def test_a_dtype_policy_reaches_every_layer_but_the_inputs():
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}}
    config = {"class_name": "Functional", "config": {"layers": [
        {"class_name": "InputLayer", "config": {"dtype": "float32", "name": "image"}},
        {"class_name": "Dense", "config": {"dtype": policy, "name": "dense"}},
        {"class_name": "Sequential", "config": {"dtype": policy, "layers": [
            {"class_name": "Conv2D", "config": {"dtype": policy, "name": "inner"}}]}},
    ]}}
    changed = with_layer_dtypes(config, "mixed_bfloat16")
    layers = changed["config"]["layers"]
    assert layers[0]["config"]["dtype"] == "float32"
    assert layers[1]["config"]["dtype"] == "mixed_bfloat16"
    assert layers[2]["config"]["layers"][0]["config"]["dtype"] == "mixed_bfloat16"
    assert config["config"]["layers"][1]["config"]["dtype"] is policy  # the input is left as it was


def test_the_title_says_which_variant_a_bundle_is():
    bundle = Bundle.open(committed(FIXTURES / "bundles" / "variants" / "no_fusion" / "manifest.json").parent)
    assert variant_words(bundle.manifest.options) == ("xla_disable_hlo_passes=fusion",)
    assert mode_text(bundle) == "xla_disable_hlo_passes=fusion"


def test_the_title_says_the_step_keeps_its_arguments():
    options = build_capture_options(targets="cpu", mode="train", donate=False)
    assert variant_words(options) == ("no donation",)
    assert variant_words(build_capture_options(targets="cpu", mode="train", donate=True)) == ()


# --- --vary ---------------------------------------------------------------------------------------


def test_vary_keeps_a_pass_list_whole():
    assert split_vary("xla-flag=none,xla_disable_hlo_passes=fusion,cse") == (
        "xla-flag", ["none", "xla_disable_hlo_passes=fusion,cse"])


def test_vary_makes_two_checked_variants_that_differ_in_the_key_only():
    first, second = variants("batch=1,64", {**PLAIN, "dtype": "bfloat16"})
    assert (first.label, second.label) == ("batch=1", "batch=64")
    assert (first.options.batch, second.options.batch) == (1, 64)
    assert first.options.dtype == second.options.dtype == "bfloat16"
    donating, keeping = variants("donate=on,off", {**PLAIN, "mode": "train"})
    assert (donating.options.donate, keeping.options.donate) == (True, False)
    plain, flagged = variants("xla-flag=none,xla_disable_hlo_passes=fusion", PLAIN)
    assert plain.options.xla_flags == () and flagged.options.xla_flags == (("xla_disable_hlo_passes", "fusion"),)


def test_vary_mesh_none_2x2_gives_the_shard_to_the_meshed_variant_only():
    """The key's own example (issue 36): `--shard` (or `--layout-map`) divides the 2x2 compile; one chip
    divides nothing, so its variant leaves it out (before, one variant or the other was always refused)."""
    one_chip, meshed = variants("mesh=none,2x2", {**PLAIN, "targets": "tpu:v5e", "shard": "model", "batch": 8})
    assert (one_chip.options.mesh, one_chip.options.shard) == ("", "")
    assert (meshed.options.mesh, meshed.options.shard) == ("2x2", "model")
    with pytest.raises(TensorwegError, match="--mesh needs --shard data or --shard model"):
        variants("mesh=none,2x2", {**PLAIN, "targets": "tpu:v5e", "batch": 8})  # the meshed one needs it


def test_diff_vary_mesh_none_2x2_runs_on_the_cached_captures(empty_workplace, capsys):
    """`tensorweg diff mlp --vary mesh=none,2x2 --shard model ...` on the recorded one-chip and 2x2
    training steps, put where their captures go in the cache: both open, the diff is printed."""
    import shutil

    from explorer.capture.cache import cached_bundle_path
    from explorer.cli.main import main

    arguments = ["--mode", "train", "--optimizer", "sgd", "--batch", "8", "--shard", "model", "--target", "tpu:v5e"]
    base = {**PLAIN, "targets": "tpu:v5e", "mode": "train", "optimizer": "sgd", "batch": 8, "shard": "model"}
    for variant, recorded in zip(variants("mesh=none,2x2", base), ("mlp_one_chip", "mlp_mesh_2x2"), strict=True):
        shutil.copytree(FIXTURES / "bundles" / recorded, cached_bundle_path(resolve_source("mlp"), variant.options))
    assert main(["diff", "mlp", "--vary", "mesh=none,2x2", *arguments]) == 0
    out, err = capsys.readouterr()
    assert "mesh=none vs mesh=2x2" in out and "error" not in err


@pytest.mark.parametrize("text, fragment", [
    ("colour=red,blue", "a key the app knows"),
    ("batch", "a key the app knows"),
    ("batch=64", "give two values"),
    ("batch=1,8,64", "give two values"),
    ("batch=1,", "an empty value"),
    ("batch=1,1", "the same variant"),
    ("batch=one,two", "not a whole number"),
    ("xla-flag=none,off", "the same variant"),
    ("dtype=float32,float64", "bad --dtype"),
    ("remat=off,on", "--remat needs --mode train"),
    ("donate=on,off", "--donate needs --mode train"),
])
def test_bad_vary_is_refused(text, fragment):
    with pytest.raises(TensorwegError, match=fragment):
        variants(text, PLAIN)


# --- the command line: one line, exit 2, nothing written or cached ------------------------------------


@pytest.mark.parametrize("args, fragments", [
    (("diff", "mnist_cnn", "--vary", "colour=red,blue"), ("bad --vary", "batch")),
    (("diff", "mnist_cnn", "--vary", "batch=64"), ("give two values",)),
    (("diff", "mnist_cnn", "--vary", "batch=1,1"), ("the same variant",)),
    (("diff", "mnist_cnn", "--vary", "dtype=float32,bfloat16", "--target", "tvm:cpu"), ("float32 model only",)),
    (("diff", "mnist_cnn", "--vary", "xla-flag=none,xla_bogus=1"), ("the app knows", "xla_disable_hlo_passes")),
    (("diff", "mnist_cnn"), ("needs --vary",)),
    (("inspect", "mnist_cnn", "--level", "layers", "--xla-flag", "xla_bogus=1"), ("the app knows",)),
    (("compare", "mnist_cnn", "--targets", "tpu:v5e", "--xla-flag", "xla_cpu_enable_fast_math=true"),
     ("only cpu targets",)),
    (("capture", "mnist_cnn", "--dtype", "float64"), ("invalid choice",)),
], ids=lambda v: " ".join(v) if isinstance(v, tuple) and v and v[0] in ("diff", "inspect", "compare", "capture")
   else None)
def test_bad_variant_input_is_one_line_and_caches_nothing(args, fragments, empty_workplace):
    cwd, cache = empty_workplace
    assert_one_line_error(run_cli(*args, cwd=cwd), *fragments)
    assert files_under(cache) == [] and files_under(cwd) == []


def test_a_lesson_may_be_written_on_a_dtype_policy():
    header = "# title: T\n# model: mnist_cnn\n# lang: en\n"
    tour = parse_tour(header + "# capture: --dtype bfloat16\nstep: level=hlo\ntext: x\n", "t.tour")
    assert capture_options(tour).dtype == "bfloat16"
    plain = build_capture_options(targets="cpu")
    assert missing_capture(tour, "mnist_cnn", plain) == "--dtype bfloat16"
    bad = parse_tour(header + "# capture: --dtype float64\nstep: level=hlo\ntext: x\n", "t.tour")
    with pytest.raises(TensorwegError, match="t.tour: # capture: bad --dtype 'float64'"):
        capture_options(bad)


def test_a_lesson_may_be_written_on_xla_flags():
    """`--xla-flag` in a `# capture:` header: repeatable as on the command line, checked against the
    app's list, and a bundle without the flags (or with other ones) lacks what the lesson needs."""
    header = "# title: T\n# model: mnist_cnn\n# lang: en\n"
    both = ("--xla-flag xla_disable_hlo_passes=fusion --xla-flag xla_cpu_enable_fast_math=true "
            "--targets cpu")
    tour = parse_tour(header + f"# capture: {both}\nstep: level=hlo\ntext: x\n", "t.tour")
    options = capture_options(tour)
    assert options.xla_flags == (("xla_cpu_enable_fast_math", "true"), ("xla_disable_hlo_passes", "fusion"))
    assert missing_capture(tour, "mnist_cnn", options) == ""
    plain = build_capture_options(targets="cpu")
    assert missing_capture(tour, "mnist_cnn", plain) == ("--xla-flag xla_disable_hlo_passes=fusion "
                                                         "--xla-flag xla_cpu_enable_fast_math=true")
    fusion_only = parse_tour(header + "# capture: --xla-flag xla_disable_hlo_passes=fusion\nstep: level=hlo\n"
                             "text: x\n", "t.tour")
    assert missing_capture(parse_tour(header + "step: level=hlo\ntext: x\n", "t.tour"), "mnist_cnn",
                           capture_options(fusion_only)) == ""  # a lesson without a header takes any capture
    no_header_but_mode = parse_tour(header + "# capture: --targets cpu\nstep: level=hlo\ntext: x\n", "t.tour")
    assert missing_capture(no_header_but_mode, "mnist_cnn", capture_options(fusion_only)) == "without --xla-flag"


@pytest.mark.parametrize(("capture", "fragment"), [
    ("--xla-flag xla_gpu_everything=true", "bad --xla-flag 'xla_gpu_everything=true': the app knows "),
    ("--xla-flag xla_disable_hlo_passes=nosuchpass", "bad --xla-flag 'xla_disable_hlo_passes=nosuchpass'"),
    ("--xla-flag", "capture option '--xla-flag' needs a value"),
])
def test_a_bad_xla_flag_in_a_lesson_header_is_one_line_naming_the_tour(capture, fragment):
    header = "# title: T\n# model: mnist_cnn\n# lang: en\n"
    tour = replace(parse_tour(header + "step: level=hlo\ntext: x\n", "t.tour"), capture=capture)
    with pytest.raises(TensorwegError) as caught:
        capture_options(tour)
    assert str(caught.value).startswith("t.tour: # capture: ") and fragment in str(caught.value)
    assert "\n" not in str(caught.value)
