"""Which sites can own a pixel of a screen tile: the coarse half of the GVD's coarse-to-fine rendering.

A site s can be the nearest one somewhere in a tile of centre c and half-diagonal r only if
``d_s(c) - r <= d(p) <= d(c) + r`` for a point p of the tile (distances are 1-Lipschitz), i.e. only if
``d_s(c) <= d(c) + 2 r`` where d is the distance to the nearest site. Drawing each site only over the tiles it may
own keeps the per-pixel work (the fragment shader's exact distance, Hoff et al.'s distance mesh replaced by a
bounded quad) to the two or three sites that compete there, instead of every site over its whole distance cone.

The test runs twice: on coarse blocks of ``sub`` x ``sub`` tiles (at most about 64 blocks along a side, whatever
the resolution), then on the tiles of each block against the block's candidates only, which hold every candidate
of its tiles (a site nearest somewhere in a tile is nearest somewhere in its block). A block or tile whose only
candidate is one site, more than a pixel outside or inside that site, is settled pixel for pixel (the site, or -1
in the obstacle): it is *filled*, not drawn. Only the tiles around Voronoi boundaries and obstacle edges reach the
GPU, and the cost of culling grows with the boundaries' length in tiles rather than with the image.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import reserve

from .distance import convex_distance

#: Coarse blocks along the image's longer side (at most): the first culling level's work is fixed by it.
COARSE_BLOCKS = 64


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
def _block_candidates(pieces, grid, cx, cy, r, stamp, dist, tid, cand):
    """Sites that may own a point of the square of centre c and half-diagonal r: (count in ``cand``, nearest)."""
    gnx = grid.nx
    gny = grid.ny
    gsize = grid.size
    ci = max(0, min(gnx - 1, int(np.floor((cx - grid.x0) / gsize))))
    cj = max(0, min(gny - 1, int(np.floor((cy - grid.y0) / gsize))))
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
                    for q in range(grid.ptr[c], grid.ptr[c + 1]):
                        s = grid.idx[q]
                        if stamp[s] != tid:
                            stamp[s] = tid
                            dist[s] = convex_distance(pieces.ptr, pieces.vert, pieces.xy, s, cx, cy)
                            if dist[s] < best:
                                best = dist[s]
                ii += step
        k += 1
    reach = best + 2.0 * r
    gi0 = max(0, int(np.floor((cx - reach - grid.x0) / gsize)))
    gi1 = min(gnx - 1, int(np.floor((cx + reach - grid.x0) / gsize)))
    gj0 = max(0, int(np.floor((cy - reach - grid.y0) / gsize)))
    gj1 = min(gny - 1, int(np.floor((cy + reach - grid.y0) / gsize)))
    tid2 = tid + 1
    n = 0
    for jj in range(gj0, gj1 + 1):
        for ii in range(gi0, gi1 + 1):
            c = jj * gnx + ii
            for q in range(grid.ptr[c], grid.ptr[c + 1]):
                s = grid.idx[q]
                if stamp[s] == tid2:
                    continue
                if stamp[s] != tid:
                    dist[s] = convex_distance(pieces.ptr, pieces.vert, pieces.xy, s, cx, cy)
                stamp[s] = tid2
                if dist[s] <= reach * (1.0 + 1e-9) + 1e-12:
                    cand[n] = s
                    n += 1
    return n, best


@jit
def _settled(pieces, s, pix, i0, j0, i1, j1):
    """The label site s alone gives every pixel centre of rows i0:i1, columns j0:j1: s where all lie more than a
    pixel outside it, -1 where all lie more than a pixel inside it, -2 where neither holds (the tile is drawn)."""
    h = pix.h
    px0 = pix.x0 + (j0 + 0.5) * h
    px1 = pix.x0 + (j1 - 0.5) * h
    py0 = pix.y0 + (i0 + 0.5) * h
    py1 = pix.y0 + (i1 - 0.5) * h
    d = convex_distance(pieces.ptr, pieces.vert, pieces.xy, s, 0.5 * (px0 + px1), 0.5 * (py0 + py1))
    if d > 0.5 * np.hypot(px1 - px0, py1 - py0) + h:
        return s
    a = pieces.ptr[s]
    n = pieces.ptr[s + 1] - a
    if n < 3:
        return -2
    for k in range(n):
        u = pieces.vert[a + (k + n - 1) % n]
        v = pieces.vert[a + k]
        ex = pieces.xy[v, 0] - pieces.xy[u, 0]
        ey = pieces.xy[v, 1] - pieces.xy[u, 1]
        margin = h * np.hypot(ex, ey)
        for c in range(4):
            px = px0 if c % 2 == 0 else px1
            py = py0 if c < 2 else py1
            if ex * (py - pieces.xy[u, 1]) - ey * (px - pieces.xy[u, 0]) < margin:
                return -2
    return -1


@jit(inline=True)
def _add_fill(fills, fill_s, nf, i0, j0, i1, j1, own):
    """Append the filled rectangle [i0, i1) x [j0, j1) owned by ``own`` (the arrays grown as needed)."""
    fills = reserve(fills, nf + 1)
    fill_s = reserve(fill_s, nf + 1)
    fills[nf, 0] = i0
    fills[nf, 1] = j0
    fills[nf, 2] = i1
    fills[nf, 3] = j1
    fill_s[nf] = own
    return fills, fill_s, nf + 1


@jit
def cull_tiles(pix, tile, sub, pieces, grid, fill):
    """Candidate sites of every tile drawn, and the rectangles filled with one site.

    Returns ``(tiles (k, 4) int32 [i0, j0, i1, j1], sites (k,) int32, reach (k,) float64, fills (m, 4) int32,
    fill_sites (m,) int32)``: one row per (tile, candidate site) pair to draw; ``reach`` bounds the distance of the
    tile's nearest site anywhere in the tile (d(c) + r, padded), which scales the tile's depth. Tiles are ``tile``
    pixels square (smaller at the image's far edges), culled in blocks of ``sub`` x ``sub`` tiles. With ``fill``
    False every tile is drawn (the distance image needs every pixel shaded).
    """
    width = pix.width
    height = pix.height
    h = pix.h
    ns = pieces.ptr.shape[0] - 1
    ntx = (width + tile - 1) // tile
    nty = (height + tile - 1) // tile
    bsz = tile * sub
    nbx = (width + bsz - 1) // bsz
    nby = (height + bsz - 1) // bsz
    stamp = np.full(ns, -1, dtype=np.int64)
    dist = np.zeros(ns, dtype=np.float64)
    cand = np.empty(ns, dtype=np.int32)
    fd = np.empty(ns, dtype=np.float64)
    out_t = np.empty((1024, 4), dtype=np.int32)
    out_s = np.empty(1024, dtype=np.int32)
    out_r = np.empty(1024, dtype=np.float64)
    fills = np.empty((256, 4), dtype=np.int32)
    fill_s = np.empty(256, dtype=np.int32)
    n = 0
    nf = 0
    tid = 0
    for by in range(nby):
        for bx in range(nbx):
            bj0 = bx * bsz
            bi0 = by * bsz
            bj1 = min(width, bj0 + bsz)
            bi1 = min(height, bi0 + bsz)
            cx = pix.x0 + 0.5 * (bj0 + bj1) * h
            cy = pix.y0 + 0.5 * (bi0 + bi1) * h
            r = 0.5 * h * np.hypot(bj1 - bj0, bi1 - bi0)
            nc, best = _block_candidates(pieces, grid, cx, cy, r, stamp, dist, tid, cand)
            tid += 2
            own = _settled(pieces, cand[0], pix, bi0, bj0, bi1, bj1) if fill and nc == 1 else -2
            if own != -2:
                fills, fill_s, nf = _add_fill(fills, fill_s, nf, bi0, bj0, bi1, bj1, own)
                continue
            for ty in range(bi0 // tile, min(nty, (bi1 + tile - 1) // tile)):
                for tx in range(bj0 // tile, min(ntx, (bj1 + tile - 1) // tile)):
                    j0 = tx * tile
                    i0 = ty * tile
                    j1 = min(width, j0 + tile)
                    i1 = min(height, i0 + tile)
                    tcx = pix.x0 + 0.5 * (j0 + j1) * h
                    tcy = pix.y0 + 0.5 * (i0 + i1) * h
                    tr = 0.5 * h * np.hypot(j1 - j0, i1 - i0)
                    tbest = np.inf
                    for q in range(nc):
                        fd[q] = convex_distance(pieces.ptr, pieces.vert, pieces.xy, cand[q], tcx, tcy)
                        if fd[q] < tbest:
                            tbest = fd[q]
                    reach = tbest + 2.0 * tr
                    first = n
                    for q in range(nc):
                        if fd[q] <= reach * (1.0 + 1e-9) + 1e-12:
                            out_t = reserve(out_t, n + 1)
                            out_s = reserve(out_s, n + 1)
                            out_r = reserve(out_r, n + 1)
                            out_t[n, 0] = i0
                            out_t[n, 1] = j0
                            out_t[n, 2] = i1
                            out_t[n, 3] = j1
                            out_s[n] = cand[q]
                            out_r[n] = 2.0 * (tbest + tr) + h
                            n += 1
                    own = _settled(pieces, out_s[first], pix, i0, j0, i1, j1) if fill and n == first + 1 else -2
                    if own != -2:
                        fills, fill_s, nf = _add_fill(fills, fill_s, nf, i0, j0, i1, j1, own)
                        n = first
    return out_t[:n].copy(), out_s[:n].copy(), out_r[:n].copy(), fills[:nf].copy(), fill_s[:nf].copy()
