"""Memory-layout arithmetic for one array shape: strides, tiles, padding, bytes.

Pure functions behind the memory-layout pane. The tiling rules follow XLA's
"Tiled layout" document (openxla/xla docs/tiled_layout.md):

* `minor_to_major` orders the logical dimensions physically; the physical
  order, most major first, is `reversed(minor_to_major)`.
* A tile applies to the most minor physical dimensions (a suffix); each
  covered dimension of size d becomes (ceil(d/t) tiles, t within the tile)
  and all within-tile dimensions move to the minor end (pad, reshape,
  transpose). Padding is the rounding up of d to a multiple of t.
* Later tiles (e.g. the `(2,1)` of bf16's `T(8,128)(2,1)`) apply the same way
  to the result of the earlier ones.
* A tile entry of -1 (printed `*`) merges that dimension into the next more
  minor one before tiling.
* A tile with more dimensions than the array pads the array with leading
  size-1 dimensions (TPU scalars are written `f32[]{:T(128)}`).

Bytes: an `E(n)` layout attribute gives the stored element width in bits;
otherwise sub-byte types take a whole byte each, as XLA stores them unpacked.
"""

from __future__ import annotations

import re
from math import prod

from explorer.hlo.model import ELEMENT_BITS, Shape

__all__ = [
    "physical_order", "strides", "byte_strides", "element_bits", "tiled_dims",
    "padded_dims", "padded_element_count", "padded_byte_size", "unpadded_byte_size",
    "linear_index",
]

_ELEMENT_SIZE = re.compile(r"E\((\d+)\)")


def _array_dims(shape: Shape) -> tuple[int, ...]:
    if shape.is_tuple:
        raise ValueError("layout arithmetic needs an array shape, not a tuple")
    if any(d < 0 for d in shape.dims):
        raise ValueError("an unbounded dynamic dimension has no memory layout")
    return shape.dims


def physical_order(shape: Shape) -> tuple[int, ...]:
    """Logical dimension numbers, most major first (row-major when no layout)."""
    rank = len(_array_dims(shape))
    if shape.layout is None or len(shape.layout.minor_to_major) != rank:
        return tuple(range(rank))
    return tuple(reversed(shape.layout.minor_to_major))


def strides(shape: Shape) -> tuple[int, ...]:
    """Element strides per logical dimension implied by minor_to_major (tiles ignored)."""
    dims = _array_dims(shape)
    result = [0] * len(dims)
    stride = 1
    for d in reversed(physical_order(shape)):
        result[d] = stride
        stride *= dims[d]
    return tuple(result)


def element_bits(shape: Shape) -> int:
    """Stored bits per element: `E(n)` if the layout says, else the type's width (>= 8)."""
    if shape.layout is not None:
        for extra in shape.layout.extras:
            m = _ELEMENT_SIZE.fullmatch(extra)
            if m:
                return int(m.group(1))
    bits = ELEMENT_BITS.get(shape.element_type, 0)
    return max(bits, 8) if bits else 0


def byte_strides(shape: Shape) -> tuple[int, ...]:
    """`strides` in bytes (tiles ignored); sub-byte packed elements round down."""
    bits = element_bits(shape)
    return tuple(s * bits // 8 for s in strides(shape))


def _apply_tile(index: list[int], dims: list[int], owners: list[frozenset[int]],
                tile_sizes: tuple[int, ...]) -> None:
    """Tile the minor suffix of (index, dims) in place, tracking which logical dims own each."""
    tile = list(tile_sizes)  # a copy: the merges below delete its entries
    if len(tile) > len(dims):  # missing major dimensions count as size 1
        extra = len(tile) - len(dims)
        index[:0], dims[:0], owners[:0] = [0] * extra, [1] * extra, [frozenset()] * extra
    start = len(dims) - len(tile)
    # `*` (-1): merge that dimension into the next more minor one, then drop it.
    i = len(tile) - 1
    while i >= 0:
        if tile[i] < 0 and start + i + 1 < len(dims):
            at = start + i
            index[at + 1] += index[at] * dims[at + 1]
            dims[at + 1] *= dims[at]
            owners[at + 1] |= owners[at]
            del index[at], dims[at], owners[at], tile[i]
        elif tile[i] < 0:
            raise ValueError("a '*' tile entry needs a more minor dimension to merge into")
        i -= 1
    start = len(dims) - len(tile)
    counts, inner = [], []
    for k, t in enumerate(tile):
        if t <= 0:
            raise ValueError(f"tile sizes must be positive, got {t}")
        at = start + k
        counts.append((index[at] // t, -(-dims[at] // t), owners[at]))
        inner.append((index[at] % t, t, owners[at]))
    merged = counts + inner
    index[start:] = [e for e, _, _ in merged]
    dims[start:] = [d for _, d, _ in merged]
    owners[start:] = [o for _, _, o in merged]


def _tiled(shape: Shape, logical_index: tuple[int, ...] | None):
    dims = _array_dims(shape)
    order = physical_order(shape)
    index = [logical_index[d] if logical_index else 0 for d in order]
    cur = [dims[d] for d in order]
    owners = [frozenset({d}) for d in order]
    if shape.layout is not None:
        for tile in shape.layout.tiles:
            _apply_tile(index, cur, owners, tile.dims)
    return index, cur, owners


def tiled_dims(shape: Shape) -> tuple[int, ...]:
    """The array's physical dimensions after all tiles: tile counts, then within-tile sizes.

    `f32[3,5]{1,0:T(2,2)}` -> (2, 3, 2, 2): 2x3 tiles of 2x2 elements.
    """
    return tuple(_tiled(shape, None)[1])


def padded_element_count(shape: Shape) -> int:
    """Elements stored, padding included."""
    return prod(tiled_dims(shape))


def padded_dims(shape: Shape) -> tuple[int, ...]:
    """Each logical dimension rounded up by the tiles that cover it.

    `bf16[2,13]{1,0:T(8,128)(2,1)}` -> (8, 128). A dimension merged with
    another by a `*` tile entry keeps its own size here (the padding of the
    merged pair still counts in `padded_element_count`).
    """
    dims = _array_dims(shape)
    _, cur, owners = _tiled(shape, None)
    result = list(dims)
    for d in range(len(dims)):
        parts = [size for size, owner in zip(cur, owners, strict=True) if owner == frozenset({d})]  # kept in step
        if parts and not any(d in owner and len(owner) > 1 for owner in owners):
            result[d] = prod(parts)
    return tuple(result)


def padded_byte_size(shape: Shape) -> int:
    """Bytes the array occupies with its tiling's padding."""
    return (padded_element_count(shape) * element_bits(shape) + 7) // 8


def unpadded_byte_size(shape: Shape) -> int:
    """Bytes of the array's elements alone (no tile padding)."""
    return (prod(_array_dims(shape)) * element_bits(shape) + 7) // 8


def linear_index(shape: Shape, index: tuple[int, ...]) -> int:
    """Position (in elements) of a logical element in memory, tiles included."""
    dims = _array_dims(shape)
    if len(index) != len(dims) or any(not 0 <= e < d for e, d in zip(index, dims, strict=True)):
        raise ValueError(f"index {index} is outside the shape {dims}")
    position, cur, _ = _tiled(shape, tuple(index))
    linear = 0
    for e, d in zip(position, cur, strict=True):  # _tiled keeps the index and the dims in step
        linear = linear * d + e
    return linear
