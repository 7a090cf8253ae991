"""What every capture worker does with the HLO text it writes: parse it once, store it as JSON.

The workers call `write_parsed` right after writing `hlo.txt` or
`optimized_hlo.txt`, so each level's parsed form is ready when the level is
reported done (the UI reads it from the staging directory). A module that
does not parse is reported on stderr (the bundle's log) and keeps its raw
text: the UI then shows the text without structure.
"""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.errors import ParseError
from explorer.hlo.parser import parse_module
from explorer.model.normalise import normalise_text
from explorer.model.serial import write_text_atomic


def write_parsed(text_path: Path) -> bool:
    """Check at capture time that `<stem>.txt` parses; False (and a note on stderr) if it does not.

    Nothing is written: the app parses the text when it opens the level (the text parses about four
    times faster than a JSON record of the parsed module decodes), so such a record would never be read.
    """
    try:
        parse_module(text_path.read_text(encoding="utf-8"), source=text_path.name)
    except (OSError, ParseError) as exc:
        print(f"tensorweg: {text_path.parent.name}/{text_path.name} not parsed: {exc}", file=sys.stderr)
        return False
    return True


def normalise_log(staging: Path) -> None:
    """The log may hold absolute paths and hashes from the compilers' messages."""
    log = staging / "capture.log"
    if log.is_file():
        write_text_atomic(log, normalise_text(log.read_text(encoding="utf-8", errors="replace")))
