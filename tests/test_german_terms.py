"""One German word per concept, and German twins that say what the English ones say (issues 9, 25, 37).

`ONE_TERM` is the course's German vocabulary where it had drifted: for each concept the word it uses
(which must occur, so the table stays alive) and the words it replaced (none may occur) in any text,
glossary entry, tour, label or answer word. The passport is the *Steckbrief*: a German reader met
"Pass" for the passport beside "Pässe" for the compiler's passes on one screen (issue 37). A sentence
must not fuse something into a fusion ("zu einer Fusion fusioniert"). A German text is not much shorter
than its English twin (issue 37: `hlo:sort` had lost half of what it says).
"""

from __future__ import annotations

import re

import pytest

from explorer.course.questions import words
from explorer.course.tours import TWINS, builtin_tour, builtin_tours
from explorer.labels import LABELS, label
from explorer.texts.content_files import load_language
from explorer.texts.glossary import glossary
from explorer.texts.lookup import PLACEHOLDER

# concept -> (the word the course uses, as a pattern; the words it replaced, as patterns)
ONE_TERM: dict[str, tuple[str, tuple[str, ...]]] = {
    # issue 9
    "buffer assignment": ("Pufferzuweisung", ("Buffer-Zuweisung", "Parameter-Zuweisung", "Konstanten-Zuweisung")),
    "kernel launch": ("Kernel", ("Kernelstart",)),
    "peak memory": ("Spitze", ("Spitzenspeicher",)),
    # issue 25: an HLO instruction, an allocation (Zuweisung stays in the assignments), a compiler pass
    # (Durchlauf is the forward and backward pass), capturing, the plural of Kernel, a shape, a lane
    "HLO instruction": ("Instruktion", ("Anweisung",)),
    "allocation": ("Allokation", ("ausgewählten Zuweisung", "temporären Zuweisungen", "Puffer Allokation")),
    "compiler pass": (r"\bPässe\b", ("XLA-Durchlauf", "anderen Passes")),
    "capture": ("[Ee]rfass", ("Aufnahme", "aufgenommen", "aufnehmen")),
    "kernels (plural)": ("die Kernel", ("die Kernels", "den Kernels", "wenigsten Kernels")),
    "shape": ("Form", ("einer Shape", "festen Shapes")),
    "lane": ("Lane", ("Spuren",)),
    # issue 37
    "fuse": ("fusionier", ("erschmelz", "erschmolz", "verschmilz", "verschmolz", "verschmelz")),
    "output fusion (kOutput)": ("Ausgangsfusion", (r"\bAusgabe-?[Ff]usion",)),  # not the Mehrfachausgabe-Fusion
    "wrap": (r"\bhüllt\b.* ein\b|eingehüllt|Hülle", ("eingepackt", "einpack", "verpack", "umhüll")),
    "lower (a function to HLO)": ("übersetz", ("herunterbr", "heruntergebrochen", "absenk", "abgesenkt")),
    "schedule": ("Ablaufplan", (r"\bAblauf(s|es)?\b",)),
    # (a German "Pass" is a compiler pass: where the passport's words are, the twin test below says)
    "the passport": ("Steckbrief", (r"\bPass von [{`]", r"\b[Dd]erselbe Pass\b", r"\bPass des Tensors\b",
                                    r"\b[Dd]en Pass schließen\b")),
}
# Other phrases the fact-checks replaced: wrong words and typos.
REPLACED = ("das HBM", "Gatter", "Kopierende", "Eventuell Ausgabe", "Speicherbereich", "Graubild",
            "Recheneinheit wie", "Versätze", "Kehrwert der Wurzel", "Dynamisches Einfügen", "Kerass", "Gleichwertige")
# Fusing into a fusion: "zu einer Fusion fusioniert", "fusioniert Bias und ReLU in eine Schleifenfusion".
TAUTOLOGY = re.compile(r"\b(?:zu|in) (?:einer|eine|einem|der|die|den) (?:\w+ )?\w*[Ff]usion\w*(?: \w+)? fusioniert"
                       r"|\bfusioniert\b[^.;:,]{0,40}\b(?:zu|in) (?:einer|eine|einem) (?:\w+ )?\w*[Ff]usion\b")
PASS_WORDS = re.compile(r"\bP[aä]ss(?:e|es|en)?\b")  # German: a compiler pass, never the passport
ENGLISH_PASS = re.compile(r"\bpass(?:es)?\b", re.IGNORECASE)  # "pass", not "passport"


def _german() -> list[str]:
    found = [text.title + " " + text.body for text in load_language("de").values()]
    found += [e.term + " " + e.definition for e in glossary("de")]
    for _, tour in builtin_tours("de"):
        found.append(" ".join((tour.title, tour.outcome, tour.description)))
        found += [step.text + " " + (step.question.hint if step.question else "") for step in tour.steps]
    found += [de for _, de in LABELS.values()]
    found += list(words("de").values())
    return found


GERMAN = _german()


@pytest.mark.parametrize("concept", ONE_TERM)
def test_each_concept_has_one_german_word(concept):
    used, replaced = ONE_TERM[concept]
    assert any(re.search(used, text) for text in GERMAN), (concept, used)  # the table names a word in use
    for pattern in replaced:  # at a sentence's start too ("Verpackt jede ...")
        hits = [text[:100] for text in GERMAN if re.search(pattern, text, re.IGNORECASE)]
        assert not hits, (concept, pattern, hits)


def test_no_replaced_phrase_is_back():
    for phrase in REPLACED:
        assert not [text[:80] for text in GERMAN if phrase in text], phrase


@pytest.mark.parametrize(("text", "tautology"), [
    ("Nach der Optimierung sind Bias-Addition und ReLU zu einer Fusion fusioniert", True),
    ("Matrixmultiplikation und Bias-Addition werden zu einer Ausgangsfusion fusioniert.", True),
    ("XLA:CPU fusioniert Bias und ReLU in eine Schleifenfusion dahinter.", True),
    ("Nach der Optimierung stecken Bias-Addition und ReLU in einer Fusion.", False),
    ("XLA fusioniert die Rechnung daher in einen Kernel.", False),
    ("Hüllt jede Instruktion, die nicht fusioniert wurde, in eine eigene Fusion ein.", False),
])
def test_the_tautology_check_finds_fusing_into_a_fusion(text, tautology):
    assert bool(TAUTOLOGY.search(text)) == tautology


def test_no_german_sentence_fuses_something_into_a_fusion():
    assert not [text[:100] for text in GERMAN if TAUTOLOGY.search(text)]


# --- the passport is the Steckbrief; "Pass" is a compiler pass -----------------------------------

def test_every_label_about_the_passport_says_steckbrief_and_never_pass():
    about = {key: (en, de) for key, (en, de) in LABELS.items() if "passport" in en.lower()}
    assert len(about) >= 6
    for key, (_, de) in about.items():
        assert "Steckbrief" in de and not PASS_WORDS.search(de), (key, de)


def test_the_key_list_names_the_passport_and_the_passes_with_two_different_words():
    """The footer and `?` list `P` beside `f` (issue 39): no German reader takes one for the other."""
    passport, passes = label("binding.app.passport", "de"), label("binding.app.passes", "de")
    assert passport == "Steckbrief" and passes == "Pässe"
    assert not PASS_WORDS.search(passport)


def _twin_texts() -> list[tuple[str, str, str]]:
    """(where, English, German) for every course text and every tour step with a twin."""
    english, german = load_language("en"), load_language("de")
    pairs = [(key, text.title + " " + text.body, german[key].title + " " + german[key].body)
             for key, text in english.items()]
    for english_name, german_name in TWINS.items():
        steps = zip(builtin_tour(english_name).steps, builtin_tour(german_name).steps, strict=True)
        pairs += [(f"{english_name}:{en.line}", en.text, de.text) for en, de in steps]
    return pairs


TWIN_TEXTS = _twin_texts()


def test_german_says_pass_only_where_english_says_pass_and_steckbrief_where_it_says_passport():
    for where, english, german in TWIN_TEXTS:
        if "passport" in english.lower():
            assert "Steckbrief" in german, where
        assert len(PASS_WORDS.findall(german)) <= len(ENGLISH_PASS.findall(english)), (where, german[:120])


def test_german_twins_are_not_much_shorter_than_the_english_and_quote_the_same_figures():
    """German runs longer than English; a twin under 85 % of its English length has lost something."""
    for where, english, german in TWIN_TEXTS:
        assert len(german) >= 0.85 * len(english), (where, len(english), len(german))
        assert set(PLACEHOLDER.findall(english)) == set(PLACEHOLDER.findall(german)), where
