"""The German course speaks to its readers with one voice, *Sie* (issues 25 and 37): in no text,
glossary entry, tour, label, answer word or rendered passport of the German side is there a *du*
(pronoun or imperative), and after a colon a full sentence starts with a capital.

The imperatives are found by their form, not from a list of the verbs that were wrong once
(issue 37: the list missed "vergleiche"): every verb the texts address the reader with as *Sie*
(`Vergleichen Sie`, `Drücken Sie`, `Wechseln Sie`) has its *du* imperatives, stem + e (`vergleiche`),
the bare stem (`vergleich`) and for strong verbs the stem with e -> i(e) (`geben` -> `gib`,
`lesen` -> `lies`); none of them may start a clause. A word ending in -e that starts a clause, is
followed by an object and whose infinitive (word + n) the texts use as a verb is one too, unless it is
a determiner or pronoun (the closed class `NOT_VERBS`) or a noun (the texts write it with a capital
inside a sentence: "die Suche").
"""

from __future__ import annotations

import re

import pytest

from explorer.course.questions import words
from explorer.course.tours import builtin_tours
from explorer.labels import LABELS
from explorer.model.bundle import Bundle
from explorer.texts.content_files import load_language
from explorer.texts.glossary import glossary
from explorer.views.passport import passport
from explorer.views.passport.text import as_text

from tests.conftest import FIXTURES

DU_PRONOUNS = re.compile(r"\b([Dd]u|[Dd]ich|[Dd]ir|[Dd]ein|[Dd]eine|[Dd]einem|[Dd]einen|[Dd]einer|[Dd]eines)\b")
WORD = r"[A-Za-zÄÖÜäöüß]+"
# Where a clause starts: the text's start, after . ! ? : ; and a space, after a line break or a list dash;
# Markdown emphasis and an opening quote or bracket before the word are skipped.
CLAUSE_START = re.compile(rf"(?:^|[.!?:;]\s+|\n\s*(?:[-*]\s+)?|\b(?:und|oder)\s+)(?:\*\*|\*|[„\"(])*({WORD})"
                          rf"(?=\s+([^\s.,;:!?]+))")
SIE_IMPERATIVE = re.compile(rf"(?:^|[.!?:;]\s+|\n\s*|\b(?:und|oder)\s+)(?:\*\*|[„\"(])*({WORD}(?:en|ln|rn))\s+Sie\b")
# What follows an imperative, not a noun at a clause's start ("Suche das while", not "Start der Kopie").
OBJECT_WORDS = frozenset({"das", "den", "ein", "einen", "ihn", "es", "beide", "alle", "auf", "nach"})
# Words ending in -e that start clauses and are no verbs: articles, determiners, pronouns, and the
# few adverbs and prepositions. Each is checked below not to hide an imperative.
NOT_VERBS = frozenset({
    "die", "diese", "eine", "keine", "jede", "welche", "alle", "beide", "seine", "ihre", "manche", "solche",
    "viele", "wenige", "einige", "andere", "mehrere", "jene", "meine", "unsere", "ohne", "bitte", "gerade",
    "heute", "gerne", "nahe", "große", "kleine", "ganze", "erste", "letzte", "neue", "gleiche", "eigene",
})


def _german_strings() -> list[tuple[str, str]]:
    found = [(f"text {key}", text.title + " " + text.body) for key, text in load_language("de").items()]
    found += [(f"glossary {entry.term}", entry.term + " " + entry.definition) for entry in glossary("de")]
    for name, tour in builtin_tours("de"):
        found.append((f"tour {name}", " ".join((tour.title, tour.outcome, tour.description))))
        for step in tour.steps:
            hint = step.question.hint if step.question else ""
            found.append((f"tour {name}:{step.line}", step.text + " " + hint))
    found += [(f"label {key}", de) for key, (_, de) in LABELS.items()]
    found += [(f"answer word {key}", word) for key, word in words("de").items()]
    return found


def _rendered_passports() -> list[tuple[str, str]]:
    """What `tensorweg passport --lang de` prints for every layer of the recorded bundle: labels
    joined into sentences (`kein Kernel: {why}`) are only whole here."""
    bundle = Bundle.open(FIXTURES / "bundles" / "mnist_cnn")
    return [(f"passport {layer.name}@{target}", as_text(passport(bundle, target, layer.name, lang="de"), "de"))
            for target in bundle.targets for layer in bundle.layers]


def _without_code(text: str) -> str:
    return re.sub(r"`[^`]*`", "`x`", text)


def _sie_stems(strings: list[tuple[str, str]]) -> set[str]:
    """The stems of the verbs the German side addresses the reader with (`Vergleichen Sie` -> vergleich)."""
    stems = set()
    for _, text in strings:
        for verb in SIE_IMPERATIVE.findall(_without_code(text)):
            verb = verb.lower()
            stems.add(verb[:-2] if verb.endswith("en") else verb[:-1])  # wechseln -> wechsel
    return stems


def _du_imperatives_of(stem: str) -> set[str]:
    """stem + e, the bare stem, and the strong verbs' e -> i / ie (geb -> gib, les -> lies, seh -> sieh)."""
    forms = {stem + "e", stem}
    if stem.endswith(("el", "er")):  # wechseln: wechsle, wechsel
        forms.add(stem[:-2] + stem[-1] + "e")
    vowel = stem.rfind("e")
    if vowel > 0 or (vowel == 0 and len(stem) > 2):
        forms |= {stem[:vowel] + "i" + stem[vowel + 1:], stem[:vowel] + "ie" + stem[vowel + 1:]}
    return forms


def _verbs_and_nouns(strings: list[tuple[str, str]]) -> tuple[set[str], set[str]]:
    """Words written in lower case inside a sentence (verbs, adjectives, ...) and with a capital
    inside a sentence (nouns: "die Suche")."""
    lower, capital = set(), set()
    for _, text in strings:
        for before, word in re.findall(rf"(\S)\s+({WORD})", _without_code(text)):
            if before in ".!?:;":
                continue
            (capital if word[0].isupper() else lower).add(word.lower() if word[0].isupper() else word)
    return lower, capital


class DuForms:
    """The du forms of a text, given the verbs and nouns the whole German side uses."""

    def __init__(self, strings: list[tuple[str, str]]):
        self.imperatives = {form for stem in _sie_stems(strings) for form in _du_imperatives_of(stem)}
        self.lower, self.nouns = _verbs_and_nouns(strings)

    def __call__(self, text: str) -> list[str]:
        found = [match.group(0) for match in DU_PRONOUNS.finditer(text)]
        for match in CLAUSE_START.finditer(_without_code(text)):
            word, after = match.group(1), match.group(2)
            if after == "Sie" or word.lower() in NOT_VERBS:
                continue
            form = word.lower()
            joined = match.group(0).lstrip()[:3] in ("und", "ode")  # after `und`/`oder`: only the Sie verbs' forms
            if self._is_imperative(form, after) or (not joined and self._looks_like_stem_e(form, after)):
                found.append(f"{word} {after}")
        return found

    def _is_imperative(self, form: str, after: str) -> bool:
        """A du form of a Sie verb; one that is also a noun ("Start", "Suche") only before an object."""
        if form not in self.imperatives:
            return False
        return form not in self.nouns or after in OBJECT_WORDS

    def _looks_like_stem_e(self, form: str, after: str) -> bool:
        """`vergleiche beide`: a verb's stem + e (its infinitive is used in lower case) before an object."""
        return (form.endswith("e") and len(form) > 3 and form + "n" in self.lower and form not in self.nouns
                and not after[:1].isupper())


@pytest.fixture(scope="module")
def du_forms() -> DuForms:
    return DuForms(_german_strings())


@pytest.mark.parametrize(("text", "expected"), [
    ("Drücke `a` und tippe die Zahl.", ["Drücke `x`", "tippe die"]),
    ("Drücke `a`. Tippe die Zahl.", ["Drücke `x`", "Tippe die"]),
    ("Es ist TVMs Gegenstück: vergleiche beide mit `c` oder `t`.", ["vergleiche beide"]),
    ("Suche das while der Schicht lstm.", ["Suche das"]),
    ("Achte auf neue Zeilen; dein Ergebnis zählt.", ["dein", "Achte auf"]),
    ("Lies die Zeile. Sieh auf die Spalte. Wähle ein Ziel.", ["Lies die", "Sieh auf", "Wähle ein"]),
    ("Start in Python. Start der Kopie. Vergleich mit XLA.", []),
    ("Drücken Sie `a` und tippen Sie die Zahl. Die Suche im Produkt; der achte Schritt; -o DIR.", []),
    ("Ergebnisse der Vergleiche, Zählerstände, Bewegung. Diese Instruktion; Eine Fusion. Ebene 1, Keras.", []),
    ("Ohne den Pass hüllt XLA:CPU jede Instruktion ein. Jede Zeile ist eine Schicht. Beide Varianten.", []),
])
def test_the_du_check_finds_du_forms_by_their_form_and_nothing_else(text, expected, du_forms):
    assert du_forms(text) == expected


def test_the_words_the_check_leaves_alone_are_no_verbs_of_the_texts(du_forms):
    """The closed class of NOT_VERBS hides no verb the German side addresses the reader with."""
    assert not NOT_VERBS & du_forms.imperatives
    assert {"vergleiche", "drücke", "tippe", "lies", "sieh"} <= du_forms.imperatives  # the texts' Sie verbs, seen


def test_the_du_forms_of_a_verb_come_from_its_sie_form():
    forms = DuForms([("t", "Wechseln Sie die Sprache. Geben Sie die Zahl ein.")])
    assert {"wechsle", "wechsel", "wechsele", "gib", "gebe", "geb"} <= forms.imperatives
    assert forms("Wechsle die Sprache. Gib die Zahl ein.") == ["Wechsle die", "Gib die"]


def test_no_german_text_tour_label_answer_word_or_passport_says_du(du_forms):
    strings = _german_strings() + _rendered_passports()
    assert len(strings) > 500
    hits = [(where, du_forms(text)) for where, text in strings if du_forms(text)]
    assert not hits, hits


# --- after a colon, a full sentence starts with a capital (issue 37: the passport's labels) --------

_SUBJECT_PRONOUNS = r"(?:sie|er|es|dieser|diese|dieses|man)"
_DETERMINERS = r"(?:der|die|das|den|dem|ein|eine|einer|sein|seine|ihr|ihre|kein|keine|jede|jeder|jedes|als)"
_LOWER = r"[a-zäöüß][\wäöüß-]*"
# The word after a subject that is no finite verb: function words, adverbs, single letters (variables).
_NO_VERB = frozenset({
    "und", "oder", "von", "vom", "des", "der", "dem", "den", "die", "das", "ein", "eine", "einen", "einem", "einer",
    "im", "in", "ins", "mit", "für", "ohne", "aus", "zu", "zum", "zur", "an", "am", "auf", "bei", "beim", "nach",
    "vor", "über", "unter", "wie", "als", "je", "pro", "sowie", "hinter", "neben", "zwischen", "durch", "gegen",
    "um", "bis", "seit", "samt", "nicht", "noch", "auch", "nur", "etwa", "erneut", "z", "x",
})
# `: sie entsteht`, `: sein HLO (...) wurde`, `: gezeigt werden`, `: starten Sie`: a subject and its verb.
_LOWER_SENTENCE = re.compile(
    rf":\s+(?:{_SUBJECT_PRONOUNS}\s+(?P<verb>{_LOWER})"
    rf"|{_DETERMINERS}\s+[A-ZÄÖÜ][\wäöüß-]*(?:\s+\([^)]*\))?\s+(?P<verb2>{_LOWER})"
    rf"|{_LOWER}\s+(?:werden|wird|wurde|wurden)\b|{_LOWER}\s+Sie\b)")


def lower_case_sentences_after_colon(text: str) -> list[str]:
    found = []
    for match in _LOWER_SENTENCE.finditer(_without_code(text)):
        verb = match.group("verb") or match.group("verb2")
        if verb is None or (verb not in _NO_VERB and len(verb) > 1):
            found.append(match.group(0))
    return found


@pytest.mark.parametrize(("text", "expected"), [
    ("Die Ausgabe wird nie eigens geschrieben: sie entsteht in fusion.3", [": sie entsteht"]),
    ("kein Kernel: die Instruktion braucht keinen", [": die Instruktion braucht"]),
    ("flatten: sein HLO (Reshape.3) wurde zum Bitcast", [": sein HLO (Reshape.3) wurde"]),
    ("XLA:TPU erzeugt keinen Code: gezeigt werden die Kacheln", [": gezeigt werden"]),
    ("Für mlp: starten Sie sie mit tensorweg", [": starten Sie"]),
    ("Heuristik: Der Tensor wird verfolgt. Ebene 4: das optimierte HLO nach der Fusion", []),
    ("Beleg: der Traceback der Op, beim Tracing aufgezeichnet; Ohne Bilder: das Modell erneut erfassen", []),
    ("ein Tupel: das Ergebnis und einen `u8`-Puffer; R: den Householder-Vektoren v unter der Diagonale", []),
])
def test_the_colon_check_finds_lower_case_sentences_and_not_phrases(text, expected):
    assert lower_case_sentences_after_colon(text) == expected


def test_after_a_colon_a_full_german_sentence_starts_with_a_capital():
    strings = _german_strings() + _rendered_passports()
    hits = [(where, found) for where, text in strings if (found := lower_case_sentences_after_colon(text))]
    assert not hits, hits
