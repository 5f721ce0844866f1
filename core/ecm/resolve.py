"""Tiles of the GVD labelled on the CPU where the GPU's answer is certain, so that only the rest is rendered.

The culling (``cull``) leaves every tile with the sites that may own one of its pixels. Most such tiles are crossed
by one Voronoi edge or one obstacle outline, and at nearly all of their pixels the nearest site wins by far more than
the GPU's rounding: there the label the fragment shader (``gvd``) would write is known from double-precision
distances. A tile is labelled here when every pixel of it is *clear*:

- the nearest site's distance d0 beats every other candidate by more than a margin M (the shader's float32 error,
  bounded by ``MARGIN`` times the tile's depth range and the candidates' extent: its coordinates are double-single
  relative to the tile, its depth a 24-bit fraction of the tile's reach), or all sites within M of d0 have the same
  obstacle vertex as their closest point, clearly (then the GPU computes bit-identical distances and the depth test
  ``LESS`` keeps the first drawn, lowest site id, as ``gvd`` documents);
- the pixel centre lies more than M inside a site (label -1) or more than M outside every site, away from each
  edge line of the site's convex piece (the shader's inside test includes the pieces' diagonals);
- d0 is more than M above 0 and more than M below the tile's reach (the depth stays under the cleared 1.0).

Any other pixel sends its whole tile to the GPU, which renders it as before; the labels are therefore those the GPU
gives. The label rules are those of ECM section II-A (the nearest site's id, -1 inside obstacles); the distances are
``distance.convex_distance``'s, restricted per tile to the features that can be nearest there (1-Lipschitz bounds
from the tile's centre, as ``cull``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit

#: Safety factor over float32's unit roundoff (6e-8) for the shader's distance and depth: M = MARGIN * (reach +
#: extent + h), about 60 roundoffs of the largest coordinate the shader handles for the tile.
MARGIN = 4e-6


class PieceEdges(NamedTuple):
    """The edges of the convex pieces by position: edge p of site s (``ptr[s] <= p < ptr[s+1]``) runs from ring
    vertex ``start[p]`` to ``end[p]`` (``xy`` rows); ``real[p]`` 1 for a ring edge, 0 for a diagonal, 2 in a piece
    over 64 vertices (the shader's bit mask cannot say)."""

    ptr: np.ndarray
    start: np.ndarray
    end: np.ndarray
    real: np.ndarray
    xy: np.ndarray


def piece_edges(sites) -> PieceEdges:
    """The ``PieceEdges`` of a ``Sites`` (walls: both edges real), with the real flags the shader's masks hold."""
    ptr = sites.piece_ptr.astype(np.int64)
    pv = sites.piece_vert.astype(np.int64)
    counts = np.diff(ptr)
    piece = np.repeat(np.arange(len(counts)), counts)
    nxt = np.arange(len(pv)) + 1
    wrap = nxt == ptr[piece + 1]
    nxt[wrap] = ptr[piece[wrap]]
    end = pv[nxt]
    real = (sites.ring_next[pv] == end).astype(np.uint8)
    real[counts[piece] == 2] = 1
    real[counts[piece] > 64] = 2
    return PieceEdges(ptr, pv, end, real, sites.ring_xy)


@jit(inline=True)
def _tile_end(tiles, q):
    """First quad after the run of quads of the tile of quad q (quads are sorted by tile)."""
    e = q + 1
    while e < tiles.shape[0] and tiles[e, 0] == tiles[q, 0] and tiles[e, 1] == tiles[q, 1]:
        e += 1
    return e


@jit(inline=True)
def _edge(edges, p):
    """Edge p: its ring vertices u and v, the start (ax, ay) and the vector (ex, ey) to its end."""
    u = edges.start[p]
    v = edges.end[p]
    ax = edges.xy[u, 0]
    ay = edges.xy[u, 1]
    return u, v, ax, ay, edges.xy[v, 0] - ax, edges.xy[v, 1] - ay


@jit(inline=True)
def _centre_distance(ax, ay, ex, ey, cx, cy):
    """Distance from (cx, cy) to the segment from (ax, ay) along (ex, ey) (not zero-length)."""
    t = min(1.0, max(0.0, ((cx - ax) * ex + (cy - ay) * ey) / (ex * ex + ey * ey)))
    return np.hypot(cx - ax - t * ex, cy - ay - t * ey)


@jit(noalloc=True)
def _primitives(edges, s, ox, oy, cx, cy, h, r, margin, work, nl, nf):
    """Append to ``work`` site s's edge lines for the inside test (when the piece comes within a pixel of the tile
    of centre c and half-diagonal r) and its real edges that can be nearest in the tile, as functions of the offset
    from the tile's first pixel centre (ox, oy); returns (nl, nf), nf -1 where s cannot be decided here (a piece
    over 64 vertices or with a zero-length edge)."""
    a = edges.ptr[s]
    b = edges.ptr[s + 1]
    best = np.inf
    poly = np.inf
    inside = b - a >= 3
    for p in range(a, b):
        u, v, ax, ay, ex, ey = _edge(edges, p)
        if edges.real[p] == 2 or ex * ex + ey * ey == 0.0:
            return nl, -1
        if ex * (cy - ay) - ey * (cx - ax) < 0.0:
            inside = False
        d = _centre_distance(ax, ay, ex, ey, cx, cy)
        poly = min(poly, d)
        if edges.real[p] == 1:
            best = min(best, d)
    need = inside or poly <= r + max(h, 64.0 * margin)
    for p in range(a, b):
        u, v, ax, ay, ex, ey = _edge(edges, p)
        el = np.sqrt(ex * ex + ey * ey)
        perp = (ex * (oy - ay) - ey * (ox - ax)) / el
        if need:
            work.lines[nl, 0] = perp
            work.lines[nl, 1] = -ey / el
            work.lines[nl, 2] = ex / el
            nl += 1
        if edges.real[p] != 1:
            continue
        # The real-edge distance is 1-Lipschitz: an edge farther than best + 2 r from the centre is never nearest.
        if _centre_distance(ax, ay, ex, ey, cx, cy) > best + 2.0 * r + 4.0 * margin:
            continue
        f = work.feats
        f[nf, 0] = ((ox - ax) * ex + (oy - ay) * ey) / el
        f[nf, 1] = ex / el
        f[nf, 2] = ey / el
        f[nf, 3] = el
        f[nf, 4] = perp
        f[nf, 5] = -ey / el
        f[nf, 6] = ex / el
        f[nf, 7] = ax - ox
        f[nf, 8] = ay - oy
        f[nf, 9] = edges.xy[v, 0] - ox
        f[nf, 10] = edges.xy[v, 1] - oy
        work.fvert[nf, 0] = u
        work.fvert[nf, 1] = v
        nf += 1
    return nl, nf


@jit(inline=True)
def _inside_state(lines, l0, l1, u, v, margin):
    """1 where pixel (u, v) lies more than ``margin`` inside all lines ``l0:l1`` of a piece, 0 more than ``margin``
    outside one, -1 otherwise (the shader's float32 inside test, diagonals included, could go either way)."""
    state = 1
    for k in range(l0, l1):
        sd = lines[k, 0] + u * lines[k, 1] + v * lines[k, 2]
        if sd < -margin:
            return 0
        if sd <= margin:
            state = -1
    return state


@jit(inline=True)
def _edge_distance(feats, fvert, k, x, y, margin):
    """(distance from (x, y) (relative to the tile's first pixel centre) to edge k, the end vertex that is clearly
    its closest point, else -1)."""
    along = feats[k, 0] + x * feats[k, 1] + y * feats[k, 2]
    el = feats[k, 3]
    if along <= 0.0:
        dx = x - feats[k, 7]
        dy = y - feats[k, 8]
        return np.sqrt(dx * dx + dy * dy), fvert[k, 0] if along < -margin else -1
    if along >= el:
        dx = x - feats[k, 9]
        dy = y - feats[k, 10]
        return np.sqrt(dx * dx + dy * dy), fvert[k, 1] if along > el + margin else -1
    return abs(feats[k, 4] + x * feats[k, 5] + y * feats[k, 6]), -1


@jit(inline=True)
def _label_at(x, y, nc, cand, work, near, spread, reach):
    """The label the shader gives every pixel within ``near - M`` of (x, y) (relative to the tile's first pixel
    centre) among the candidates ``cand`` (ascending ids), or -2 where it is not certain. A pixel is ``near = M``,
    ``spread = M``; a block of half-diagonal rb is ``near = M + rb``, ``spread = M + 2 rb`` (every distance and
    signed distance here is 1-Lipschitz, so what holds at the centre with these margins holds at every pixel)."""
    m0 = np.inf
    for c in range(nc):
        if work.lptr[c + 1] > work.lptr[c]:
            st = _inside_state(work.lines, work.lptr[c], work.lptr[c + 1], x, y, near)
            if st < 0:
                return -2
            if st == 1:
                work.dist[c] = 0.0
                work.vkey[c] = -3
                m0 = 0.0
                continue
        best = np.inf
        for k in range(work.fptr[c], work.fptr[c + 1]):
            d, w = _edge_distance(work.feats, work.fvert, k, x, y, near)
            work.fd[k] = d
            work.fw[k] = w
            best = min(best, d)
        vk = -2
        for k in range(work.fptr[c], work.fptr[c + 1]):
            if work.fd[k] <= best + spread:
                if work.fw[k] < 0 or (vk != -2 and vk != work.fw[k]):
                    vk = -1
                    break
                vk = work.fw[k]
        work.dist[c] = best
        work.vkey[c] = vk
        m0 = min(m0, best)
    if m0 + near >= reach:
        return -2
    first = -1
    for c in range(nc):
        if work.dist[c] > m0 + spread:
            continue
        if first < 0:
            first = c
        elif work.vkey[c] < 0 or work.vkey[c] != work.vkey[first]:
            return -2
    if work.vkey[first] == -3:
        return -1
    if work.dist[first] <= near:
        return -2
    return cand[first]


@jit(noalloc=True)
def _tile_labels(tw, th, nc, cand, work, margin, reach, h, out):
    """Labels of the tile's ``th`` x ``tw`` pixels into ``out``, by quadrants: a block certain as a whole is filled
    from its centre, the others split down to single pixels; False where a pixel is not certain."""
    size = 1
    while size < max(tw, th):
        size *= 2
    stack = work.stack
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = size
    n = 1
    while n > 0:
        n -= 1
        u0 = stack[n, 0]
        v0 = stack[n, 1]
        sz = stack[n, 2]
        u1 = min(u0 + sz, tw)
        v1 = min(v0 + sz, th)
        if u0 >= tw or v0 >= th:
            continue
        rb = 0.5 * h * np.hypot(u1 - u0 - 1, v1 - v0 - 1)
        lab = _label_at(0.5 * (u0 + u1 - 1) * h, 0.5 * (v0 + v1 - 1) * h, nc, cand, work, margin + rb,
                        margin + 2.0 * rb, reach)
        if lab != -2:
            for v in range(v0, v1):
                for u in range(u0, u1):
                    out[v, u] = lab
            continue
        if sz == 1:
            return False
        half = sz // 2
        for k in range(4):
            stack[n, 0] = u0 + half * (k % 2)
            stack[n, 1] = v0 + half * (k // 2)
            stack[n, 2] = half
            n += 1
    return True


class TileWork(NamedTuple):
    """Scratch of ``resolve_tiles`` for one tile: the candidates' inside-test lines (value at the first pixel
    centre, step per column, per row; candidate c's are ``lines[lptr[c]:lptr[c+1]]``), their edges that can be
    nearest (``feats``: along-edge coordinate and its steps, length, perpendicular distance and its steps, both ends
    relative to the first pixel centre; ``fvert`` the ends' ring vertices), per-pixel distances and the stack of
    blocks still to label."""

    lines: np.ndarray
    lptr: np.ndarray
    feats: np.ndarray
    fvert: np.ndarray
    fptr: np.ndarray
    fd: np.ndarray
    fw: np.ndarray
    dist: np.ndarray
    vkey: np.ndarray
    stack: np.ndarray
    out: np.ndarray


def tile_work(edges: PieceEdges, tile: int) -> TileWork:
    """Scratch arrays big enough for any tile (at most ``tile`` pixels square) of these sites."""
    m = len(edges.start)
    ns = len(edges.ptr) - 1
    return TileWork(np.empty((m, 3)), np.empty(ns + 1, np.int64), np.empty((m, 11)), np.empty((m, 2), np.int64),
                    np.empty(ns + 1, np.int64), np.empty(m), np.empty(m, np.int64), np.empty(ns),
                    np.empty(ns, np.int64), np.empty((64, 3), np.int64),
                    np.empty((tile, tile), np.int32))


@jit(noalloc=True)
def resolve_tiles(edges, pix, tiles, tsites, treach, labels, work, render, tmap):
    """Label every tile whose pixels are all certain (module docstring) straight into ``labels``; sets ``render``
    (k,) True for the quads (``tiles``/``tsites``/``treach`` rows, sorted by tile then site) still to draw, and
    ``tmap[ty, tx]`` (tiles of ``work.out``'s size) to the label of a tile labelled here with one label."""
    nq_all = tiles.shape[0]
    out = work.out
    h = pix.h
    q0 = 0
    while q0 < nq_all:
        q1 = _tile_end(tiles, q0)
        i0 = tiles[q0, 0]
        j0 = tiles[q0, 1]
        i1 = tiles[q0, 2]
        j1 = tiles[q0, 3]
        ox = pix.x0 + (j0 + 0.5) * h
        oy = pix.y0 + (i0 + 0.5) * h
        cx = pix.x0 + 0.5 * (j0 + j1) * h
        cy = pix.y0 + 0.5 * (i0 + i1) * h
        r = 0.5 * h * np.hypot(j1 - j0, i1 - i0)
        reach = treach[q0]
        # The shader's float32 error grows with the largest coordinate it handles for the tile (its candidates'
        # farthest vertex) and the depth's 24-bit step with the tile's reach.
        far = 0.0
        for q in range(q0, q1):
            s = tsites[q]
            for p in range(edges.ptr[s], edges.ptr[s + 1]):
                far = max(far, np.hypot(edges.xy[edges.start[p], 0] - cx, edges.xy[edges.start[p], 1] - cy) + r)
        margin = MARGIN * (reach + far + h)
        nl = 0
        nf = 0
        for c in range(q1 - q0):
            work.lptr[c] = nl
            work.fptr[c] = nf
            nl, nf = _primitives(edges, tsites[q0 + c], ox, oy, cx, cy, h, r, margin, work, nl, nf)
            if nf < 0:
                break
        work.lptr[q1 - q0] = nl
        work.fptr[q1 - q0] = nf
        if nf < 0 or not _tile_labels(j1 - j0, i1 - i0, q1 - q0, tsites[q0:q1], work, margin, reach, h, out):
            for q in range(q0, q1):
                render[q] = True
        else:
            for q in range(q0, q1):
                render[q] = False
            one = out[0, 0]
            for i in range(i0, i1):
                for j in range(j0, j1):
                    labels[i, j] = out[i - i0, j - j0]
                    if out[i - i0, j - j0] != one:
                        one = -3
            if one != -3:
                tmap[i0 // out.shape[0], j0 // out.shape[1]] = one
        q0 = q1
