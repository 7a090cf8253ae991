"""XLA's per-pass dump (`--xla_dump_hlo_pass_re=.*`) turned into a bundle's `passes/` files.

With the flag, XLA writes the module after every pass that changed it, one file per
snapshot, numbered in the order the passes ran:
`module_NNNN.<module>.<id>.NNNN.<pipeline>.after_<pass>.before_<next pass>.txt`
(copy insertion writes `...copy-insertion.after_<step>.txt`, no `before_`). Seen
on XLA:CPU (TensorFlow), libtpu compile-only and XLA:GPU compile-only.

A bundle keeps, under `targets/<target>/passes/`:
- `index.json`: `PassIndex` (one `PassFrame` per kept snapshot: pipeline, pass,
  instruction and fusion counts), small enough to list the passes without
  reading any module text;
- `frames.json.gz`: the normalised module texts, a JSON list in frame order.
Frame 0 is the module before optimisation; a snapshot identical to the frame
before it (a pipeline's `pipeline-start`, a pass that only renamed nothing) is
dropped, so only passes that changed something are kept.

This module imports no compiler and no Textual; the workers call it on their dump.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import DataError
from explorer.hlo.scan import count_instructions
from explorer.model.normalise import normalise_text
from explorer.model.serial import dump_json, load_json

PASSES_DIR = "passes"
INDEX_FILE = "index.json"
FRAMES_FILE = "frames.json.gz"
# The first and the last frame are not passes: their `pass_name` says so.
BEFORE = "before-optimizations"
AFTER = "after-optimizations"

_SNAPSHOT = re.compile(r"^module_(?P<module>\d+)\..*?\.(?P<seq>\d{4})\.(?P<rest>[^/]+)\.txt$")


def pass_dump_flags(module_pattern: str) -> str:
    """The XLA flags that add per-pass snapshots of the modules matching `module_pattern`.

    Filtering modules matters: without it TensorFlow's and JAX's helper modules are
    dumped after every pass too (about 2,000 files for ResNet50 on CPU).
    """
    return f"--xla_dump_hlo_pass_re=.* --xla_dump_hlo_module_re={module_pattern}"


@dataclass(frozen=True)
class PassFrame:
    """One kept snapshot: the module after `pass_name` ran in `pipeline`.

    sequence: XLA's own snapshot number (-1 for the before/after frames).
    instructions / fusions: counted over every computation of the module text.
    """

    sequence: int
    pipeline: str
    pass_name: str
    instructions: int
    fusions: int


@dataclass(frozen=True)
class PassIndex:
    """What `index.json` holds. snapshots_dumped: files XLA wrote for this module
    (kept + dropped as unchanged); compile_seconds_known: XLA's dump carries no
    per-pass time, so this is False for every capture so far."""

    frames: tuple[PassFrame, ...]
    snapshots_dumped: int
    compile_seconds_known: bool = False
    film: str = "xla"  # "grappler": TensorFlow graphs after each Grappler optimizer (explorer.model.passes_grappler)


def _split_name(rest: str) -> tuple[str, str]:
    """`<pipeline>.after_<pass>[.before_<next>]` -> (pipeline, pass)."""
    pipeline, _, after = rest.partition(".after_")
    if not after:
        return "", rest
    return pipeline, after.split(".before_", 1)[0]


def snapshot_files(dump_dir: Path, module_number: str) -> list[tuple[int, str, str, Path]]:
    """(sequence, pipeline, pass, path) of one module's snapshots, in the order they were taken."""
    found = []
    for path in dump_dir.iterdir():
        match = _SNAPSHOT.match(path.name)
        if match and match["module"] == module_number and "after_" in match["rest"]:
            pipeline, pass_name = _split_name(match["rest"])
            found.append((int(match["seq"]), pipeline, pass_name, path))
    return sorted(found)


def module_number(path: Path) -> str:
    """`module_0003.jit_fwd...` -> "0003" (which module's snapshots belong to a dump file)."""
    match = re.match(r"^module_(\d+)\.", path.name)
    return match.group(1) if match else ""


def write_pass_frames(dump_dir: Path, before: Path | None, after: Path | None, out_dir: Path) -> PassIndex | None:
    """Write `out_dir/passes/` from the snapshots of the module `after` (its optimized dump) belongs to.

    `before` / `after`: the module's `before_optimizations` and `*after_optimizations`
    dump files (frame 0 and the last frame). Returns None (and writes nothing) when
    the dump holds no snapshots for that module, e.g. a capture without `--passes`.
    """
    reference = after or before
    if reference is None:
        return None
    snapshots = snapshot_files(dump_dir, module_number(reference))
    if not snapshots:
        return None

    def texts():
        if before is not None:
            yield -1, "", BEFORE, before.read_text(encoding="utf-8", errors="replace")
        for sequence, pipeline, pass_name, path in snapshots:
            yield sequence, pipeline, pass_name, path.read_text(encoding="utf-8", errors="replace")
        if after is not None:
            yield -1, "", AFTER, after.read_text(encoding="utf-8", errors="replace")

    frames, kept = keep_changed(texts(), count_instructions)
    index = PassIndex(frames=tuple(frames), snapshots_dumped=len(snapshots))
    store_frames(out_dir / PASSES_DIR, index, kept)
    return index


def keep_changed(snapshots: Iterable[tuple[int, str, str, str]],
                 count: Callable[[str], tuple[int, int]]) -> tuple[list[PassFrame], list[str]]:
    """(frames, normalised texts) of the snapshots that differ from the one kept before them.

    snapshots: (sequence, pipeline, pass, text) in the order they were taken; count: the
    (instructions, fusions) of a text (HLO instructions, or graph nodes and fused ops).
    """
    frames: list[PassFrame] = []
    texts: list[str] = []
    lines: dict[str, str] = {}
    previous = None
    for sequence, pipeline, pass_name, raw in snapshots:
        if raw == previous:  # XLA wrote the same text again: it normalises to the kept one
            continue
        previous = raw
        text = _normalised(raw, lines)
        if texts and texts[-1] == text:
            continue
        instructions, fusions = count(text)
        frames.append(PassFrame(sequence, pipeline, pass_name, instructions, fusions))
        texts.append(text)
    return frames, texts


def _normalised(raw: str, lines: dict[str, str]) -> str:
    """`normalise_text(raw)`, one distinct line at a time: consecutive snapshots share almost every
    line, and normalising ResNet50's 49 snapshots whole took 3.2 s of a 4.8 s collection. The
    normalisation never looks across a line break (names and paths hold no whitespace), so line
    by line gives the same text."""
    out = []
    for line in raw.split("\n"):
        done = lines.get(line)
        if done is None:
            done = lines[line] = normalise_text(line)
        out.append(done)
    return "\n".join(out)


def store_frames(target: Path, index: PassIndex, texts: list[str]) -> None:
    """`target/frames.json.gz`, then `target/index.json` (an index means the frames are there)."""
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{FRAMES_FILE}.partial"
    partial.write_bytes(gzip.compress(json.dumps(texts).encode("utf-8"), compresslevel=6, mtime=0))
    partial.replace(target / FRAMES_FILE)
    dump_json(index, target / INDEX_FILE)


def read_pass_index(passes_dir: Path) -> PassIndex | None:
    path = passes_dir / INDEX_FILE
    if not path.is_file():
        return None
    return load_json(PassIndex, path, f"{passes_dir.name}/{INDEX_FILE}")


def read_pass_texts(passes_dir: Path) -> list[str]:
    """The frames' module texts; DataError when the file is damaged."""
    path = passes_dir / FRAMES_FILE
    try:
        texts = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise DataError(f"{PASSES_DIR}/{FRAMES_FILE}: unreadable ({exc.__class__.__name__})") from None
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise DataError(f"{PASSES_DIR}/{FRAMES_FILE}: not a list of module texts")
    return texts
