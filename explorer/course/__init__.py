"""The course's lessons: tours and their exercises, the lesson list, packs and handouts.

Built on what the views show (a tour step selects a row, a handout draws a screen); the texts
themselves live in `explorer.texts`.
"""
