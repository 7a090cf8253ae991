"""The course in the UI: tours, glossary, language switch, and `tensorweg tour`.

Fed the recorded bundle tests/fixtures/bundles/mnist_cnn (real compiler output) and the
built-in tour `tensor_to_registers`, which was written for (and checked against) mnist_cnn.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.course.lessons import tour_step_place
from explorer.course.tours import builtin_tour
from explorer.texts.glossary import glossary_entry, search_glossary
from explorer.texts.lookup import explain

from screens.app import create_app
from screens.glossary import GlossaryScreen
from screens.tour import TourListScreen, TourScreen
from screens.widgets.item_table import ItemTable

from pilot_support import BUNDLE, needs_bundle, sync, wait_for_jumps

ROOT = Path(__file__).resolve().parent.parent
TOUR = "tensor_to_registers"
pytestmark = needs_bundle


def level_table(app) -> ItemTable | None:
    """The item table of the level under the tour panel (memory has none)."""
    return app.items_table


async def settle(pilot) -> None:
    await pilot.app.opened.wait()  # the bundle is read in a worker after the first frame
    for _ in range(3):  # a step pops the panel, switches level, pushes a new panel
        await pilot.pause()
    await wait_for_jumps(pilot)


@sync
async def test_tour_steps_forward_and_back_move_level_target_and_selection_as_written():
    tour = builtin_tour(TOUR)
    app = create_app(BUNDLE, tour=tour)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        seen = []
        for index, step in enumerate(tour.steps):
            assert isinstance(app.screen, TourScreen) and app.screen.index == index
            assert (app.level, app.target) == (step.level, step.target)
            wanted = tour_step_place(app.session.now, step).selection
            assert wanted is not None, f"line {step.line} selects nothing in the recorded bundle"
            assert app.screen.selected == wanted
            table = level_table(app)
            if table is not None:
                assert table.current is not None and table.current.name == wanted
            seen.append((app.level, wanted))
            await pilot.press("n" if index % 2 else "right")
            await settle(pilot)
        assert app.screen.index == len(tour.steps) - 1  # `n` on the last step stays there
        for index in range(len(tour.steps) - 2, -1, -1):
            await pilot.press("p" if index % 2 else "left")
            await settle(pilot)
            assert (app.level, app.screen.selected) == seen[index]
        # The selectors mean what they say on the real bundle.
        assert seen[0] == ("layers", "conv2d")
        assert app.trace.layer_of("hlo", seen[3][1], "cpu") == "conv2d"
        module = app.bundle.hlo_module("cpu", optimized=True)
        fused = next(i for _, i in module.all_instructions() if i.name == seen[4][1])
        assert fused.fusion_kind == "kLoop"
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, TourScreen) and app.level == "layers"


@sync
async def test_tour_panel_shows_step_count_text_and_explanation():
    tour = builtin_tour(TOUR)
    app = create_app(BUNDLE, tour=tour, lang="de")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen
        assert panel.query_one("#tour-box").border_subtitle == f"Schritt 1 von {len(tour.steps)}"
        assert "Conv2D" in panel.explanation()  # explain: layer:Conv2D, in the tour's language
        await pilot.press("L")
        await pilot.pause()
        assert app.screen.query_one("#tour-box").border_subtitle == f"Step 1 of {len(tour.steps)}"


@sync
async def test_tour_list_starts_the_chosen_builtin_tour():
    app = create_app(BUNDLE, level="hlo")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await pilot.pause()
        await pilot.press("T")
        await pilot.pause()
        listing = app.screen
        assert isinstance(listing, TourListScreen)
        position = [name for name, _ in listing.tours].index(TOUR)
        await pilot.press(*["down"] * position, "enter")
        await settle(pilot)
        assert isinstance(app.screen, TourScreen) and app.screen.tour.title == builtin_tour(TOUR).title
        assert app.level == "layers"


@sync
async def test_tour_list_offers_only_lessons_the_bundle_has_the_capture_for():
    """mnist_cnn's bundle is one inference call per target: the lessons written for other models
    say which model they are for (and the command that opens them on it) instead of starting, and
    so do the two-compiler one, which visits tvm:cpu, and the what-if one, written on batch 64;
    Enter on one of them starts nothing."""
    app = create_app(BUNDLE, level="hlo")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await pilot.pause()
        await pilot.press("T")
        await pilot.pause()
        listing = app.screen
        options = listing.query_one("#tour-list")
        shown = {options.get_option_at_index(i).id: options.get_option_at_index(i)
                 for i in range(options.option_count)}
        offered = {name for name, option in shown.items() if not option.disabled}
        assert offered == {TOUR}  # the only English lesson written for mnist_cnn's inference capture
        assert all(builtin_tour(name).model == "mnist_cnn" for name in offered)
        assert "--batch 64" in str(shown["what_if"].prompt) and shown["what_if"].disabled
        four = str(shown["four_chips"].prompt)
        assert "for mlp: start it with tensorweg tour four_chips mlp" in four
        assert "for tiny_transformer: start it with tensorweg tour memory_and_work tiny_transformer" \
            in str(shown["memory_and_work"].prompt)
        assert "needs the capture --targets tvm:cpu" in str(shown["two_compilers"].prompt)
        # the lessons that need another capture come last: moving past the others cannot reach them
        await pilot.press(*["down"] * len(shown), "enter")
        await pilot.pause()
        assert shown[options.get_option_at_index(options.highlighted).id].disabled is False
        assert app.screen is listing or isinstance(app.screen, TourScreen)
        if isinstance(app.screen, TourScreen):
            assert app.screen.tour.model == "mnist_cnn"


@sync
async def test_glossary_search_filters_terms_and_shows_the_definition():
    app = create_app(BUNDLE, level="layers")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await pilot.pause()
        await pilot.press("G")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GlossaryScreen)
        everything = len(screen.terms)
        await pilot.press(*"fusion")
        await pilot.pause()
        assert 0 < len(screen.terms) < everything
        assert screen.terms == [e.term for e in search_glossary("fusion", "en")]
        assert screen.terms[0] == "Fusion"
        shown = str(screen.query_one("#glossary-definition").render())
        assert glossary_entry("Fusion", "en").definition[:40] in shown.replace("\n", " ")
        await pilot.press("down")
        await pilot.pause()
        shown = str(screen.query_one("#glossary-definition").render())
        assert screen.terms[1] in shown
        await pilot.press(*"zzzq")
        await pilot.pause()
        assert screen.terms == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.level == "layers" and not isinstance(app.screen, GlossaryScreen)


@sync
async def test_language_switch_changes_labels_and_explanation_text():
    app = create_app(BUNDLE, level="layers", select="conv2d", lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await pilot.pause()
        screen = app.screen

        def explanation_text() -> str:
            return screen.query_one("#explanation").plain  # the text as the pane draws it

        english = explanation_text()
        assert screen.query_one("#explain-box").border_title == "Explanation"
        await pilot.press("L")
        await pilot.pause()
        assert app.lang == "de"
        assert screen.query_one("#explain-box").border_title == "Erklärung"
        assert screen.query_one("#memory-box").border_title == "Speicherlayout"
        assert "Keras-Schichten" in str(screen.query_one("#title").render())
        german = explanation_text()
        assert german != english
        # Both are the course's Conv2D text, each in its language.
        assert explain("layers", ["layer:Conv2D"], "cpu", "de").title in german
        assert explain("layers", ["layer:Conv2D"], "cpu", "en").title in english
        await pilot.press("L")
        await pilot.pause()
        assert explanation_text() == english
        await pilot.press("G")
        await pilot.pause()
        assert app.screen.lang == "en"


@sync
async def test_screens_opened_after_the_switch_are_labelled_in_the_new_language():
    app = create_app(BUNDLE, level="layers", lang="de")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one("#device-box").border_title == "Gerätezuordnung"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "screens.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_malformed_tour_is_one_error_line_with_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.tour"
    bad.write_text("# title: T\n# model: mnist_cnn\n# lang: en\n\nstep: level=hlo2\ntext: x\n", encoding="utf-8")
    result = run_cli("tour", str(bad), str(BUNDLE))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"error: {bad}:5:13: unknown level 'hlo2' "
                                          "(known: layers, graph, hlo, optimized-hlo, kernels, memory)"]
    assert result.stdout == ""


def test_cli_unknown_tour_name_lists_the_builtin_ones():
    result = run_cli("tour", "no_such_tour", str(BUNDLE))
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown tour 'no_such_tour' (try: ")
    assert TOUR in result.stderr and len(result.stderr.splitlines()) == 1


# --- snapshots (80x24): what the learner sees -------------------------------------------


def test_snapshot_tour_step_on_optimized_hlo(snap_compare):
    """Step 5 of 9 of 'A tensor's way down to the registers' at 80x24: the optimized HLO
    list above with broadcast_maximum_fusion (the conv's kLoop fusion) selected; the tour
    panel below titled with the tour, 'Step 5 of 9' in its bottom border, the step's text
    about bias and ReLU being fused, the kLoop fusion explanation, and the n/p/q keys."""
    app = create_app(BUNDLE, tour=builtin_tour(TOUR))
    assert snap_compare(app, press=["n", "n", "n", "n"], run_before=settle, terminal_size=(80, 24))


def test_snapshot_german_tour_step(snap_compare):
    """The German lesson 'tensor_bis_register' at step 4 at 80x24: the tour panel speaks German
    (its title, 'Schritt 4 von ...', the step text) and so do the pane titles above it."""
    app = create_app(BUNDLE, tour=builtin_tour("tensor_bis_register"), lang="de")
    assert snap_compare(app, press=["n", "n", "n"], run_before=settle, terminal_size=(80, 24))


@pytest.mark.parametrize("lang", ["en", "de"])
def test_snapshot_glossary(snap_compare, lang):
    """Glossary over the layers screen at 80x24, searched for 'fusion': the term list on the
    left (Fusion first), Fusion's definition and 'See also' (German: 'Siehe auch') on the
    right; the box is titled 'Glossary' / 'Glossar'."""
    app = create_app(BUNDLE, level="layers", lang=lang)
    assert snap_compare(app, press=["G", *"fusion"], run_before=settle, terminal_size=(80, 24))



@sync
async def test_one_panel_moves_through_the_steps_and_the_explorer_below_finishes_its_frames():
    """Textual gives "after the next refresh" work (`call_after_refresh`) to the screen on top: the
    explorer's selection once its new rows are painted, its code view's mark. A panel popped and pushed
    per step dropped that work (the optimized HLO stayed unmarked at line 1, and
    test_snapshot_question_answered_wrong failed now and then under load); the one panel stays on top
    for the whole tour, so the work runs: after `n` onto a new level the code marks the selection."""
    from screens.widgets.code_view import CodeView

    app = create_app(BUNDLE, tour=builtin_tour(TOUR), tour_step=3)  # step 4: the HLO level
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        panel = app.screen
        await pilot.press("n")  # step 5: the optimized HLO, rows it had not shown before
        await settle(pilot)
        assert app.screen is panel and panel.index == 4 and app.level == "optimized-hlo"
        item = app.items_table.current
        code = app.explorer.view.query_one("#code", CodeView)
        assert item is not None and item.name == panel.selected and item.line > 1
        assert code.marked == {item.line}


@sync
async def test_keys_typed_before_the_next_step_is_shown_reach_its_panel_in_order():
    """`n` shows the next step on the app's loop; keys typed before it is shown reached the old
    panel: `n n` showed one step, `n a` answered the step before the question (the snapshot test
    pressing `n` five times and `a` failed so under load). Here both keys reach the old panel."""
    app = create_app(BUNDLE, tour=builtin_tour(TOUR), tour_step=3)  # step 4; step 6 asks
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(pilot)
        panel = app.screen
        panel.action_step(1)  # `n`: step 5, on its way...
        panel.action_step(1)  # ...when `n` again and
        panel.action_answer()  # `a` reach this panel
        await settle(pilot)
        assert isinstance(app.screen, TourScreen) and app.screen.index == 5
        assert "Not quite." in str(app.screen.query_one("#tour-feedback").render())
