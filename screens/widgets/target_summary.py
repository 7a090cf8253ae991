"""Whole-model figures per target, one column each (`explorer.views.compare.target_summary`).

A Rich table in a Static: it wraps its cells to the width it is given, so the
same widget reads at 80 columns and at 200. Cell texts come from
`explorer.views.compare.text`, so the screen says what `tensorweg compare` prints.
"""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from explorer.labels import label
from explorer.views.compare import TargetSummary
from explorer.views.compare.text import summary_rows


def target_table(title: str, targets: list[tuple[str, str]], rows: list[tuple[str, list[str]]]) -> Table:
    """A label column, then one column per (target, subtitle); cells wrap, never crop."""
    # The title names a layer: text, not markup.
    table = Table(title=escape(title), title_justify="left", box=box.SIMPLE_HEAD, expand=True,
                  padding=(0, 1), show_edge=False, header_style="bold", title_style="bold")
    table.add_column("", style="bold", no_wrap=True, min_width=8, ratio=None)
    for target, subtitle in targets:
        header = Text(target)
        if subtitle:
            header.append("\n" + subtitle, style="dim")
        table.add_column(header, overflow="fold", ratio=1)
    for name, cells in rows:
        table.add_row(Text(name), *(Text(cell) for cell in cells))
    return table


class TargetSummaryTable(Static):
    """The per-target summary: kernels, fusions, peak memory, FLOPs, bytes, estimated time."""

    def show(self, summaries: list[TargetSummary], lang: str = "en") -> None:
        self.summaries = list(summaries)
        targets = [(s.target, "" if s.captured else label("state.not_captured", lang)) for s in summaries]
        self.update(target_table(label("compare.model_per_target", lang), targets, summary_rows(summaries, lang)))
