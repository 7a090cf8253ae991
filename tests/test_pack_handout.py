"""`tensorweg handout TOUR MODEL -o DIR`: a lesson as a folder (Markdown, HTML, one SVG per step).

Fed the recorded bundle tests/fixtures/bundles/mnist_cnn (real compiler output). The pictures
are real Textual screenshots (about a second each), so the handouts made here use short
two-step lessons; the words of a whole built-in lesson are checked without pictures.
"""

from __future__ import annotations

import html
import os
import re
import shlex
from pathlib import Path

import pytest

from explorer.cli.handout_command import find_tour
from explorer.course.handout import handout_steps, render_html
from explorer.course.handout_markdown import escape_markdown, render_markdown
from explorer.course.tours import builtin_tour
from explorer.labels import label
from explorer.model.bundle import Bundle

from screens.cli import main

from tests.conftest import FIXTURES
from tests.test_screens_german import english_left

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
SHORT = {
    "en": """# title: Two steps down
# model: mnist_cnn
# lang: en

step: level=layers target=cpu select=conv2d
text: The layer `conv2d` is where the tensor starts.
explain: selected

step: level=optimized-hlo select=layer:conv2d,kind:kLoop
text: Bias and ReLU are **one** loop now.
ask: select=layer:conv2d,kind:kLoop
hint: Look for a loop fusion.
""",
    "de": """# title: Zwei Schritte abwärts
# model: mnist_cnn
# lang: de

step: level=layers target=cpu select=conv2d
text: Die Schicht `conv2d` ist der Anfang des Tensors.
explain: selected

step: level=optimized-hlo select=layer:conv2d,kind:kLoop
text: Bias und ReLU sind jetzt **eine** Schleife.
ask: select=layer:conv2d,kind:kLoop
hint: Suche die Schleifenfusion.
""",
}
# What the two steps show in the recorded bundle: their level and the item they select.
SHOWN = (("layers", "conv2d"), ("optimized-hlo", "broadcast_maximum_fusion"))
HOSTILE = """# title: <script>alert("title")</script> & co
# model: mnist_cnn
# lang: de

step: level=optimized-hlo target=tpu:v5e select=layer:conv2d,kind:convolution
text: Hier steht <b>kein</b> Markup, [kein Link](http://example.com), aber `code` und **fett**.
ask: select=layer:conv2d,kind:kLoop
hint: Suche die <i>Fusion</i>.
"""
# German words of the course texts that spell an English label: "Shared Memory" (NVIDIA's term),
# "des Kernels" (genitive), "also" (German "so").
GERMAN_TOO = re.compile(r"Shared Memory|des Kernels|\balso\b")


def _tour_file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.tour"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def handouts(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """The short lesson's handout in each language: lang -> (tour file, handout folder).

    Made where Graphviz cannot be found (an empty PATH): the unit lane runs without it, and each step
    then says why its graph is missing (tests/test_graph_e2e.py makes one with Graphviz)."""
    made = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(tmp_path_factory.mktemp("no-graphviz")))
        for lang, text in SHORT.items():
            root = tmp_path_factory.mktemp(f"handout-{lang}")
            tour = _tour_file(root / "tours", "short", text)
            out = root / "handout"
            assert main(["handout", str(tour), str(BUNDLE), "-o", str(out), "--lang", lang]) == 0
            made[lang] = (tour, out)
    return made


def _svg_text(svg: str) -> str:
    """The words of a Textual SVG screenshot (its text nodes, spaces as they are drawn)."""
    return html.unescape(" ".join(re.findall(r">([^<>]*)</text>", svg))).replace("\xa0", " ")


def _page_words(page: str) -> str:
    """The HTML page's text as a reader sees it, without the code and commands (<pre>)."""
    page = re.sub(r"<pre>.*?</pre>", " ", page, flags=re.S)
    page = re.sub(r"<style>.*?</style>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _markdown_words(text: str) -> str:
    """The Markdown's text without code blocks, picture links and escapes."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    return re.sub(r"\\(.)", r"\1", text)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_handout_folder_has_a_real_screenshot_of_every_step_and_both_documents_show_them(handouts, lang):
    _, out = handouts[lang]
    assert sorted(p.name for p in out.iterdir()) == ["handout.html", "handout.md", "step-01.svg", "step-02.svg"]
    step, of = ("Step", "of") if lang == "en" else ("Schritt", "von")
    for number, (level, selected) in enumerate(SHOWN, start=1):
        svg = (out / f"step-{number:02d}.svg").read_text(encoding="utf-8")
        words = _svg_text(svg)
        assert svg.startswith("<svg") and f"tensorweg {level}" in words  # the app's export, titled by level
        assert selected in words  # the level's list with the step's item, as the learner sees it
        assert f"{step} {number} {of} 2" in words  # and the tour panel over it, at this step
    markdown = (out / "handout.md").read_text(encoding="utf-8")
    page = (out / "handout.html").read_text(encoding="utf-8")
    for number in (1, 2):
        assert f"](step-0{number}.svg)" in markdown
        assert f'<img src="step-0{number}.svg"' in page
    assert markdown.count("\n## ") == page.count("<section") == 2
    # Without Graphviz each step says why its graph picture is missing (both select an item of a graph level).
    note = label("handout.no_graphviz", lang)
    assert page.count(html.escape(note)) == 2 and markdown.count(escape_markdown(note)) == 2
    if lang == "de":  # every word of the handout itself in German (tests/test_screens_german.py's check)
        assert '<html lang="de">' in page and "Schritt 2 von 2" in markdown
        assert english_left(GERMAN_TOO.sub(" ", _page_words(page))) == []
        assert english_left(GERMAN_TOO.sub(" ", _markdown_words(markdown))) == []
        assert english_left(_svg_text((out / "step-02.svg").read_text(encoding="utf-8"))) == []
    else:
        assert {"handout.model", "handout.targets", "word.step"} <= set(english_left(_page_words(page)))


def test_the_commands_a_handout_shows_reproduce_its_step(handouts, tmp_path, monkeypatch, capsys):
    """The picture command, run as shown, draws the very same SVG; the live command is a valid
    command line that opens the lesson at that step (here it stops where it needs a terminal)."""
    tour, out = handouts["en"]
    markdown = (out / "handout.md").read_text(encoding="utf-8")
    live, picture = (shlex.split(line) for line in re.findall(r"^tensorweg .*--step 2 .*$", markdown, re.M))
    assert live == ["tensorweg", "tour", str(tour), str(BUNDLE), "--step", "2", "--lang", "en"]
    assert picture[:2] == ["tensorweg", "screenshot"] and picture[-1] == "step-02.svg"
    monkeypatch.chdir(tmp_path)
    assert main(picture[1:]) == 0
    assert (tmp_path / "step-02.svg").read_bytes() == (out / "step-02.svg").read_bytes()
    assert main(live[1:]) == 2
    assert capsys.readouterr().err.startswith("error: the explorer needs a terminal")


def test_handout_words_of_a_builtin_lesson_every_step_its_code_and_commands():
    """The words of a whole lesson, as `handout` writes them (the pictures aside)."""
    bundle = Bundle.open(BUNDLE)
    tour = builtin_tour("tensor_to_registers")
    steps = handout_steps(bundle, tour, "tensor_to_registers", str(BUNDLE))
    page, markdown = render_html(bundle, tour, steps), render_markdown(bundle, tour, steps)
    assert page.count("<section") == len(tour.steps) == markdown.count("\n## ")
    assert f"Step {len(tour.steps)} of {len(tour.steps)}" in page
    # The optimized-HLO step shows the selected instruction's line of code, marked.
    assert re.search(r"<mark>[^<]*convolution", page)
    for document in (html.unescape(page), markdown):
        assert f"tensorweg tour tensor_to_registers {BUNDLE} --step 1 --lang en" in document
        assert (f"tensorweg screenshot {BUNDLE} --tour tensor_to_registers --step 1 --lang en "
                "--out step-01.svg") in document
        assert "Look for a loop fusion" in document  # the question's hint, never its answer
    assert "| conv2d | Conv2D |" in markdown  # the layers step's row


def test_lang_takes_a_builtin_lessons_twin_and_refuses_a_tour_without_one(tmp_path):
    assert find_tour("tensor_to_registers", str(BUNDLE), "de") == (builtin_tour("tensor_bis_register"),
                                                                   "tensor_bis_register")
    assert find_tour("tensor_bis_register", str(BUNDLE), "en")[1] == "tensor_to_registers"


def test_handout_from_a_pack_escapes_names_and_texts_in_html_and_markdown(tmp_path, capsys):
    tour = _tour_file(tmp_path / "tours", "hostile", HOSTILE)
    pack = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", str(tour), "-o", str(pack)]) == 0
    out = tmp_path / "handout"
    assert main(["handout", "hostile", str(pack), "-o", str(out)]) == 0
    page = (out / "handout.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "<b>" not in page and "<i>" not in page and "<a " not in page
    assert "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; co" in page
    assert "<code>code</code>" in page and "<strong>fett</strong>" in page
    assert '<html lang="de">' in page and "Schritt 1 von 1" in page and "Tipp:" in page
    markdown = (out / "handout.md").read_text(encoding="utf-8")
    assert markdown.startswith('# \\<script\\>alert("title")\\</script\\> \\& co\n')
    assert "\\<b\\>kein\\</b\\>" in markdown and "\\[kein Link\\](http://example.com)" in markdown
    assert "`code`" in markdown and "**fett**" in markdown and "\\<i\\>Fusion\\</i\\>" in markdown
    assert "tensorweg tour hostile " in markdown  # the pack's tour, by its name in the pack


def test_a_handout_of_a_pack_names_the_pack_by_its_file_name(tmp_path, monkeypatch, capsys):
    """The instructor writes the handout from `../out/course.twpack`; the learner has `course.twpack`
    beside the handout. Its commands name the pack as the learner has it, and run there as shown."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-graphviz"))  # a step's graph picture is not the point here
    out, work = tmp_path / "out", tmp_path / "work"
    out.mkdir()
    work.mkdir()
    tour = _tour_file(tmp_path / "tours", "short", SHORT["en"])
    monkeypatch.chdir(work)
    assert main(["pack", str(BUNDLE), "--tours", str(tour), "-o", "../out/course.twpack"]) == 0
    assert main(["handout", "short", "../out/course.twpack", "-o", "handout"]) == 0
    capsys.readouterr()
    markdown = (work / "handout" / "handout.md").read_text(encoding="utf-8")
    assert "../out" not in markdown and "../out" not in (work / "handout" / "handout.html").read_text(encoding="utf-8")
    live, picture = (shlex.split(line) for line in re.findall(r"^tensorweg .*--step 2 .*$", markdown, re.M))
    assert live == ["tensorweg", "tour", "short", "course.twpack", "--step", "2", "--lang", "en"]
    monkeypatch.chdir(out)  # where the learner has the pack
    assert main(picture[1:]) == 0
    assert (out / "step-02.svg").read_bytes() == (work / "handout" / "step-02.svg").read_bytes()


def test_markdown_escape_leaves_no_markup_in_names():
    assert escape_markdown("a_b*c [x](y) <t> `z` | &amp;") == r"a\_b\*c \[x\](y) \<t\> \`z\` \| \&amp;"
    assert escape_markdown("# not a heading\n- not a list\n1. nor this") == (
        "\\# not a heading\n\\- not a list\n1\\. nor this")


def _refused(argv: list[str], capsys, message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def test_handout_refuses_bad_input_and_writes_nothing(tmp_path, capsys):
    """Each bad input: exit 2, one error line, and the folder as it was (no half-written handout)."""
    tours = tmp_path / "tours"
    hostile = _tour_file(tours, "hostile", HOSTILE)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine", encoding="utf-8")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("mine", encoding="utf-8")
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "handout.md").write_text("# old", encoding="utf-8")
    unwritable = Path("/proc/handout") if os.geteuid() == 0 else tmp_path / "locked" / "handout"
    if os.geteuid() != 0:
        unwritable.parent.mkdir()
        unwritable.parent.chmod(0o555)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    bundle, new = str(BUNDLE), str(tmp_path / "new")
    cases = [
        (["handout", "nope", bundle, "-o", new], "unknown tour 'nope'"),
        (["handout", str(tours / "x.tour"), bundle, "-o", new], "no such tour file"),
        (["handout", str(hostile), bundle, "--lang", "en", "-o", new], "--lang en: the tour"),
        (["handout", "basics", bundle, "--lang", "fr", "-o", new], "invalid choice: 'fr'"),
        (["handout", "basics", bundle, "-o", str(a_file)], "-o names a file"),
        (["handout", "basics", bundle, "-o", str(busy)], "not empty (it holds mine.txt)"),
        (["handout", "basics", bundle, "-o", str(busy), "--force"], "not empty (it holds mine.txt)"),
        (["handout", "basics", bundle, "-o", str(earlier)], "earlier handout; --force replaces it"),
        (["handout", "basics", bundle, "-o", str(tmp_path / "missing" / "handout")], "does not exist"),
        (["handout", "basics", bundle, "-o", str(unwritable)], "is not writable"),
        (["handout", "basics", str(tmp_path / "missing.twpack"), "-o", new], "cannot read"),
        (["screenshot", bundle, "--tour", "basics", "--step", "9", "--out", str(tmp_path / "s.svg")],
         "--step 9: the tour has steps 1 to 8"),
        (["screenshot", bundle, "--step", "2", "--out", str(tmp_path / "s.svg")], "name the tour with --tour"),
        (["tour", "basics", bundle, "--step", "0"], "--step 0: the tour has steps 1 to 8"),
    ]
    try:
        for argv, message in cases:
            _refused(argv, capsys, message)
    finally:
        if os.geteuid() != 0:
            unwritable.parent.chmod(0o755)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_handout_force_replaces_an_earlier_handout_whole(tmp_path, capsys):
    out = tmp_path / "handout"
    out.mkdir()
    (out / "step-07.svg").write_text("<svg>old</svg>", encoding="utf-8")
    (out / "handout.md").write_text("# old", encoding="utf-8")
    tour = _tour_file(tmp_path / "tours", "hostile", HOSTILE)
    assert main(["handout", str(tour), str(BUNDLE), "-o", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["handout.html", "handout.md", "step-01.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["handout", "tours"]  # no staging left beside it
