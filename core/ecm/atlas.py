"""Tiles drawn into a compact atlas and copied back into the GVD image, and rectangles filled with one site.

Only the tiles the culling could not settle are shaded (``cull``); they are packed side by side into a small
framebuffer (slot k at column ``k % cols``, row ``k // cols``, ``tile`` pixels square), read back once and copied
to their place in the full image, whose other pixels belong to one site each and are filled directly.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit


@jit
def scatter_tiles(image, atlas, rects, first, count, tile, cols):
    """Copy atlas slots 0..count-1 into ``image`` at ``rects[first + k]`` ([i0, j0, i1, j1]) for slot k."""
    for k in range(count):
        i0 = rects[first + k, 0]
        j0 = rects[first + k, 1]
        i1 = rects[first + k, 2]
        j1 = rects[first + k, 3]
        ai = (k // cols) * tile
        aj = (k % cols) * tile
        for i in range(i1 - i0):
            for j in range(j1 - j0):
                image[i0 + i, j0 + j] = atlas[ai + i, aj + j]


@jit
def fill_rects(image, rects, values):
    """Set ``image[i0:i1, j0:j1] = values[k]`` for every rectangle k ([i0, j0, i1, j1])."""
    for k in range(rects.shape[0]):
        v = values[k]
        for i in range(rects[k, 0], rects[k, 2]):
            for j in range(rects[k, 1], rects[k, 3]):
                image[i, j] = v


@jit
def tile_map(rects, values, nty, ntx, tile):
    """(nty, ntx) int32 label of every tile that one label fills (``rects``/``values`` as ``fill_rects``, whole
    tiles), -3 for the others."""
    out = np.full((nty, ntx), -3, dtype=np.int32)
    for k in range(rects.shape[0]):
        for ty in range(rects[k, 0] // tile, (rects[k, 2] + tile - 1) // tile):
            for tx in range(rects[k, 1] // tile, (rects[k, 3] + tile - 1) // tile):
                out[ty, tx] = values[k]
    return out
