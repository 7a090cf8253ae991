"""Boxes and arrows in the terminal for a small neighbourhood of a graph.

grandalf's Sugiyama layout places the boxes (layers top to bottom); this
module only rasterises the result onto a character grid: box outlines,
vertical edges with a corner where they change column, and a `▼` arrowhead.
Which nodes to draw (a selection's neighbourhood) and each box's colour (the
legend shared with `tensorweg graph`) come from `explorer.views.graphs.parts`.
"""

from __future__ import annotations

from rich.text import Text

from explorer.safe_text import visible

BOX_HEIGHT = 3
LAYER_GAP = 3  # grandalf spacing between box rows: leaves two rows for the edges


class _View:
    def __init__(self, w: int, h: int) -> None:
        self.w, self.h, self.xy = w, h, (0.0, 0.0)


def _label(name: str, max_width: int) -> str:
    """A box's label, measured as drawn: a control byte in a name (Rich drops BEL, BS, VT, FF from a
    `Text`) would leave the box's right edge a column short, so it is shown as its stand-in."""
    name = visible(name)
    return name if len(name) <= max_width else "…" + name[-(max_width - 1):]


def draw(nodes: list[str], edges: list[tuple[str, str]], center: str = "", max_label: int = 24) -> list[str]:
    """Lay out `nodes`/`edges` top-down and return the picture as lines.

    The centre node's box is drawn with double lines so the selection stands out.
    """
    grid, _ = _drawn(nodes, edges, center, max_label)
    return grid.lines() if grid is not None else []


def draw_picture(nodes: list[str], edges: list[tuple[str, str]], center: str, styles: dict[str, str],
                 max_label: int = 24) -> tuple[Text, tuple[int, int] | None]:
    """`draw`'s picture as Rich text, each node's box in `styles[name]` (its legend role's style), and
    the middle of the centre node's box as (row, column): what a view scrolls to so the selection shows
    in a pane smaller than the picture (None without a centre box)."""
    grid, boxes = _drawn(nodes, edges, center, max_label)
    if grid is None:
        return Text("", no_wrap=True), None
    lines = grid.lines()
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    text = Text("\n".join(lines), no_wrap=True)
    for name, (row, col, width) in boxes.items():
        style = styles.get(name, "")
        if style:
            for r in range(row, row + BOX_HEIGHT):
                text.stylize(style, starts[r] + col, starts[r] + col + width)
    middle = None
    if center in boxes:
        row, col, width = boxes[center]
        middle = (row + BOX_HEIGHT // 2, col + width // 2)
    return text, middle


def _drawn(nodes: list[str], edges: list[tuple[str, str]], center: str,
           max_label: int) -> tuple[_Grid | None, dict[str, tuple[int, int, int]]]:
    """The grid with the picture on it, and each node's box as (row, column, width)."""
    if not nodes:
        return None, {}
    labels = {n: _label(n, max_label) for n in nodes}
    # grandalf pulls in numpy (half a second): only pay for it when a drawing is asked for.
    from grandalf.graphs import Edge, Graph, Vertex  # noqa: PLC0415 (kept off the first frame)
    from grandalf.layouts import SugiyamaLayout  # noqa: PLC0415 (kept off the first frame)

    vertices = {n: Vertex(n) for n in nodes}
    for n, v in vertices.items():
        v.view = _View(len(labels[n]) + 4, BOX_HEIGHT)
    graph = Graph(list(vertices.values()), [Edge(vertices[a], vertices[b]) for a, b in edges
                                             if a in vertices and b in vertices and a != b])
    boxes: dict[str, tuple[int, int, int]] = {}  # name -> (row, col, width)
    for component in graph.C:
        layout = SugiyamaLayout(component)
        layout.xspace, layout.yspace = 2, LAYER_GAP  # grandalf adds the box height itself
        layout.init_all()
        layout.draw()
        for v in component.sV:
            x, y = v.view.xy
            boxes[v.data] = (int(round(y)), int(round(x - v.view.w / 2)), v.view.w)
    boxes = _from_origin(boxes)
    grid = _Grid(max(r for r, _, _ in boxes.values()) + BOX_HEIGHT, max(c + w for _, c, w in boxes.values()) + 1)
    for a, b in edges:
        if a in boxes and b in boxes and a != b:
            grid.edge(boxes[a], boxes[b])
    for name, (r, c, w) in boxes.items():
        grid.box(r, c, w, labels[name], double=name == center)
    return grid, boxes


def _from_origin(boxes: dict[str, tuple[int, int, int]]) -> dict[str, tuple[int, int, int]]:
    """The boxes shifted so everything starts at row and column 0 (components side by side)."""
    min_row = min(r for r, _, _ in boxes.values())
    min_col = min(c for _, c, _ in boxes.values())
    return {n: (r - min_row, c - min_col, w) for n, (r, c, w) in boxes.items()}


class _Grid:
    """A character grid on which edges that meet merge into a tee instead of overwriting each other."""

    _MERGE = {frozenset("┘└"): "┴", frozenset("┐┌"): "┬"}

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.cells = [[" "] * cols for _ in range(rows)]

    def put(self, r: int, c: int, ch: str) -> None:
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            return
        here = self.cells[r][c]
        if here in " │─":
            self.cells[r][c] = ch
        elif here != ch and frozenset((here, ch)) in self._MERGE:
            self.cells[r][c] = self._MERGE[frozenset((here, ch))]

    def edge(self, source: tuple[int, int, int], sink: tuple[int, int, int]) -> None:
        """Down from the middle of `source`'s box, across where the columns differ, to a `▼` on `sink`'s."""
        ra, ca, wa = source
        rb, cb, wb = sink
        start_col, end_col = ca + wa // 2, cb + wb // 2
        r0, r1 = ra + BOX_HEIGHT, rb - 1
        if r1 < r0:  # back edge: skip rather than draw through boxes
            return
        bend = r0
        for r in range(r0, bend + 1):
            self.put(r, start_col, "│")
        if start_col != end_col:
            step = 1 if end_col > start_col else -1
            for c in range(start_col, end_col, step):
                self.put(bend, c, "─")
            self.put(bend, start_col, "└" if step > 0 else "┘")
            self.put(bend, end_col, "┐" if step > 0 else "┌")
        for r in range(bend + 1, r1):
            self.put(r, end_col, "│")
        self.put(r1, end_col, "▼")

    def box(self, r: int, c: int, w: int, label: str, double: bool) -> None:
        """A box `w` wide at (r, c) around `label`; double lines mark the selection."""
        h, v, tl, tr, bl, br = ("═", "║", "╔", "╗", "╚", "╝") if double else ("─", "│", "┌", "┐", "└", "┘")
        self.cells[r][c:c + w] = [tl] + [h] * (w - 2) + [tr]
        text = f" {label} ".ljust(w - 2)
        self.cells[r + 1][c:c + w] = [v] + list(text) + [v]
        self.cells[r + 2][c:c + w] = [bl] + [h] * (w - 2) + [br]

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.cells]
