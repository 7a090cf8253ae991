"""`tensorweg handout`: a lesson as one static HTML page, from a pack or a bundle, names escaped."""

from __future__ import annotations

import html
import re

from explorer.course.tours import builtin_tour

from screens.cli import main

from tests.conftest import FIXTURES
from tests.test_screens_german import english_left

BUNDLE = FIXTURES / "bundles" / "mnist_cnn"
HOSTILE = """# title: <script>alert("title")</script> & co
# model: mnist_cnn
# lang: de

step: level=optimized-hlo target=tpu:v5e select=layer:conv2d,kind:convolution
text: Hier steht <b>kein</b> Markup, aber `code` und **fett**.
ask: select=layer:conv2d,kind:kLoop
hint: Suche die <i>Fusion</i>.
"""


def test_handout_of_a_builtin_tour_has_every_step_its_code_and_commands(tmp_path, capsys):
    out = tmp_path / "handout.html"
    assert main(["handout", str(BUNDLE), "--tour", "tensor_to_registers", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    tour = builtin_tour("tensor_to_registers")
    assert page.count("<section") == len(tour.steps)
    assert f"Step {len(tour.steps)} of {len(tour.steps)}" in page
    # The optimized-HLO step shows the selected instruction's line of code, marked.
    assert re.search(r"<mark>[^<]*convolution", page)
    # Each step names the command that shows its screen, with the selected item.
    assert (f"tensorweg screenshot {BUNDLE} --level layers --target cpu --select conv2d --lang en "
            "--out step-1.svg") in html.unescape(page)
    assert "Look for a loop fusion" in page  # the question's hint, never its answer


def test_handout_from_a_pack_escapes_names_and_texts(tmp_path, capsys):
    tour = tmp_path / "hostile.tour"
    tour.write_text(HOSTILE, encoding="utf-8")
    pack = tmp_path / "course.twpack"
    assert main(["pack", str(BUNDLE), "--tours", str(tour), "-o", str(pack)]) == 0
    out = tmp_path / "handout.html"
    assert main(["handout", str(pack), "--tour", "hostile", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<script>" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; co" in page
    assert "<code>code</code>" in page and "<strong>fett</strong>" in page
    assert '<html lang="de">' in page and "Schritt 1 von 1" in page and "Tipp:" in page


def test_handout_refuses_bad_arguments_and_writes_nothing(tmp_path, capsys):
    cases = [
        (["handout", str(BUNDLE), "--tour", "tensor_to_registers", "-o", str(tmp_path / "h.txt")], ".html"),
        (["handout", str(BUNDLE), "--tour", "nope", "-o", str(tmp_path / "h.html")], "unknown tour"),
        (["handout", str(BUNDLE), "--tour", "x.tour", "-o", str(tmp_path / "h.html")], "no such tour file"),
        (["handout", str(tmp_path / "missing.twpack"), "--tour", "basics", "-o", str(tmp_path / "h.html")],
         "cannot read"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# German words of the course texts that spell an English label: "Shared Memory" (NVIDIA's term),
# "des Kernels" (genitive), "also" (German "so").
GERMAN_TOO = re.compile(r"Shared Memory|des Kernels|\balso\b")


def _words(page: str) -> str:
    """The page's text as a reader sees it, without the code and commands (<pre>: the compiler's
    own text and command lines)."""
    page = re.sub(r"<pre>.*?</pre>", " ", page, flags=re.S)
    page = re.sub(r"<style>.*?</style>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_handout_in_german_has_every_word_in_german(tmp_path, capsys):
    """`--lang de` takes the lesson's German twin and words the page itself in German too: no English
    label anywhere (tests/test_screens_german.py's check), while the English page has them."""
    pages = {}
    for lang in ("de", "en"):
        out = tmp_path / f"handout-{lang}.html"
        assert main(["handout", str(BUNDLE), "--tour", "tensor_to_registers", "--lang", lang, "-o", str(out)]) == 0
        pages[lang] = out.read_text(encoding="utf-8")
    german = builtin_tour("tensor_bis_register")
    page = pages["de"]
    assert '<html lang="de">' in page and html.escape(german.title) in page
    assert f"Schritt {len(german.steps)} von {len(german.steps)}" in page and "Modell: " in page
    assert "<th>Schicht</th><th>Klasse</th><th>Ausgabeform</th>" in page  # the layers step's row
    assert "--lang de" in html.unescape(page)  # the commands show the German screens
    assert english_left(GERMAN_TOO.sub(" ", _words(page))) == []
    assert {"handout.model", "handout.targets", "word.step"} <= set(english_left(_words(pages["en"])))


def test_handout_lang_without_a_twin_is_refused(tmp_path, capsys):
    tours = tmp_path / "tours"
    tours.mkdir()
    (tours / "hostile.tour").write_text(HOSTILE, encoding="utf-8")
    out = tmp_path / "h.html"
    assert main(["handout", str(BUNDLE), "--tour", str(tours / "hostile.tour"), "--lang", "en", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --lang en: ") and "no twin in en" in err and err.count("\n") == 1
    assert not out.exists()
    assert main(["handout", str(BUNDLE), "--tour", "basics", "--lang", "fr", "-o", str(out)]) == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err and not out.exists()
