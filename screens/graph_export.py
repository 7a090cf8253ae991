"""`e` on the drawn-graph screens (layers, graph) and the compare screen: the picture as files.

The picture (DOT text and how many boxes it draws) is built by the core (`explorer.views`); this
module runs Graphviz and the writing on a thread worker (a large picture takes `dot` seconds) and
puts the outcome in the status line: the new files' names, never overwriting (a fresh name in the
current directory, `graph_files.export_graph`). A browser tab of `tensorweg serve` writes nothing:
its current directory is the server's, not the learner's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual.dom import DOMNode

from explorer.errors import TensorwegError
from explorer.labels import label
from explorer.views.graphs.files import export_graph, export_line

from screens.serve import policy as serve_policy

# () -> (the DOT text, the boxes it draws); raises TensorwegError when there is nothing to draw.
PictureBuilder = Callable[[], tuple[str, int]]


def export_picture(node: DOMNode, stem: str, build: PictureBuilder) -> None:
    """Write the picture `build` makes as `stem.dot` (and `.svg`) in the current directory, off the UI thread."""
    app = node.app
    if serve_policy.in_browser():
        app.notify(label("graph.export_in_browser", app.lang))
        return
    node.run_worker(partial(_export, app, stem, build), thread=True, group="graph-export", exclusive=True)


def _export(app, stem: str, build: PictureBuilder) -> None:
    lang = app.lang
    try:
        text, boxes = build()
        files, why = export_graph(Path.cwd(), stem, text, boxes)
        message = export_line(files, why, lang)
    except TensorwegError as exc:
        message = label("graph.export_failed", lang).format(reason=exc)
    app.call_from_thread(app.notify, message)
