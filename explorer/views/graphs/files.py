"""Graph pictures as files: DOT rendered by Graphviz, every file written whole or not at all.

Graphviz stays optional (the Debian `graphviz` package; CI installs it): `dot` runs as a subprocess
with a time limit, and only for pictures of at most `MAX_RENDER_NODES` boxes; its layout time grows
much faster than the graph, and a picture of thousands of boxes is no use on a slide anyway. What it
refuses, the caller says in one line and writes the DOT instead (`tensorweg graph`: `FILE.dot` beside
the asked-for file, exit 2; the app's key: the `.dot` alone, the reason in the status line).

Files are written whole or not at all (`explorer.atomic_file.write_whole`), so a reader, an error or an
interrupt never sees half a picture; an existing file is replaced only when the caller says so
(`--force`), and the app asks for a fresh name instead (`fresh_stem`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from explorer.atomic_file import write_whole
from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.safe_text import visible

# What `-o FILE` may end with: the DOT text, or what Graphviz renders from it.
GRAPH_SUFFIXES = (".dot", ".svg", ".png", ".pdf")
MAX_RENDER_NODES = 1500  # ResNet50's optimized HLO on cpu is ~2,800 boxes: minutes in `dot`, unreadable
RENDER_TIMEOUT = 60.0  # seconds; a graph under the cap lays out in a few
INSTALL_HINT = "install Graphviz (Debian/Ubuntu: apt install graphviz; macOS: brew install graphviz)"


class GraphTooLarge(TensorwegError):
    """Graphviz was not asked (too many boxes) or gave up (timed out): the DOT is still worth writing."""


def graphviz() -> str | None:
    """Where Graphviz's `dot` is, or None when it is not installed."""
    return shutil.which("dot")


def check_graph_output(out: Path, force: bool) -> None:
    """Fail before any work when `out` cannot become a new graph file (checked again on writing)."""
    if out.suffix.lower() not in GRAPH_SUFFIXES:
        raise TensorwegError(f"{out}: -o must end with {', '.join(GRAPH_SUFFIXES)}")
    if out.is_dir():
        raise TensorwegError(f"{out}: -o is a folder; name a file inside it")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise TensorwegError(f"{out}: the folder {out.parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise TensorwegError(f"{out}: the folder {out.parent} is not writable")
    if out.exists() and not force:
        raise TensorwegError(f"{out}: the file exists; --force replaces it")
    if out.suffix.lower() != ".dot" and graphviz() is None:
        raise TensorwegError(f"{out}: rendering {out.suffix} needs Graphviz's `dot`: {INSTALL_HINT}, "
                             f"or write {out.with_suffix('.dot').name} instead")


def render(dot_text: str, fmt: str, boxes: int) -> bytes:
    """`dot_text` rendered by Graphviz as `fmt` (svg, png, pdf); `boxes`: how many the picture draws."""
    if boxes > MAX_RENDER_NODES:
        raise GraphTooLarge(f"{boxes:,} boxes are too many to render (at most {MAX_RENDER_NODES:,}); "
                            "narrow it with --select and --depth")
    program = graphviz()
    if program is None:
        raise TensorwegError(f"rendering {fmt} needs Graphviz's `dot`: {INSTALL_HINT}")
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True,
                              timeout=RENDER_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise GraphTooLarge(f"Graphviz took more than {RENDER_TIMEOUT:.0f} s to lay it out; "
                            "narrow it with --select and --depth") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise TensorwegError(f"Graphviz could not render it: {visible(reason[0]) if reason else done.returncode}")
    return done.stdout


def fresh_stem(folder: Path, stem: str, suffixes: Iterable[str]) -> Path:
    """`folder/stem`, or `stem-2`, `stem-3`... : the first for which no file with any of `suffixes` exists."""
    stem = re.sub(r"[^\w.-]+", "_", stem, flags=re.ASCII).strip("._")[:60] or "graph"
    suffixes = tuple(suffixes)
    number = 1
    while True:
        candidate = folder / (stem if number == 1 else f"{stem}-{number}")
        if not any(candidate.with_name(candidate.name + suffix).exists() for suffix in suffixes):
            return candidate
        number += 1


def write_graph(out: Path, dot_text: str, boxes: int, force: bool = False) -> None:
    """`tensorweg graph -o out`: the DOT text, or Graphviz's rendering of it. A picture Graphviz cannot
    take (`GraphTooLarge`) leaves `out` unwritten and writes `out.dot` instead, then raises, naming it."""
    if out.suffix.lower() == ".dot":
        write_whole(out, dot_text, overwrite=force)
        return
    try:
        data = render(dot_text, out.suffix.lower().lstrip("."), boxes)
    except GraphTooLarge as exc:
        beside = out.with_suffix(".dot")
        write_whole(beside, dot_text, overwrite=force)
        raise GraphTooLarge(f"{out}: not written: {exc}; the graph is in {beside} "
                            f"(render it with `dot -T{out.suffix.lstrip('.')} {beside} -o {out}`)") from None
    write_whole(out, data, overwrite=force)


def export_graph(folder: Path, stem: str, dot_text: str, boxes: int) -> tuple[tuple[Path, ...], str]:
    """The app's export: `stem.dot`, and `stem.svg` where Graphviz is installed, under a name no file in
    `folder` has yet. Returns the files written and why the SVG is missing ("" when it is not, "graphviz"
    when Graphviz is not installed)."""
    base = fresh_stem(folder, stem, (".dot", ".svg"))
    dot_file, svg_file = base.with_name(base.name + ".dot"), base.with_name(base.name + ".svg")
    svg, why = None, ""
    if graphviz() is None:
        why = "graphviz"
    else:
        try:
            svg = render(dot_text, "svg", boxes)
        except TensorwegError as exc:
            why = str(exc)
    write_whole(dot_file, dot_text, overwrite=False)
    if svg is None:
        return (dot_file,), why
    try:
        write_whole(svg_file, svg, overwrite=False)
    except TensorwegError:
        dot_file.unlink(missing_ok=True)  # the pair, or nothing
        raise
    return (dot_file, svg_file), ""


def export_line(files: tuple[Path, ...], why: str, lang: str) -> str:
    """What the status line says after the app's export: the files' names, and why there is no SVG."""
    names = ", ".join(path.name for path in files)
    if not why:
        return label("graph.exported", lang).format(files=names)
    if why == "graphviz":
        return label("graph.exported_dot_only", lang).format(files=names)
    return label("graph.export_too_large", lang).format(files=names, reason=why)
