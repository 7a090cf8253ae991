"""What any screen or command shows: rows, the trace, panes, explanations, comparison, mesh, passes.

Plain functions over a bundle (no Textual): the screens draw what they return, the CLI prints it,
the tests check it.
"""
