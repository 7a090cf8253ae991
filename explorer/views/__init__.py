"""What any screen or command shows: rows, the trace, panes, explanations, comparison, mesh, passes;
each compiler's program behind the per-target levels (`explorer.views.programs`).

Plain functions over a bundle (no Textual): the screens draw what they return, the CLI prints it,
the tests check it.
"""
