"""Course content shown next to captured data: explanations, glossary, labels and tours.

Pure data and lookup: no Textual, no compilers. Texts live as Markdown files
under `content/<lang>/` and are read through importlib.resources, so they ship
inside the wheel.
"""
