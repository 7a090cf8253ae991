"""HLO data back to the short text forms people read (`f32[1,28,28,8]{3,2,1,0}`)."""

from __future__ import annotations

from explorer.hlo.model import Layout, Shape


def layout_text(layout: Layout | None) -> str:
    if layout is None:
        return ""
    parts = ",".join(str(d) for d in layout.minor_to_major)
    extras = "".join("T(" + ",".join(str(d) for d in tile.dims) + ")" for tile in layout.tiles)
    if layout.memory_space:
        extras += f"S({layout.memory_space})"
    extras += "".join(layout.extras)
    return "{" + parts + (":" + extras if extras else "") + "}"


def shape_text(shape: Shape, with_layout: bool = True) -> str:
    if shape.is_tuple:
        return "(" + ", ".join(shape_text(s, with_layout) for s in shape.tuple_shapes) + ")"
    if shape.element_type in ("token", "opaque") and not shape.dims:
        return f"{shape.element_type}[]"
    dims = ",".join(
        ("<=" if i < len(shape.dynamic) and shape.dynamic[i] else "") + str(d)
        for i, d in enumerate(shape.dims)
    )
    text = f"{shape.element_type}[{dims}]"
    return text + layout_text(shape.layout) if with_layout else text
