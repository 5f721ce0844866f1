"""Which sites can own a pixel of a screen tile: the coarse half of the GVD's coarse-to-fine rendering.

A site s can be the nearest one somewhere in a tile of centre c and half-diagonal r only if
``d_s(c) - r <= d(p) <= d(c) + r`` for a point p of the tile (distances are 1-Lipschitz), i.e. only if
``d_s(c) <= d(c) + 2 r`` where d is the distance to the nearest site. Drawing each site only over the tiles it may
own keeps the per-pixel work (the fragment shader's exact distance, Hoff et al.'s distance mesh replaced by a
bounded quad) to the two or three sites that compete there, instead of every site over its whole distance cone.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .distance import convex_distance


@jit
def site_grid(bbox, x0, y0, size, nx, ny):
    """Bucket grid of site bounding boxes: (ptr (nx*ny+1,) int32, idx (k,) int32) listing the sites per cell."""
    ns = bbox.shape[0]
    counts = np.zeros(nx * ny + 1, dtype=np.int32)
    for s in range(ns):
        i0 = max(0, min(nx - 1, int(np.floor((bbox[s, 0] - x0) / size))))
        i1 = max(0, min(nx - 1, int(np.floor((bbox[s, 2] - x0) / size))))
        j0 = max(0, min(ny - 1, int(np.floor((bbox[s, 1] - y0) / size))))
        j1 = max(0, min(ny - 1, int(np.floor((bbox[s, 3] - y0) / size))))
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                counts[j * nx + i + 1] += 1
    ptr = np.cumsum(counts).astype(np.int32)
    fill = ptr[:-1].copy()
    idx = np.empty(ptr[-1], dtype=np.int32)
    for s in range(ns):
        i0 = max(0, min(nx - 1, int(np.floor((bbox[s, 0] - x0) / size))))
        i1 = max(0, min(nx - 1, int(np.floor((bbox[s, 2] - x0) / size))))
        j0 = max(0, min(ny - 1, int(np.floor((bbox[s, 1] - y0) / size))))
        j1 = max(0, min(ny - 1, int(np.floor((bbox[s, 3] - y0) / size))))
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                c = j * nx + i
                idx[fill[c]] = s
                fill[c] += 1
    return ptr, idx


@jit
def cull_tiles(width, height, tile, h, bx0, by0, piece_ptr, piece_vert, xy, gx0, gy0, gsize, gnx, gny, gptr, gidx):
    """Candidate sites of every tile: (tiles (k, 4) int32 [i0, j0, i1, j1], sites (k,) int32, reach (k,) float64).

    Pixel (i, j) has its centre at (bx0 + (j + 0.5) h, by0 + (i + 0.5) h); tiles are ``tile`` pixels square
    (smaller at the image's far edges). One output row per (tile, candidate site) pair; ``reach`` bounds the
    distance of the tile's nearest site anywhere in the tile (d(c) + r, padded), which scales the tile's depth.
    """
    ns = piece_ptr.shape[0] - 1
    ntx = (width + tile - 1) // tile
    nty = (height + tile - 1) // tile
    stamp = np.full(ns, -1, dtype=np.int64)
    dist = np.zeros(ns, dtype=np.float64)
    cap = max(1024, ntx * nty * 4)
    out_t = np.empty((cap, 4), dtype=np.int32)
    out_s = np.empty(cap, dtype=np.int32)
    out_r = np.empty(cap, dtype=np.float64)
    n = 0
    for ty in range(nty):
        for tx in range(ntx):
            tid = ty * ntx + tx
            j0 = tx * tile
            i0 = ty * tile
            j1 = min(width, j0 + tile)
            i1 = min(height, i0 + tile)
            cx = bx0 + 0.5 * (j0 + j1) * h
            cy = by0 + 0.5 * (i0 + i1) * h
            r = 0.5 * h * np.hypot(j1 - j0, i1 - i0)
            ci = max(0, min(gnx - 1, int(np.floor((cx - gx0) / gsize))))
            cj = max(0, min(gny - 1, int(np.floor((cy - gy0) / gsize))))
            best = np.inf
            k = 0
            while True:
                if k >= 1 and (k - 1) * gsize > best:
                    break
                if k > gnx + gny:
                    break
                for jj in range(cj - k, cj + k + 1):
                    if jj < 0 or jj >= gny:
                        continue
                    step = 1 if (jj == cj - k or jj == cj + k) else 2 * k
                    if step == 0:
                        step = 1
                    ii = ci - k
                    while ii <= ci + k:
                        if 0 <= ii < gnx:
                            c = jj * gnx + ii
                            for q in range(gptr[c], gptr[c + 1]):
                                s = gidx[q]
                                if stamp[s] != tid:
                                    stamp[s] = tid
                                    dist[s] = convex_distance(piece_ptr, piece_vert, xy, s, cx, cy)
                                    if dist[s] < best:
                                        best = dist[s]
                        ii += step
                k += 1
            reach = best + 2.0 * r
            gi0 = max(0, int(np.floor((cx - reach - gx0) / gsize)))
            gi1 = min(gnx - 1, int(np.floor((cx + reach - gx0) / gsize)))
            gj0 = max(0, int(np.floor((cy - reach - gy0) / gsize)))
            gj1 = min(gny - 1, int(np.floor((cy + reach - gy0) / gsize)))
            tid2 = tid + ntx * nty
            for jj in range(gj0, gj1 + 1):
                for ii in range(gi0, gi1 + 1):
                    c = jj * gnx + ii
                    for q in range(gptr[c], gptr[c + 1]):
                        s = gidx[q]
                        if stamp[s] == tid2:
                            continue
                        if stamp[s] != tid:
                            dist[s] = convex_distance(piece_ptr, piece_vert, xy, s, cx, cy)
                        stamp[s] = tid2
                        if dist[s] <= reach * (1.0 + 1e-9) + 1e-12:
                            if n == cap:
                                cap *= 2
                                nt = np.empty((cap, 4), dtype=np.int32)
                                nt[:n] = out_t[:n]
                                out_t = nt
                                nsit = np.empty(cap, dtype=np.int32)
                                nsit[:n] = out_s[:n]
                                out_s = nsit
                                nr = np.empty(cap, dtype=np.float64)
                                nr[:n] = out_r[:n]
                                out_r = nr
                            out_t[n, 0] = i0
                            out_t[n, 1] = j0
                            out_t[n, 2] = i1
                            out_t[n, 3] = j1
                            out_s[n] = s
                            out_r[n] = 2.0 * (best + r) + h
                            n += 1
    return out_t[:n], out_s[:n], out_r[:n]
