"""In German every word the UI itself puts on screen is German (issue 9).

Each screen is rendered at 120x40 from the recorded bundle, in German, and its
text is checked against the English value of every label in
`explorer.labels` (words that read the same in both languages, such as
"HLO" or "Layout", are skipped). What the compiler wrote stays as written: the
HLO and kernel code views are blanked before the check, and a label matches
only as a whole word, so `op_type` or `f32[2,26]` never count.
"""

from __future__ import annotations

import re

import pytest

from explorer.labels import LABELS
from explorer.levels import LEVELS
from explorer.views.rows import row_groups

from screens.app import create_app
from screens.help import key_lines

from pilot_support import BUNDLE, needs_bundle, opened, sync

pytestmark = needs_bundle
SIZE = (120, 40)
WIDE = (240, 40)  # the HLO list shows its last column (op_name, or a parameter's role)


def _pattern(english: str) -> re.Pattern:
    """`english` as a whole phrase; `{placeholders}` match any text."""
    parts = re.split(r"\{[a-z_]+\}", english)
    body = ".+?".join(re.escape(part) for part in parts)
    # Not inside a name (`op_shape`, `conv2d_1/Reshape/shape`), and not a TF attribute's own name (`dtype = f32`).
    return re.compile(rf"(?<![\w/-]){body}(?![\w/-]| =)" if english[:1].isalnum() and english[-1:].isalnum()
                      else body)


# English labels that German texts use too: "kleine Filter", "der dtype float32" (course texts).
ALSO_GERMAN = {"Filter", "dtype"}
# Every English label that differs from its German twin and has a word of its own (`+{count} {kinds}`
# is figures and names: it would match any line with a `+`).
ENGLISH = {key: _pattern(english) for key, (english, german) in LABELS.items()
           if english.strip().lower() != german.strip().lower() and english not in ALSO_GERMAN
           and re.search(r"[A-Za-z]", re.sub(r"\{[a-z_]+\}", "", english))}


def english_left(text: str) -> list[str]:
    """The label keys whose English wording appears in `text`."""
    return sorted(key for key, pattern in ENGLISH.items() if pattern.search(text))


# The memory map's allocation rows start `#3   output  40 B`: the kind is XLA's own word.
ALLOCATION_KIND = re.compile(r"#\d+ +\S+")


def screen_text(app) -> str:
    """What the screen shows, with the compiler's own code (HLO text, kernel assembly) and
    allocation kinds blanked."""
    from screens.widgets.code_view import CodeView

    screen = app.screen
    lines = [strip.text for strip in screen._compositor.render_strips()]
    for view in screen.query(CodeView):
        region = view.region
        for y in range(region.y, min(region.bottom, len(lines))):
            line = lines[y].ljust(region.right)
            lines[y] = line[:region.x] + " " * region.width + line[region.right:]
    return ALLOCATION_KIND.sub("", "\n".join(lines))


async def _settled(pilot) -> None:
    await opened(pilot)
    for _ in range(3):  # the lazy side panes and the footer mount after the first frames
        await pilot.pause()


def test_the_pattern_finds_whole_phrases_only():
    assert english_left("weights 1 B  activations 2 B") == ["field.activations", "field.weights"]
    assert "field.shape" not in english_left("op_shape f32[2]")
    assert "text.layer_of" in english_left("cpu  (layer conv2d)")


@pytest.mark.parametrize("mode", LEVELS)
@sync
async def test_every_level_screen_in_german_has_no_english_label(mode):
    app = create_app(BUNDLE, level=mode, target="cpu", lang="de")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        shown = screen_text(app)
        assert english_left(shown) == [], shown
        help_keys = "\n".join(key_lines(app.screen))  # what `?` lists: every key with its tooltip
        assert english_left(help_keys) == [], help_keys
        await pilot.press("question_mark")
        await pilot.pause()
        shown = screen_text(app)
        assert english_left(shown) == [], shown


@sync
async def test_language_key_turns_footer_panes_and_columns_german_at_run_time():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        assert "field.shape" in english_left(screen_text(app)) or "column.instruction" in english_left(
            screen_text(app))  # English first: the check below sees a change
        await pilot.press("L")
        await _settled(pilot)
        shown = screen_text(app)
        assert english_left(shown) == [], shown
        assert "Instruktion" in shown  # a column header
        assert "Ziel" in shown  # a footer key
        await pilot.press("L")
        await _settled(pilot)
        assert "instruction" in screen_text(app)


@sync
async def test_compare_glossary_and_tours_in_german_have_no_english_label():
    app = create_app(BUNDLE, level="layers", target="cpu", select="conv2d", lang="de")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        for key in ("x", "G", "T"):  # compare, glossary, tour list: each opened, checked, closed
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            shown = screen_text(app)
            assert english_left(shown) == [], (key, shown)
            assert english_left("\n".join(key_lines(app.screen))) == [], key
            await pilot.press("escape")
            await pilot.pause()


@sync
async def test_tour_panel_in_german_has_no_english_label():
    from explorer.course.tours import builtin_tour

    app = create_app(BUNDLE, tour=builtin_tour("tensor_bis_register"), lang="de")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        shown = screen_text(app)
        assert english_left(shown) == [], shown


@sync
async def test_hlo_groups_and_a_parameters_role_in_german():
    """The group header rows and a weight's role (its row and the memory pane's `hält`) are German."""
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", select="arg1.1", lang="de")
    async with app.run_test(size=WIDE) as pilot:
        await _settled(pilot)
        shown = screen_text(app)
        assert english_left(shown) == [], shown
        for german in ("5 Parameter", "2 Konstanten", "die Eingaben und Gewichte des Modells",
                       "Gewicht 1 von 2 der Schicht conv2d", "hält  Gewicht 1 von 2 der Schicht conv2d"):
            assert german in shown, german


@sync
async def test_language_key_rewords_roles_and_group_headers_and_keeps_the_folds():
    app = create_app(BUNDLE, level="optimized-hlo", target="cpu", select="arg1.1", lang="en")
    async with app.run_test(size=WIDE) as pilot:
        await _settled(pilot)
        shown = screen_text(app)
        assert "5 parameters" in shown and "weight 1 of 2 of conv2d" in shown  # English first
        table = app.items_table
        constants = next(key for key in row_groups(app.bundle, "optimized-hlo", "cpu") if key.startswith("constants"))
        table.toggle_group(constants)  # opened by the user: the new language must not fold it again
        await pilot.press("L")
        await _settled(pilot)
        shown = screen_text(app)
        assert english_left(shown) == [], shown
        assert "5 Parameter" in shown and "Gewicht 1 von 2 der Schicht conv2d" in shown
        assert "2 Konstanten" in shown and not table.folded(constants)
        await pilot.press("L")
        await _settled(pilot)
        assert "weight 1 of 2 of conv2d" in screen_text(app)


# A filmstrip diff's added and removed lines are the compiler's own text (HLO, graph nodes); its
# heading and `@@ computation (neu)` lines are ours and stay checked.
DIFF_LINE = re.compile(r"^ [+-] .*$", re.MULTILINE)


def filmstrip_text(app) -> str:
    return DIFF_LINE.sub("", screen_text(app))


@pytest.mark.parametrize("target", ["cpu", "tpu:v5e"])
@sync
async def test_the_filmstrip_in_german_has_no_english_label_on_either_film(target):
    """`f` from the HLO level (the target's XLA passes), then `g` (Grappler's film of the
    TensorFlow graph): titles, column headers, diff headings, keys and help in German."""
    app = create_app(BUNDLE, level="layers", target=target, select="conv2d", lang="de")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        for key, film in (("f", "Film: mnist_cnn auf " + target), ("n", "(Bild 1 von"),
                          ("g", "Grappler (TensorFlow-Graph)"), ("n", "(Bild 1 von")):
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
            shown = filmstrip_text(app)
            assert film in shown, (key, shown)
            assert english_left(shown) == [], (key, shown)
            assert english_left("\n".join(key_lines(app.screen))) == [], key
        await pilot.press("g", "w")  # back to XLA's film; follow the layer's convolution to its fusion
        await pilot.pause()
        await pilot.pause()
        shown = filmstrip_text(app)
        # cpu: the convolution stays a library call and its result feeds the bias+ReLU fusion.
        assert ("fusioniert in" in shown or "fließt in" in shown) and " durch " in shown, shown
        assert english_left(shown) == [], shown
        await pilot.press("question_mark")
        await pilot.pause()
        shown = filmstrip_text(app)
        assert "Der Film: das Modul nach jedem Pass" in shown
        assert english_left(shown) == [], shown


@sync
async def test_language_key_rewords_the_filmstrip_and_keeps_its_frame():
    app = create_app(BUNDLE, level="hlo", target="cpu", lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        await pilot.press("f", "n", "n")
        await pilot.pause()
        assert "Filmstrip: mnist_cnn on cpu" in filmstrip_text(app) and "(frame 2 of" in filmstrip_text(app)
        await pilot.press("L")
        await pilot.pause()
        await pilot.pause()
        shown = filmstrip_text(app)
        assert english_left(shown) == [], shown
        assert "Film: mnist_cnn auf cpu" in shown and "(Bild 2 von" in shown and "Instr. vorher" in shown


def test_each_label_key_is_in_one_table_only():
    """The label tables are merged into one: a key in two would silently hide one text."""
    from explorer.labels import compare, graph, keys, passport, screen, session, whatif

    tables = (screen.LABELS, keys.LABELS, compare.LABELS, graph.LABELS, passport.LABELS, whatif.LABELS,
              session.LABELS)
    assert len(LABELS) == sum(len(table) for table in tables)
