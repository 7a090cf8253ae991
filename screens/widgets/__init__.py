"""Reusable widgets of the explorer screens (tables, code views, panes, drawings)."""
