"""HloSharding text as tiles: which slice of an array each device holds.

`{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}` as XLA prints it on an instruction
(`sharding=`), read into the tiles the array is cut into and the device holding each tile
(the picture `jax.debug.visualize_sharding` draws). The mesh view (`explorer.views.mesh`) reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product


@dataclass(frozen=True)
class TileSharding:
    """An HloSharding as tiles: the array is cut into `tiles` (per dimension), each tile held by
    `replicas` devices. devices: XLA's tile assignment, flattened row-major over tiles + (replicas,)."""

    tiles: tuple[int, ...]
    replicas: int
    devices: tuple[int, ...]


_TILED = re.compile(r"devices=\[([\d,]+)\](?:<=\[([\d,]+)\](?:T\(([\d,]+)\))?|([\d,]+))")
_MAXIMAL = re.compile(r"maximal device=(\d+)")
_LAST_DIMS = re.compile(r"last_tile_dims=\{([^}]*)\}")


def parse_sharding(text: str, rank: int, devices: int) -> TileSharding | None:
    """`{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}` for a rank-2 array -> tiles (1, 2),
    2 replicas, devices (0, 2, 1, 3). None for what has no slices to draw (tuples, manual)."""
    body = text.strip()
    if body.startswith("{{") or "manual" in body and "devices=" not in body:
        return None
    if "replicated" in body and "devices=" not in body:
        return TileSharding((1,) * rank, devices, tuple(range(devices)))
    if maximal := _MAXIMAL.search(body):
        return TileSharding((1,) * rank, 1, (int(maximal.group(1)),))
    tiled = _TILED.search(body)
    if not tiled:
        return None
    dims = tuple(int(d) for d in tiled.group(1).split(","))
    if tiled.group(4) is not None:
        order = tuple(int(d) for d in tiled.group(4).split(","))
    else:
        reshape = tuple(int(d) for d in tiled.group(2).split(","))
        perm = tuple(int(d) for d in tiled.group(3).split(",")) if tiled.group(3) else tuple(range(len(reshape)))
        order = _iota(reshape, perm)
    extra = len(dims) - rank  # trailing dimensions that replicate (or are manual) rather than cut
    if last := _LAST_DIMS.search(body):
        extra = len([d for d in last.group(1).split(",") if d.strip()])
    elif "last_tile_dim_replicate" in body:
        extra = 1
    replicas = 1
    for dim in dims[len(dims) - extra:]:
        replicas *= dim
    return TileSharding(dims[: len(dims) - extra] if extra else dims, replicas, order)


def _iota(reshape: tuple[int, ...], perm: tuple[int, ...]) -> tuple[int, ...]:
    """`<=[2,2]T(1,0)`: the device numbers 0..n-1 laid out as `reshape`, transposed by `perm`, flattened."""
    strides = [1] * len(reshape)
    for axis in range(len(reshape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * reshape[axis + 1]
    permuted = [reshape[p] for p in perm]
    return tuple(sum(index[k] * strides[perm[k]] for k in range(len(perm)))
                 for index in product(*(range(d) for d in permuted)))


def device_ranges(dims: tuple[int, ...], sharding: TileSharding) -> dict[int, tuple[tuple[int, int], ...]]:
    """device -> (start, stop) per dimension of the slice it holds."""
    held = {}
    for position, tile in enumerate(product(*(range(t) for t in sharding.tiles), range(sharding.replicas))):
        ranges = []
        for dim, count, index in zip(dims, sharding.tiles, tile, strict=False):
            size = -(-dim // count)
            ranges.append((min(index * size, dim), min((index + 1) * size, dim)))
        held[sharding.devices[position]] = tuple(ranges)
    return held
