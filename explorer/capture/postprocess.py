"""Last capture step, in its own process: HLO text to parsed JSON, the cross-level index.

Run as `python -m explorer.capture.postprocess STAGING_DIR`. It works on what
the workers left; a module that does not parse is recorded in the log and
its level keeps its raw text (the UI then shows the text without structure).
"""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.errors import ParseError
from explorer.serial import dump_json


def parse_target_modules(target_dir: Path) -> list[str]:
    """Write hlo.json / optimized_hlo.json beside their text; return problems found."""
    from explorer.hlo.parser import parse_module

    problems = []
    for stem in ("hlo", "optimized_hlo"):
        text_path = target_dir / f"{stem}.txt"
        if not text_path.is_file():
            continue
        try:
            module = parse_module(text_path.read_text(encoding="utf-8"), source=f"{stem}.txt")
        except ParseError as exc:
            problems.append(f"{target_dir.name}/{stem}.txt: {exc}")
            continue
        dump_json(module, target_dir / f"{stem}.json")
    return problems


def normalise_log(staging: Path) -> None:
    """The log may hold absolute paths and hashes from the compilers' messages."""
    from explorer.normalise import normalise_text

    log = staging / "capture.log"
    if log.is_file():
        log.write_text(normalise_text(log.read_text(encoding="utf-8", errors="replace")), encoding="utf-8")


def main(argv: list[str]) -> int:
    staging = Path(argv[0])
    problems: list[str] = []
    targets_dir = staging / "targets"
    if targets_dir.is_dir():
        for target_dir in sorted(p for p in targets_dir.iterdir() if p.is_dir()):
            problems += parse_target_modules(target_dir)
    for problem in problems:
        print(problem, file=sys.stderr)
    normalise_log(staging)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
