"""The course's texts shown beside captured data: explanations, glossary, sources, chip figures.

Pure data and lookup: no Textual, no compilers. Texts live as Markdown files under
`content/<lang>/` and are read through importlib.resources, so they ship inside the wheel.
`keys` says which texts explain an item; `lookup` reads them, filling in the item's figures.
"""
