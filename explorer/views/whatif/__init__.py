"""The what-if lab: two variants of one model side by side (figures, words, panes, the memory skyline,
which cached variants there are)."""
