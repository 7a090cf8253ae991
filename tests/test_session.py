"""What the app's state means, decided without Textual: level statuses and notices, the title and
progress lines, where `t` goes, which targets `c` captures, where a tour step leads, which tabs the
device pane has (`explorer.views.session`, `explorer.course.lessons.tour_step_place`,
`explorer.targets.device_tabs`). The app draws these answers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from explorer.capture.queue import QueuePlace
from explorer.course.lessons import TourPlace, tour_step_place
from explorer.course.tours import builtin_tour
from explorer.levels import TARGET_LEVELS
from explorer.model.bundle import Bundle
from explorer.targets import DEFAULT_TARGETS, device_kind, device_tabs, parse_targets
from explorer.views.rows import rows
from explorer.views.session import CAPTURED, STARTED, Session, StatusNote, TargetSwitch, failed
from explorer.views.trace import descend, down, layer_of

from pilot_support import BUNDLE, needs_bundle


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    return Bundle.open(BUNDLE)


def after(session: Session, switch: TargetSwitch) -> Session:
    """The session once the app took `switch` (as `TensorwegApp.action_next_target` does)."""
    return replace(session, target=switch.target, selections={**session.selections, **switch.selections},
                   followed_layers={**session.followed_layers, **switch.followed_layers})


# --- statuses and notices -------------------------------------------------------------------


def test_before_any_bundle_the_status_says_what_the_app_is_doing():
    assert Session().level_status("layers") == ("pending", "")
    assert Session().level_notice("layers") == "Keras layers not captured yet for cpu."
    capturing = Session(model_spec="mnist_cnn")  # the capture starts with the app
    assert capturing.level_status("hlo") == ("running", "")
    assert capturing.level_notice("hlo") == "Capturing HLO for cpu..."
    opening = Session(opening=Path("/somewhere/mnist_cnn"))
    assert opening.level_status("kernels") == ("opening", "")
    assert opening.level_notice("kernels") == "Opening bundle mnist_cnn..."
    broken = Session(load_error="manifest.json is not JSON")
    assert broken.level_notice("layers") == "Keras layers failed for cpu: manifest.json is not JSON."
    assert not broken.level_ready("layers")


def test_the_capture_progress_decides_a_level_and_names_what_still_works():
    session = Session(model_spec="mnist_cnn", target="gpu:h100", progress={
        ("layers", ""): CAPTURED, ("graph", ""): CAPTURED, ("hlo", "gpu:h100"): failed("worker exited"),
        ("optimized-hlo", "gpu:h100"): STARTED})
    assert session.level_status("layers") == ("ok", "")
    assert session.level_status("hlo") == ("failed", "worker exited")
    assert session.level_notice("hlo") == ("HLO failed for gpu:h100: worker exited. "
                                           "Still usable: Keras layers, TensorFlow graph (keys 1-5).")
    assert session.level_notice("optimized-hlo").startswith("Capturing Optimized HLO for gpu:h100... Still usable:")
    assert session.level_notice("layers") == ""
    # The per-target levels are keyed by the target: another target's progress says nothing here.
    assert replace(session, target="cpu").level_status("hlo") == ("running", "")
    assert not session.level_ready("layers")  # reported, but no bundle to show yet


@needs_bundle
def test_a_finished_bundle_answers_from_its_manifest(bundle):
    session = Session(bundle=bundle, target="tpu:v5e")
    assert session.has_manifest() and session.captured_targets() == ("cpu", "gpu:h100", "tpu:v5e")
    assert all(session.level_ready(level) for level in ("layers", "graph", "hlo", "optimized-hlo", "kernels"))
    assert session.level_notice("kernels") == ""
    assert Session(requested_targets=("cpu", "tpu:v5e")).captured_targets() == ("cpu", "tpu:v5e")


# --- the lines above the list ------------------------------------------------------------------


@needs_bundle
def test_the_title_line_names_model_level_target_and_the_last_three_steps_of_the_trail(bundle):
    session = Session(bundle=bundle, target="gpu:h100")
    assert session.title_line("optimized-hlo") == "mnist_cnn | 4 Optimized HLO | gpu:h100"
    assert session.title_line("memory") == "mnist_cnn | 4 Memory | gpu:h100"  # memory sits beside 4
    trail = (("layers", "conv2d"), ("graph", "mnist_cnn_1/conv2d_1/convolution"), ("hlo", "convolution.1"),
             ("optimized-hlo", "convolution.1"))
    deep = replace(session, trail=trail, lang="de")
    assert deep.title_line("kernels") == ("mnist_cnn | 5 Kernel | gpu:h100 | Pfad: convolution > convolution.1 > "
                                          "convolution.1")


def test_the_title_line_before_a_bundle_names_what_is_coming():
    assert Session().title_line("layers") == "no model | 1 Keras layers | cpu"
    assert Session(model_spec="model.keras").title_line("graph") == "model.keras | 2 TensorFlow graph | cpu"
    assert Session(opening=Path("/x/mnist_cnn")).title_line("hlo") == "mnist_cnn | 3 HLO | cpu"
    # A model's cached bundle is a folder named by a hash: the title names the model asked for.
    cached = Session(opening=Path("/cache/bundles/39c76b306fd51ae943ad"), model_spec="mnist_cnn")
    assert cached.title_line("hlo") == "mnist_cnn | 3 HLO | cpu"
    assert cached.level_notice("hlo") == "Opening bundle mnist_cnn..."


def test_the_progress_line_counts_what_is_captured_names_what_failed_then_what_runs():
    assert Session().progress_line() == ""
    session = Session(progress={("layers", ""): CAPTURED, ("hlo", "cpu"): STARTED,
                                ("graph", ""): failed("no graph")})
    assert session.progress_line() == "capture: 1 ok  failed: graph  hlo 0/1.."
    german = replace(session, lang="de")
    assert german.progress_line() == "Erfassung: 1 fertig  fehlgeschlagen: graph  hlo 0/1.."
    waiting = replace(session, queue_place=QueuePlace(ahead=2, running=1, slots=1))
    assert waiting.progress_line() == "capture waiting for a slot: 2 ahead (1 of 1 running); C cancels"


def default_capture_reports(failing: tuple[str, str] | None = None):
    """The progress of a capture for the three default targets after each report, in the order its
    workers send them: layers and graph, then each target's levels one after the other (the targets'
    workers side by side), `failing` failing instead of being captured."""
    progress: dict = {}
    steps = [(("layers", ""), STARTED), (("graph", ""), STARTED), (("layers", ""), CAPTURED)]
    for level in TARGET_LEVELS:
        for target in DEFAULT_TARGETS:
            steps.append(((level, target), STARTED))
        for target in DEFAULT_TARGETS:
            done = failed("worker exited") if (level, target) == failing else CAPTURED
            steps.append(((level, target), done))
    steps.append((("graph", ""), CAPTURED))
    for key, state in steps:
        progress[key] = state
        yield dict(progress)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("failing", [None, ("kernels", "tpu:v5e")], ids=["all-captured", "one-failed"])
def test_the_progress_line_of_a_default_capture_fits_80_columns_at_every_report(lang, failing):
    """Issue 39: one mark per level and target wrapped to a second line at 80 columns (the line has a
    column of padding on each side) and the last targets' marks never showed."""
    lines = [Session(progress=progress, lang=lang).progress_line() for progress in default_capture_reports(failing)]
    assert max(len(line) for line in lines) <= 78, max(lines, key=len)
    if failing is not None:
        assert "kernels@tpu:v5e" in lines[-1]


# --- `t` and `c` --------------------------------------------------------------------------------


@needs_bundle
def test_t_goes_round_the_targets_and_comes_back_to_the_same_item(bundle):
    session = Session(bundle=bundle, target="cpu", selections={"optimized-hlo": "convolution.1",
                                                               "layers": "conv2d"})
    seen = []
    for _ in range(3):
        switch = session.next_target()
        assert "layers" not in switch.selections  # a target-free level keeps its selection
        session = after(session, switch)
        seen.append((session.target, session.selections["optimized-hlo"]))
    assert seen == [("gpu:h100", "cudnn-conv-bias-activation.3"), ("tpu:v5e", "fusion.11"),
                    ("cpu", "convolution.1")]
    followed = session.followed_layers["optimized-hlo"]
    assert (followed.made, followed.layer) == ("convolution.1", "conv2d")


@needs_bundle
def test_t_starts_at_the_top_of_the_list_where_the_layer_has_nothing_and_follows_it_on(bundle):
    session = Session(bundle=bundle, target="cpu", selections={"kernels": "wrapped_reduce-window"})
    switch = session.next_target()
    assert switch.target == "gpu:h100"
    assert switch.selections["kernels"] == "wrapped_transpose"  # max_pooling2d has no GPU kernel of its own
    followed = switch.followed_layers["kernels"]
    assert (followed.made, followed.layer) == ("wrapped_transpose", "max_pooling2d")


@needs_bundle
@pytest.mark.parametrize("level", ["hlo", "optimized-hlo", "kernels"])
def test_t_round_every_target_comes_back_to_the_item_it_started_on(bundle, level):
    """Every item of every per-target level: cpu -> gpu -> tpu -> cpu lands on the item it left
    (the layer's nearest item on the way, the very one back home)."""
    for item in rows(bundle, level, "cpu"):
        session = Session(bundle=bundle, target="cpu", selections={level: item.name})
        for _ in bundle.targets:
            session = after(session, session.next_target())
        assert (session.target, session.selections[level]) == ("cpu", item.name)


@needs_bundle
def test_t_forgets_the_way_home_once_the_learner_picks_another_item(bundle):
    start = Session(bundle=bundle, target="cpu", selections={"optimized-hlo": "convolution.1"})
    on_gpu = after(start, start.next_target())
    dense = next(item.name for item in rows(bundle, "optimized-hlo", "gpu:h100")
                 if layer_of(bundle, "optimized-hlo", item.name, "gpu:h100") == "dense")
    moved = replace(on_gpu, selections={"optimized-hlo": dense})  # on gpu, the learner moves on
    for _ in bundle.targets:
        moved = after(moved, moved.next_target())
        assert layer_of(bundle, "optimized-hlo", moved.selections["optimized-hlo"], moved.target) == "dense"
    assert moved.target == "gpu:h100" and moved.selections["optimized-hlo"] == dense


@needs_bundle
def test_t_with_one_target_goes_nowhere_and_an_unknown_target_starts_at_the_first(bundle):
    assert Session(requested_targets=("cpu",)).next_target() is None
    assert Session(bundle=bundle, target="tvm:cpu").next_target().target == "cpu"


@needs_bundle
def test_a_number_key_carries_the_selection_down_as_enter_does_and_up_to_what_it_implements(bundle):
    on_dense = Session(bundle=bundle, target="cpu", selections={"layers": "dense", "graph": "image",
                                                                 "optimized-hlo": "convolution.1"})
    graph_op = on_dense.jump_question("layers", "graph").answer()
    assert layer_of(bundle, "graph", graph_op, "cpu") == "dense"  # `2`: dense's TF op, not `image`
    assert graph_op == descend(bundle, "layers", "dense", "cpu").select  # where Enter lands
    fusion = on_dense.jump_question("layers", "optimized-hlo").answer()  # `4`: dense's optimized HLO
    assert layer_of(bundle, "optimized-hlo", fusion, "cpu") == "dense" and fusion != "convolution.1"
    for target in bundle.targets:
        there = replace(on_dense, target=target).jump_question("layers", "kernels").answer()
        assert layer_of(bundle, "kernels", there, target) == "dense", target
    # up: from an HLO instruction `1` lands on its layer, `2` on an op it implements
    on_conv = Session(bundle=bundle, target="cpu", selections={"hlo": "convolution.1", "layers": "dense"})
    assert on_conv.jump_question("hlo", "layers").answer() == "conv2d"
    assert "convolution.1" in down(bundle, "graph", on_conv.jump_question("hlo", "graph").answer(), "cpu")
    # and back: `4` then `3` returns to the instruction the learner had, not to the first one
    back = replace(on_conv, selections={"hlo": "convolution.1", "optimized-hlo": "convolution.1"})
    assert back.jump_question("optimized-hlo", "hlo").answer() == "convolution.1"
    assert Session(bundle=bundle).jump_question("layers", "hlo").answer() == ""  # nothing selected: the level's own


def test_a_status_line_is_shown_only_where_it_was_made():
    note = StatusNote("2 items implement conv2d", "hlo", "convolution.1", "en")
    here = Session(selections={"hlo": "convolution.1"}, note=note)
    assert here.status_line("hlo") == note
    assert here.status_line("optimized-hlo") is None  # another level
    assert replace(here, selections={"hlo": "add.2"}).status_line("hlo") is None  # another item
    assert replace(here, lang="de").status_line("hlo") is None  # after L: words of the other language
    assert Session(selections={"hlo": "convolution.1"}).status_line("hlo") is None


@needs_bundle
def test_c_captures_the_default_targets_neither_asked_for_nor_held(bundle):
    fresh = Session(requested_targets=("cpu",))
    assert fresh.missing_targets() == ("gpu:h100", "tpu:v5e")
    assert fresh.targets_to_capture() == ("cpu", "gpu:h100", "tpu:v5e")
    held = Session(bundle=bundle, requested_targets=("tvm:cpu", "cpu"))
    assert held.missing_targets() == ()
    assert held.targets_to_capture() == ("tvm:cpu", "cpu", "gpu:h100", "tpu:v5e")


# --- tours ----------------------------------------------------------------------------------------


@needs_bundle
def test_a_tour_step_leads_to_its_level_and_target_and_the_item_its_selector_picks(bundle):
    tour = builtin_tour("tensor_to_registers")
    session = Session(bundle=bundle, target="tpu:v5e")  # wherever the learner was
    assert tour_step_place(session, tour.steps[0]) == TourPlace("layers", "cpu", "conv2d")
    assert tour_step_place(session, tour.steps[3]) == TourPlace("hlo", "cpu", "convolution.1")
    assert tour_step_place(session, tour.steps[9]) == TourPlace("kernels", "gpu:h100", "cudnn-conv-bias-activation.3")


def test_a_tour_step_selects_nothing_where_its_level_is_not_ready():
    step = builtin_tour("tensor_to_registers").steps[3]
    assert tour_step_place(Session(), step) == TourPlace("hlo", "cpu", None)
    running = Session(model_spec="mnist_cnn", progress={("hlo", "cpu"): STARTED})
    assert tour_step_place(running, step).selection is None


# --- the device pane's tabs -------------------------------------------------------------------


def test_the_device_tabs_are_the_device_kinds_each_with_its_default_target():
    assert [(tab.kind, tab.title, tab.default_target) for tab in device_tabs()] == [
        ("cpu", "CPU", "cpu"), ("gpu", "GPU", "gpu:h100"), ("tpu", "TPU", "tpu:v5e")]
    assert [device_kind(name) for name in ("tvm:cpu", "gpu:a100", "tpu:v6e", "npu:x")] == ["cpu", "gpu", "tpu", "npu"]
    assert parse_targets("gpu, tpu,cpu") == ("gpu:h100", "tpu:v5e", "cpu")  # a bare kind is its default


def test_a_number_key_leaves_a_walk_over_thousands_of_items_to_a_worker(tmp_path, monkeypatch):
    """`1` on a kernel holding all of a deep model's fusions traced them all up to their layers on the
    UI thread (70 ms alone, 240 ms beside the level's loading threads) to learn whether the layer the
    learner had selected still belongs. Now the layer's own tables answer (its fusions, and whether
    one of them is in that kernel), on a thread that only reads, for the first layer as for the last.
    A layer holding more fusions than the walk limit is still refused there (the session then asks a
    worker, `SessionService.jump`), and the worker's answer is the one the UI thread would find."""
    from deep_bundle import write_deep_bundle

    from explorer.model import built
    from explorer.model.built import NotBuilt, only_read

    deep = Bundle.open(write_deep_bundle(tmp_path / "deep", 1_200, one_part=True))

    def question(kept: str):
        selections = {"kernels": "part_00", "layers": kept}
        return Session(bundle=deep, target="cpu", selections=selections).jump_question("kernels", "layers")

    assert question("dense_0").answer() == "dense_0"  # a worker: reads the tables it needs
    with only_read():
        assert question("dense_0").answer() == "dense_0"
        assert question("dense_1199").answer() == "dense_1199"
        assert question("no_such_layer").answer() == layer_of(deep, "kernels", "part_00", "cpu") != ""
    with monkeypatch.context() as patch:
        patch.setattr(built, "WALK_LIMIT", 0)  # as if dense_0 held more fusions than the limit
        with pytest.raises(NotBuilt), only_read():
            question("dense_0").answer()
        assert question("dense_0").answer() == "dense_0"
    # A small model's jump is still answered on the UI thread, in the key's own frame.
    small = Session(bundle=Bundle.open(BUNDLE), target="cpu", selections={"hlo": "convolution.1", "layers": "dense"})
    small.jump_question("hlo", "layers").answer()  # the tables read
    with only_read():
        assert small.jump_question("hlo", "layers").answer() == "conv2d"
