"""The one sanitiser for text from a model, bundle, pack or tour on its way to a terminal or a document.

Names travel: a layer called `dense\\x1b]0;pwned\\x07` would set the window title of the terminal
that shows it (OSC 52 writes the clipboard, `\\x1b[2J` clears the screen, U+202E turns the rest of
the line around). Every boundary where such text meets a terminal or a document passes it
through `visible` (docs/architecture.md names them): the CLI's output streams, the capture
workers' error lines as the orchestrator reads them, the handout files and the screens' text.

Nothing is dropped, so a reader can still tell two names apart: C0 controls, DEL and ESC become
Unicode's control pictures (ESC -> U+241B, BEL -> U+2407), C1 controls `\\x9b`, and the
bidirectional marks, overrides and isolates `\\u202e`: plain text in a terminal, in Markdown (a
backslash before a letter escapes nothing) and in HTML (no `<`, `&` or quote). Only newline and
tab survive, and only where a multi-line text is expected (`multiline=True`).
"""

from __future__ import annotations

import re

_C0 = [chr(code) for code in range(0x20)]
_C1 = [chr(code) for code in range(0x80, 0xA0)]
# Marks, embeddings, overrides and isolates that reorder what follows them on screen;
# U+2028/U+2029 break a line where no newline is seen.
_BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)),
         "\u2028", "\u2029"]

_STAND_INS: dict[int, str] = {
    **{ord(char): chr(0x2400 + ord(char)) for char in _C0},  # ␀ ... ␟, ␛ for ESC
    0x7F: "\u2421",  # ␡
    **{ord(char): f"\\x{ord(char):02x}" for char in _C1},
    **{ord(char): f"\\u{ord(char):04x}" for char in _BIDI},
}
_LINE_STAND_INS = {code: shown for code, shown in _STAND_INS.items() if code not in (ord("\n"), ord("\t"))}
_UNSAFE = re.compile("[" + re.escape("".join(map(chr, _STAND_INS))) + "]")
_UNSAFE_IN_LINES = re.compile("[" + re.escape("".join(map(chr, _LINE_STAND_INS))) + "]")
# The ASCII ones as bytes, by `multiline`: `bytes.translate` deletes them several times faster than the
# pattern finds one (5 MB of HLO: 4 ms against 20).
_ASCII_UNSAFE = {multiline: bytes(code for code in stand_ins if code < 0x80)
                 for multiline, stand_ins in ((False, _STAND_INS), (True, _LINE_STAND_INS))}


def visible(text: str, multiline: bool = False) -> str:
    """`text` with every control character and bidirectional override shown, never emitted.

    `multiline`: newlines and tabs are kept (a table, a pane, a document); otherwise they too
    are shown (a name, a title, one error line).
    """
    pattern, table = (_UNSAFE_IN_LINES, _LINE_STAND_INS) if multiline else (_UNSAFE, _STAND_INS)
    if text.isascii():  # most text, a module's megabytes too: C0 and DEL are all it can hold
        raw = text.encode("ascii")
        return text.translate(table) if len(raw.translate(None, _ASCII_UNSAFE[multiline])) < len(raw) else text
    return text.translate(table) if pattern.search(text) else text  # the search: most text is clean

