"""German numbers (issue 39, item 7): in German the UI writes `27.040 B` and `26,4 KiB`, as a German
reader reads them (`27,040 B` reads as 27.04 bytes), on the screens, in the commands given `--lang de`
and in handouts; English keeps `27,040 B` and `26.4 KiB`. One rule: explorer.labels.numbers, through
the one formatter explorer.views.format. On the recorded mnist_cnn bundle.

What counts as a number written the English way (`ENGLISH_NUMBER`): thousands grouped by commas
(`27,040`), or a decimal point before a unit (`26.4 KiB`, `140.7k`, `3.1 ms`) or after the ratio's
`x` (`x41.9`). The compiler's own notation is not: `f32[1,784]`, `{1,0}`, `T(8,128)`, `convolution.1`.
"""

from __future__ import annotations

import re

import pytest

from explorer.labels.numbers import number
from explorer.views.format import format_bytes, format_count, format_exact_bytes, format_percent, format_seconds

from screens.app import create_app
from screens.cli import main

from pilot_support import BUNDLE, needs_bundle, sync
from tests.conftest import FIXTURES
from tests.test_screens_german import SIZE, _settled, filmstrip_text, screen_text

# Not a dimension of a shape, layout or tile (`[1,784]`, `{1,0}`, `T(8,128)`), nor part of a name.
_NOT_IN_NOTATION = r"(?<![\w\[({,.:/-])"
_NOT_IN_A_NAME = r"(?<![\w.,])"
_UNITS = r" ?(?:KiB|MiB|GiB|k|M|G|s|ms|us|ns|TB/s|GB/s)\b"
ENGLISH_NUMBER = re.compile(
    _NOT_IN_NOTATION + r"\d{1,3}(?:,\d{3})+(?![\d\]})]|,\d)"
    r"|" + _NOT_IN_A_NAME + r"\d+\.\d+" + _UNITS
    + r"|(?<=\bx)\d+\.\d+\b")
GERMAN_NUMBER = re.compile(_NOT_IN_NOTATION + r"\d{1,3}(?:\.\d{3})+(?![\d\]})]|\.\d)"
                           r"|" + _NOT_IN_A_NAME + r"\d+,\d+" + _UNITS + r"|(?<=\bx)\d+,\d+\b")
VARIANTS = FIXTURES / "bundles" / "variants"


def test_the_one_rule_in_both_languages():
    assert (number(27040, ",", "en"), number(27040, ",", "de")) == ("27,040", "27.040")
    assert format_exact_bytes(27040) == "27,040 B (26.4 KiB)"
    assert format_exact_bytes(27040, "de") == "27.040 B (26,4 KiB)"
    assert (format_bytes(1_992_294, "de"), format_count(140_700, "de"), format_seconds(0.0031, "de")) == (
        "1,9 MiB", "140,7k", "3,1 ms")
    assert format_percent(0.25, "de") == "25%" and format_bytes(40, "de") == "40 B"
    assert ENGLISH_NUMBER.findall("27,040 B (26.4 KiB) f32[1,784]{1,0} T(8,128) convolution.1 x41.9") == [
        "27,040", "26.4 KiB", "41.9"]
    assert ENGLISH_NUMBER.findall("27.040 B (26,4 KiB) x41,9 1.234 Instruktionen") == []


# Screens whose lists and panes hold figures: the dense layer's 13,530 parameters and its bytes, the
# fusions' buffers, the memory map's peak, the filmstrip's temp bytes, the compare table.
SCREENS = [("layers", "cpu", "dense", ()), ("optimized-hlo", "cpu", "broadcast_maximum_fusion", ()),
           ("optimized-hlo", "tpu:v5e", None, ()), ("memory", "cpu", None, ()), ("kernels", "gpu:h100", None, ()),
           ("hlo", "cpu", "convolution.1", ("f",)), ("layers", "cpu", "conv2d", ("x",))]


async def _shown(level: str, target: str, select: str | None, keys: tuple[str, ...], lang: str) -> str:
    app = create_app(BUNDLE, level=level, target=target, select=select, lang=lang)
    async with app.run_test(size=SIZE) as pilot:
        await _settled(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause()
        return filmstrip_text(app) if keys == ("f",) else screen_text(app)


@pytest.mark.parametrize("level, target, select, keys", SCREENS,
                         ids=[f"{level}-{target}-{select or ''}{''.join(keys)}" for level, target, select, keys
                              in SCREENS])
@needs_bundle
@sync
async def test_a_screen_in_german_writes_its_figures_the_german_way(level, target, select, keys):
    english = await _shown(level, target, select, keys, "en")
    german = await _shown(level, target, select, keys, "de")
    assert ENGLISH_NUMBER.search(english), english  # the screen shows figures with separators at all
    assert ENGLISH_NUMBER.findall(german) == [], german
    assert GERMAN_NUMBER.search(german), german


def _out(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ("passes", str(BUNDLE)),
    ("passes", str(BUNDLE), "--target", "tpu:v5e"),
    ("diff", str(VARIANTS / "batch1"), str(VARIANTS / "batch64")),
    ("passport", str(BUNDLE), "--layer", "conv2d", "--target", "gpu:h100"),
], ids=["passes-cpu", "passes-tpu", "diff", "passport"])
def test_a_command_with_lang_de_writes_its_figures_the_german_way(capsys, argv):
    english = _out(capsys, *argv, "--lang", "en")
    german = _out(capsys, *argv, "--lang", "de")
    assert ENGLISH_NUMBER.search(english), english
    assert ENGLISH_NUMBER.findall(german) == [], german
    assert GERMAN_NUMBER.search(german), german
    if argv[0] == "passes" and len(argv) == 2:  # the figure: the temp bytes after optimisation
        assert "27.040" in german and "27,040" in english


def test_a_graph_with_lang_de_labels_its_boxes_the_german_way(capsys, tmp_path):
    for lang in ("en", "de"):
        _out(capsys, "graph", str(BUNDLE), "--level", "layers", "--lang", lang, "-o", str(tmp_path / f"{lang}.dot"))
    english, german = ((tmp_path / f"{lang}.dot").read_text(encoding="utf-8") for lang in ("en", "de"))
    assert "<BR/>21.1 KiB" in english and "<BR/>21,1 KiB" in german  # conv2d's output
    assert ENGLISH_NUMBER.findall(german) == []


GERMAN_TOUR = """# title: Die Gewichte der Dichte-Schicht
# model: mnist_cnn
# lang: de

step: level=layers target=cpu select=dense
text: Die Schicht `dense` hat die meisten Parameter.
explain: selected
"""


def test_a_german_handout_writes_its_figures_the_german_way(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))  # no graph picture: the words are the point
    tour = tmp_path / "gewichte.tour"
    tour.write_text(GERMAN_TOUR, encoding="utf-8")
    assert main(["handout", str(tour), str(BUNDLE), "-o", str(tmp_path / "handout")]) == 0
    for document in ("handout.md", "handout.html"):
        text = (tmp_path / "handout" / document).read_text(encoding="utf-8")
        text = re.sub(r"\\(.)", r"\1", text)  # Markdown's escapes
        assert "| 13.530 |" in text or "<td>13.530</td>" in text, document  # the dense layer's parameters, in its row
        assert ENGLISH_NUMBER.findall(text) == [], document
