"""HLO data back to the text forms XLA prints (`f32[1,28,28,8]{3,2,1,0}`, `{0,1:T(8,128)(2,1)S(1)}`).

The one place shapes and layouts are printed, so every level, the CLI and the
UI show them exactly as they stand in the module text.
"""

from __future__ import annotations

from explorer.hlo.model import Layout, Shape


def tiles_text(layout: Layout | None) -> str:
    """`T(8,128)(2,1)`: one `T` for the whole tiling; `*` for a combined dimension (-1)."""
    if layout is None or not layout.tiles:
        return ""
    return "T" + "".join("(" + ",".join("*" if d < 0 else str(d) for d in tile.dims) + ")" for tile in layout.tiles)


def format_layout(layout: Layout) -> str:
    """A layout the way XLA prints it: `{1,0:T(8,128)(2,1)S(1)}`."""
    suffix = tiles_text(layout) + "".join(layout.extras)
    if layout.memory_space:
        suffix += f"S({layout.memory_space})"
    return "{" + ",".join(str(d) for d in layout.minor_to_major) + (":" + suffix if suffix else "") + "}"


def format_shape(shape: Shape, with_layout: bool = True) -> str:
    """A shape the way XLA prints it: `f32[<=4,8]{1,0}`, `(f32[], s32[2]{0})`."""
    if shape.is_tuple:
        return "(" + ", ".join(format_shape(s, with_layout) for s in shape.tuple_shapes) + ")"
    if shape.is_buffer:
        return "b(" + "".join(format_shape(s, with_layout) for s in shape.tuple_shapes) + ")"
    dims = []
    for i, d in enumerate(shape.dims):
        dynamic = i < len(shape.dynamic) and shape.dynamic[i]
        dims.append(("<=" if dynamic and d >= 0 else "") + ("?" if d < 0 else str(d)))
    text = f"{shape.element_type}[{','.join(dims)}]"
    return text + (format_layout(shape.layout) if with_layout and shape.layout is not None else "")


# The name most callers use.
shape_text = format_shape
