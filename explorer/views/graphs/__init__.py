"""Graphs out: a level's graph as parts (nodes, edges, clusters), per bundle, as DOT, and as files."""
