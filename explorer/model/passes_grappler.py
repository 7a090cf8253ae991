"""Grappler's film: the TensorFlow graph after each Grappler optimizer that changed it.

The TF worker (`explorer.capture.tf_graph.grappler_snapshots`) runs Grappler's optimizers
one at a time, in the meta optimizer's own order, each on the graph the one before it left,
and hands over one text per run. This module turns those texts into a bundle's `grappler/`
folder (the same `index.json` + `frames.json.gz` as XLA's `targets/<t>/passes/`, with
`PassIndex.film == "grappler"`) and reads a frame back into the `explorer.model.passes.Frame`
the diff and the screen already use. No compiler, no Textual.

A graph text has one line per node, in the GraphDef's order:
`name = Op(input, input:1, ^control) key=value ...` (the attributes a learner reads, and a
constant's dtype and dims instead of its values).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from explorer.model.passes import Filmstrip, Frame, Line
from explorer.model.passes_dump import BEFORE, PassIndex, keep_changed, read_pass_index, store_frames

GRAPPLER = "grappler"  # the film's name where a target's name would go (`Bundle.passes`, the screen)
GRAPPLER_DIR = "grappler"  # <bundle>/grappler/: index.json, frames.json.gz
GRAPH = "graph"  # the one "computation" of a graph frame
FUSED_PREFIXES = ("_Fused", "Fused", "_MklFused")  # ops Grappler's remapper fuses into (also the graph level's summary)

_NODE = re.compile(r"^(?P<name>[^\s=]+) = (?P<op>[\w>]+)\((?P<inputs>[^()]*)\)(?P<attributes>.*)$")


def node_line(name: str, op: str, inputs: Iterable[str], attributes: Iterable[tuple[str, str]]) -> str:
    """One node as a frame shows it."""
    extra = "".join(f" {key}={value}" for key, value in attributes)
    return f"{name} = {op}({', '.join(inputs)}){extra}"


def count_nodes(text: str) -> tuple[int, int]:
    """(nodes, fused nodes) of a graph text: the filmstrip's "before/after" and "fused" columns."""
    nodes = fused = 0
    for raw in text.splitlines():
        match = _NODE.match(raw)
        if match:
            nodes += 1
            fused += match["op"].startswith(FUSED_PREFIXES)
    return nodes, fused


def read_graph_frame(text: str) -> Frame:
    """A graph text as a one-computation `Frame`: a node's op is its opcode, its name its op_name."""
    lines = []
    for raw in text.splitlines():
        match = _NODE.match(raw)
        if match:
            lines.append(Line(name=match["name"], opcode=match["op"], shape="", op_name=match["name"], text=raw))
    return Frame({GRAPH: tuple(lines)}, {})


def write_grappler_frames(before: str, runs: list[tuple[str, str, str]], bundle_dir: Path) -> PassIndex:
    """`bundle_dir/grappler/` from the graph text before Grappler and, per optimizer run in the
    order they ran, (pipeline, optimizer, graph text after it). Only runs that changed the graph
    are kept; `sequence` is the run's number (1 for the first)."""
    snapshots = [(-1, "", BEFORE, before)]
    snapshots += [(number, pipeline, name, text) for number, (pipeline, name, text) in enumerate(runs, start=1)]
    frames, texts = keep_changed(snapshots, count_nodes)
    index = PassIndex(frames=tuple(frames), snapshots_dumped=len(runs), film=GRAPPLER)
    store_frames(bundle_dir / GRAPPLER_DIR, index, texts)
    return index


def read_grappler_filmstrip(bundle_dir: Path) -> Filmstrip | None:
    """The bundle's Grappler film, or None when the capture had no `--passes`."""
    passes_dir = bundle_dir / GRAPPLER_DIR
    index = read_pass_index(passes_dir)
    return None if index is None else Filmstrip(passes_dir, index, reader=read_graph_frame)
