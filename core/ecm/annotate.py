"""Exact annotation of the traced Voronoi edges (ECM section II-B): vertices, event points, closest points.

The pixels only say *which* two obstacles form an edge and roughly where it runs; every number stored comes from
the obstacles' geometry:

- a Voronoi vertex is the point equidistant from the three (or more) sites around its node, solved by
  Gauss-Newton from the pixel corner; an edge ending in an obstacle concavity ends exactly at the vertex that
  the two sides share;
- along an edge, the closest feature (vertex or edge) of each side changes only where the Voronoi edge crosses
  the half-line from an obstacle vertex v along the normal of an incident edge (ECM II-B: "the event points
  correspond to the points on the edge which intersect with the half lines starting at v_i with directions n_i
  and n_i+1"); each such event is solved in closed form on that half-line (``distance.ray_bisector``);
- between two events the edge is a line segment (vertex-vertex, edge-edge) or a parabolic arc (vertex-edge); an
  event is also added at the clearance minimum inside such a piece (the midpoint of two vertices, the apex of a
  parabola), so that the clearance is monotone between consecutive events. That is where a corridor is narrowest,
  which the shrinking (ECM section III) and the clearance test of the graph search need.

Storage: a chain's events come from ring features that its sides pass, so their number is linear in the
obstacles' vertices (ECM II-B).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .distance import feature_closest, ray_bisector, set_closest

MAX_SIDE = 8  # distinct sites recorded per side of a chain
END_SKIP = 1.5  # pixels: crack midpoints this close to an exact end are not used as samples

# Node kinds.
NODE_VERTEX = 0     # a Voronoi vertex: three or more sites equidistant
NODE_TOUCH = 1      # the end of an edge where its two sides meet (a concave corner of the free space)
NODE_OPEN = 2       # the end of an edge that the pixels lost (two obstacles closer than a pixel or so)
NODE_INEXACT = 3    # a vertex whose exact solve did not converge: the pixel corner is kept


@jit
def _add_unique(arr, n, v, cap):
    if v < 0:
        return n
    for k in range(n):
        if arr[k] == v:
            return n
    if n < cap:
        arr[n] = v
        return n + 1
    return n


@jit
def _residual(sides, counts, m, real_ptr, real_edge, xy, ring_next, x, y):
    """Largest |d_k - d_0| over the sides at (x, y), and the mean distance; inf if (x, y) lies in a side."""
    d0, c0x, c0y, f0 = set_closest(real_ptr, real_edge, xy, ring_next, sides[0], counts[0], x, y)
    if d0 <= 0.0:
        return np.inf, 0.0
    worst = 0.0
    total = d0
    for k in range(1, m):
        d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, sides[k], counts[k], x, y)
        if d <= 0.0:
            return np.inf, 0.0
        worst = max(worst, abs(d - d0))
        total += d
    return worst, total / m


@jit
def _gauss_newton(sides, counts, m, real_ptr, real_edge, xy, ring_next, x, y, h, scale, ox, oy):
    """Damped Gauss-Newton on d_k - d_0 = 0 from (x, y), staying within 6 pixels of (ox, oy)."""
    best, R = _residual(sides, counts, m, real_ptr, real_edge, xy, ring_next, x, y)
    for it in range(60):
        if best <= 1e-13 * scale:
            break
        d0, c0x, c0y, f0 = set_closest(real_ptr, real_edge, xy, ring_next, sides[0], counts[0], x, y)
        g0x = (x - c0x) / d0
        g0y = (y - c0y) / d0
        a11 = 0.0
        a12 = 0.0
        a22 = 0.0
        r1 = 0.0
        r2 = 0.0
        for k in range(1, m):
            d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, sides[k], counts[k], x, y)
            jx = (x - cx) / d - g0x
            jy = (y - cy) / d - g0y
            r = d - d0
            a11 += jx * jx
            a12 += jx * jy
            a22 += jy * jy
            r1 += jx * r
            r2 += jy * r
        det = a11 * a22 - a12 * a12
        if abs(det) <= 1e-300:
            break
        dx = -(a22 * r1 - a12 * r2) / det
        dy = -(-a12 * r1 + a11 * r2) / det
        step = np.hypot(dx, dy)
        if step > 2.0 * h:
            dx *= 2.0 * h / step
            dy *= 2.0 * h / step
        # Halve the step until the residual drops (and the point stays out of the sites and near the node).
        moved = False
        for half in range(30):
            nx = x + dx
            ny = y + dy
            if np.hypot(nx - ox, ny - oy) <= 6.0 * h:
                w, Rn = _residual(sides, counts, m, real_ptr, real_edge, xy, ring_next, nx, ny)
                if w < best:
                    best = w
                    R = Rn
                    x = nx
                    y = ny
                    moved = True
                    break
            dx *= 0.5
            dy *= 0.5
        if not moved:
            break
    return x, y, R, best


@jit
def _solve_vertex(sides, counts, m, real_ptr, real_edge, xy, ring_next, x, y, h, scale):
    """The point equidistant from m >= 3 site sets nearest the node corner (x, y): (x, y, R, ok).

    Gauss-Newton from the corner and from the four pixel centres around it; the converged solution nearest the
    corner (within 4 pixels) wins.
    """
    bx = x
    by = y
    bR = 0.0
    bd = np.inf
    ok = False
    for start in range(5):
        sx = x + (0.0 if start == 0 else (0.5 if start in (1, 4) else -0.5) * h)
        sy = y + (0.0 if start == 0 else (0.5 if start in (1, 2) else -0.5) * h)
        px, py, R, res = _gauss_newton(sides, counts, m, real_ptr, real_edge, xy, ring_next, sx, sy, h, scale, x, y)
        if res <= 1e-9 * scale:
            d = np.hypot(px - x, py - y)
            if d <= 4.0 * h and d < bd:
                bd = d
                bx = px
                by = py
                bR = R
                ok = True
        if ok and start == 0:
            break
    return bx, by, bR, ok


@jit
def solve_nodes(node_ij, node_deg, labels, vb, hb, real_ptr, real_edge, xy, ring_next, x0, y0, h, scale):
    """Exact positions of the nodes where three or more cracks meet.

    Returns (node_xy (nn, 2) float64, node_R (nn,) float64, node_kind (nn,) int32); nodes of degree 1 and 2 are
    left to ``annotate_chains`` (their position depends on their one chain).
    """
    nn = node_ij.shape[0]
    node_xy = np.empty((nn, 2), dtype=np.float64)
    node_R = np.zeros(nn, dtype=np.float64)
    node_kind = np.full(nn, NODE_OPEN, dtype=np.int32)
    H, Wd = labels.shape
    sides = np.empty((4, 4), dtype=np.int32)
    counts = np.zeros(4, dtype=np.int32)
    pix = np.empty(4, dtype=np.int32)
    bnd = np.empty(4, dtype=np.uint8)
    for k in range(nn):
        ci = node_ij[k, 0]
        cj = node_ij[k, 1]
        node_xy[k, 0] = x0 + cj * h
        node_xy[k, 1] = y0 + ci * h
        if node_deg[k] < 3:
            continue
        # Pixels NE, NW, SW, SE (counter-clockwise) and the cracks after each: N, W, S, E.
        for q in range(4):
            i = ci if q < 2 else ci - 1
            j = cj if (q == 0 or q == 3) else cj - 1
            pix[q] = labels[i, j] if (0 <= i < H and 0 <= j < Wd) else -1
        bnd[0] = 1 if (ci < H and vb[ci, cj] != 0) else 0
        bnd[1] = 1 if (cj >= 1 and hb[ci, cj - 1] != 0) else 0
        bnd[2] = 1 if (ci >= 1 and vb[ci - 1, cj] != 0) else 0
        bnd[3] = 1 if (cj < Wd and hb[ci, cj] != 0) else 0
        first = 0
        while bnd[first] == 0:
            first += 1
        m = 0
        counts[:] = 0
        q = (first + 1) % 4
        for step in range(4):
            counts[m] = _add_unique(sides[m], counts[m], pix[q], 4)
            if bnd[q] != 0:
                m += 1
            q = (q + 1) % 4
        usable = 0
        for s in range(m):
            if counts[s] > 0:
                usable += 1
        if usable < m:
            node_kind[k] = NODE_INEXACT
            continue
        x, y, R, ok = _solve_vertex(sides, counts, m, real_ptr, real_edge, xy, ring_next,
                                    node_xy[k, 0], node_xy[k, 1], h, scale)
        if ok:
            node_xy[k, 0] = x
            node_xy[k, 1] = y
            node_R[k] = R
            node_kind[k] = NODE_VERTEX
        else:
            node_kind[k] = NODE_INEXACT
            d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, sides[0], counts[0],
                                       node_xy[k, 0], node_xy[k, 1])
            node_R[k] = d
    return node_xy, node_R, node_kind


@jit
def _bisector_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, x, y, h):
    """The point near (x, y) where the distances to the two site sets agree (Newton along the gradient)."""
    for it in range(30):
        dl, lx, ly, fl = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, x, y)
        dr, rx, ry, fr = set_closest(real_ptr, real_edge, xy, ring_next, Rs, nR, x, y)
        if dl <= 0.0 or dr <= 0.0:
            break
        gx = (x - lx) / dl - (x - rx) / dr
        gy = (y - ly) / dl - (y - ry) / dr
        gg = gx * gx + gy * gy
        g = dl - dr
        if abs(g) <= 1e-13 * (dl + dr) or gg <= 1e-300:
            break
        dx = -g * gx / gg
        dy = -g * gy / gg
        s = np.hypot(dx, dy)
        if s > h:
            dx *= h / s
            dy *= h / s
        x += dx
        y += dy
    return x, y


@jit
def _touch_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, x, y, reach, tol):
    """A ring vertex of one side lying on the other side, nearest to (x, y) within ``reach``; (-1, ...) if none."""
    best = reach
    bv = -1
    for side in range(2):
        A = L if side == 0 else Rs
        nA = nL if side == 0 else nR
        B = Rs if side == 0 else L
        nB = nR if side == 0 else nL
        for a in range(nA):
            s = A[a]
            for k in range(real_ptr[s], real_ptr[s + 1]):
                for end in range(2):
                    v = real_edge[k] if end == 0 else ring_next[real_edge[k]]
                    dv = np.hypot(xy[v, 0] - x, xy[v, 1] - y)
                    if dv >= best:
                        continue
                    d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, B, nB, xy[v, 0], xy[v, 1])
                    if d <= tol:
                        best = dv
                        bv = v
    return bv


@jit
def _end_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, cx, cy, h, scale, deg):
    """Exact end of a chain at a node of degree 1 or 2: (x, y, R, kind)."""
    x, y = _bisector_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, cx, cy, h)
    if deg == 1:
        v = _touch_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, x, y, 3.0 * h, 1e-9 * scale)
        if v < 0:
            # The edge may run on, narrowing, into a sharp concave corner the pixels cannot follow: the
            # closest features at the end then both touch the shared vertex.
            dl, lx, ly, fl = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, x, y)
            dr, rx, ry, fr = set_closest(real_ptr, real_edge, xy, ring_next, Rs, nR, x, y)
            v = _touch_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, x, y, 40.0 * h, 1e-9 * scale)
            if v >= 0:
                nv = xy.shape[0]
                okl = _feature_has_vertex(fl, v, nv, ring_next)
                okr = _feature_has_vertex(fr, v, nv, ring_next)
                if not (okl and okr):
                    v = -1
        if v >= 0:
            return xy[v, 0], xy[v, 1], 0.0, NODE_TOUCH
    d, qx, qy, f = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, x, y)
    return x, y, d, NODE_OPEN if deg == 1 else NODE_VERTEX


@jit
def _feature_has_vertex(f, v, nv, ring_next):
    if f < 0:
        return False
    if f < nv:
        return f == v
    e = f - nv
    return e == v or ring_next[e] == v


@jit
def _arc_pos(f, cx, cy, xy, ring_pos, nv):
    """Arc-length position along its ring of a closest point (cx, cy) on feature f."""
    if f < nv:
        return ring_pos[f]
    e = f - nv
    return ring_pos[e] + np.hypot(cx - xy[e, 0], cy - xy[e, 1])


@jit
def _ring(f, nv, ring_of):
    return ring_of[f] if f < nv else ring_of[f - nv]


@jit
def _step_feature(f, forward, nv, ring_next, ring_prev):
    if f < nv:
        return nv + f if forward else nv + ring_prev[f]
    e = f - nv
    return ring_next[e] if forward else e


@jit
def _ray_event(vx, vy, nx, ny, other, n_other, guess, real_ptr, real_edge, xy, ring_next, normal, reach, scale):
    """Distance t along v + t n where the other side is exactly t away (the event of ECM II-B)."""
    f = guess
    for it in range(8):
        if f < 0:
            break
        t = ray_bisector(xy, ring_next, normal, f, vx, vy, nx, ny)
        if not np.isfinite(t) or t < 0.0:
            break
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + t * nx, vy + t * ny)
        if abs(d - t) <= 1e-11 * scale:
            return t
        f = f2
    # Safeguarded bisection on g(t) = d_other(v + t n) - t, which is non-increasing.
    lo = 0.0
    hi = max(reach, 1e-12 * scale)
    for it in range(200):
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + hi * nx, vy + hi * ny)
        if d - hi <= 0.0:
            break
        lo = hi
        hi *= 2.0
    for it in range(100):
        mid = 0.5 * (lo + hi)
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + mid * nx, vy + mid * ny)
        if d - mid > 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * scale:
            break
    return 0.5 * (lo + hi)


@jit
def _grow2(a, n):
    if n < a.shape[0]:
        return a
    b = np.empty((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@jit
def _parabola_length(v, e, u0, u1, xy, ring_next, normal, pieces):
    """Length of the bisector of vertex v and edge e between feet at parameters u0 and u1 along e."""
    ax = xy[e, 0]
    ay = xy[e, 1]
    f = ring_next[e]
    dx = xy[f, 0] - ax
    dy = xy[f, 1] - ay
    nx = normal[e, 0]
    ny = normal[e, 1]
    total = 0.0
    px = 0.0
    py = 0.0
    for k in range(pieces + 1):
        u = u0 + (u1 - u0) * k / pieces
        fx = ax + u * dx
        fy = ay + u * dy
        wx = xy[v, 0] - fx
        wy = xy[v, 1] - fy
        den = 2.0 * (nx * wx + ny * wy)
        rho = (wx * wx + wy * wy) / den if den > 0.0 else 0.0
        bx = fx + rho * nx
        by = fy + rho * ny
        if k > 0:
            total += np.hypot(bx - px, by - py)
        px = bx
        py = by
    return total


@jit
def _edge_param(e, x, y, xy, ring_next):
    f = ring_next[e]
    dx = xy[f, 0] - xy[e, 0]
    dy = xy[f, 1] - xy[e, 1]
    return ((x - xy[e, 0]) * dx + (y - xy[e, 1]) * dy) / (dx * dx + dy * dy)


@jit
def interval_length(fl, fr, Bx0, By0, Bx1, By1, lx0, ly0, lx1, ly1, rx0, ry0, rx1, ry1, xy, ring_next, normal):
    """Length of the Voronoi edge between two consecutive events with features fl, fr (exact for lines)."""
    nv = xy.shape[0]
    chord = np.hypot(Bx1 - Bx0, By1 - By0)
    if fl < 0 or fr < 0 or (fl < nv) == (fr < nv):
        return chord
    if fl < nv:
        v = fl
        e = fr - nv
        u0 = _edge_param(e, rx0, ry0, xy, ring_next)
        u1 = _edge_param(e, rx1, ry1, xy, ring_next)
    else:
        v = fr
        e = fl - nv
        u0 = _edge_param(e, lx0, ly0, xy, ring_next)
        u1 = _edge_param(e, lx1, ly1, xy, ring_next)
    length = _parabola_length(v, e, u0, u1, xy, ring_next, normal, 16)
    if not np.isfinite(length) or length < chord:
        return chord
    return length


@jit
def annotate_chains(chain_ptr, pts, lab, chain_nodes, node_ij, node_deg, node_xy, node_R, node_kind,
                    real_ptr, real_edge, xy, ring_next, ring_prev, ring_of, ring_pos, ring_len, normal,
                    x0, y0, h, scale):
    """Events of every chain; fills in the nodes of degree 1 and 2 (``node_xy``/``node_R``/``node_kind``).

    Returns ``(ev_ptr (nc+1,) int64, ev (n, 9) float64 [Bx, By, R, lx, ly, rx, ry, s, 0], ev_f (n, 2) int32
    [left, right feature of the piece after the event; -1 after the last], ok (nc,) bool)``. ``s`` is the arc
    length from the chain's first event.
    """
    nc = chain_ptr.shape[0] - 1
    nv = xy.shape[0]
    ev_ptr = np.zeros(nc + 1, dtype=np.int64)
    ev = np.empty((4096, 9), dtype=np.float64)
    ev_f = np.empty((4096, 2), dtype=np.int32)
    ok = np.zeros(nc, dtype=np.bool_)
    n_ev = 0
    L = np.empty(MAX_SIDE, dtype=np.int32)
    Rs = np.empty(MAX_SIDE, dtype=np.int32)
    done = np.zeros(node_xy.shape[0], dtype=np.bool_)
    for k in range(node_xy.shape[0]):
        done[k] = node_deg[k] >= 3
    # Per-chain scratch (grown on demand).
    P = np.empty((64, 2), dtype=np.float64)
    cum = np.empty(64, dtype=np.float64)
    fL = np.empty(64, dtype=np.int64)
    fR = np.empty(64, dtype=np.int64)
    cL = np.empty((64, 2), dtype=np.float64)
    cR = np.empty((64, 2), dtype=np.float64)
    tr_key = np.empty(64, dtype=np.float64)
    tr_dat = np.empty((64, 6), dtype=np.float64)  # side, vertex, new feature, Bx, By, t
    loc = np.empty((64, 9), dtype=np.float64)
    loc_f = np.empty((64, 2), dtype=np.int64)
    proj = np.empty(64, dtype=np.bool_)
    for c in range(nc):
        ev_ptr[c] = n_ev
        a = chain_ptr[c]
        b = chain_ptr[c + 1]
        m = b - 1 - a
        nL = 0
        nR = 0
        for k in range(a, b - 1):
            nL = _add_unique(L, nL, lab[k, 0], MAX_SIDE)
            nR = _add_unique(Rs, nR, lab[k, 1], MAX_SIDE)
        if nL == 0 or nR == 0 or m < 1:
            continue
        # Exact ends.
        for end in range(2):
            node = chain_nodes[c, end]
            if done[node]:
                continue
            cx = x0 + node_ij[node, 1] * h
            cy = y0 + node_ij[node, 0] * h
            x, y, R, kind = _end_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, cx, cy, h, scale,
                                       node_deg[node])
            node_xy[node, 0] = x
            node_xy[node, 1] = y
            node_R[node] = R
            node_kind[node] = kind
            done[node] = True
        n0 = chain_nodes[c, 0]
        n1 = chain_nodes[c, 1]
        while P.shape[0] < m + 2:
            P = np.empty((2 * P.shape[0], 2), dtype=np.float64)
            cum = np.empty(P.shape[0], dtype=np.float64)
            fL = np.empty(P.shape[0], dtype=np.int64)
            fR = np.empty(P.shape[0], dtype=np.int64)
            cL = np.empty((P.shape[0], 2), dtype=np.float64)
            cR = np.empty((P.shape[0], 2), dtype=np.float64)
        P[0, 0] = node_xy[n0, 0]
        P[0, 1] = node_xy[n0, 1]
        npnt = 1
        # Crack midpoints next to the ends may lie past the exact vertex, on the bisector's extension: skip them.
        for k in range(m):
            px = x0 + 0.5 * (pts[a + k, 1] + pts[a + k + 1, 1]) * h
            py = y0 + 0.5 * (pts[a + k, 0] + pts[a + k + 1, 0]) * h
            if np.hypot(px - node_xy[n0, 0], py - node_xy[n0, 1]) <= END_SKIP * h:
                continue
            if np.hypot(px - node_xy[n1, 0], py - node_xy[n1, 1]) <= END_SKIP * h:
                continue
            P[npnt, 0] = px
            P[npnt, 1] = py
            npnt += 1
        P[npnt, 0] = node_xy[n1, 0]
        P[npnt, 1] = node_xy[n1, 1]
        npnt += 1
        for k in range(npnt):
            d, qx, qy, f = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, P[k, 0], P[k, 1])
            fL[k] = f
            cL[k, 0] = qx
            cL[k, 1] = qy
            d, qx, qy, f = set_closest(real_ptr, real_edge, xy, ring_next, Rs, nR, P[k, 0], P[k, 1])
            fR[k] = f
            cR[k, 0] = qx
            cR[k, 1] = qy
        # A sample a fraction of a pixel off the bisector can see a feature that no point of the edge has (the end
        # vertex of a side's edge, beside a concave corner): where the features change, move the samples onto
        # the exact bisector and look again.
        while proj.shape[0] < npnt:
            proj = np.empty(2 * proj.shape[0], dtype=np.bool_)
        proj[:npnt] = False
        proj[0] = True
        proj[npnt - 1] = True
        for sweep in range(4):
            changed = False
            for k in range(npnt - 1):
                if fL[k] == fL[k + 1] and fR[k] == fR[k + 1]:
                    continue
                for q in (k, k + 1):
                    if proj[q]:
                        continue
                    proj[q] = True
                    changed = True
                    bx, by = _bisector_point(L, nL, Rs, nR, real_ptr, real_edge, xy, ring_next, P[q, 0], P[q, 1], h)
                    P[q, 0] = bx
                    P[q, 1] = by
                    d, qx, qy, f = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, bx, by)
                    fL[q] = f
                    cL[q, 0] = qx
                    cL[q, 1] = qy
                    d, qx, qy, f = set_closest(real_ptr, real_edge, xy, ring_next, Rs, nR, bx, by)
                    fR[q] = f
                    cR[q, 0] = qx
                    cR[q, 1] = qy
            if not changed:
                break
        cum[0] = 0.0
        for k in range(1, npnt):
            cum[k] = cum[k - 1] + np.hypot(P[k, 0] - P[k - 1, 0], P[k, 1] - P[k - 1, 1])
        # Transitions of the closest feature on each side, each solved exactly on its half-line.
        ntr = 0
        bad = False
        for k in range(npnt - 1):
            for side in range(2):
                f0 = fL[k] if side == 0 else fR[k]
                f1 = fL[k + 1] if side == 0 else fR[k + 1]
                if f0 == f1 or f0 < 0 or f1 < 0:
                    continue
                r0 = _ring(f0, nv, ring_of)
                if r0 != _ring(f1, nv, ring_of):
                    # Two touching obstacles handing over at their common point: no event.
                    tr_key = _grow2(tr_key, ntr)
                    tr_dat = _grow2(tr_dat, ntr)
                    tr_key[ntr] = cum[k] + 1e-12
                    tr_dat[ntr, 0] = side
                    tr_dat[ntr, 1] = -1
                    tr_dat[ntr, 2] = f1
                    tr_dat[ntr, 3] = np.nan
                    ntr += 1
                    continue
                if side == 0:
                    p0 = _arc_pos(f0, cL[k, 0], cL[k, 1], xy, ring_pos, nv)
                    p1 = _arc_pos(f1, cL[k + 1, 0], cL[k + 1, 1], xy, ring_pos, nv)
                else:
                    p0 = _arc_pos(f0, cR[k, 0], cR[k, 1], xy, ring_pos, nv)
                    p1 = _arc_pos(f1, cR[k + 1, 0], cR[k + 1, 1], xy, ring_pos, nv)
                rl = ring_len[r0]
                fwd = (p1 - p0) % rl
                bwd = (p0 - p1) % rl
                forward = fwd <= bwd
                cur = f0
                guard = 0
                seg_len = cum[k + 1] - cum[k]
                while cur != f1 and guard < 4 * (ring_len.shape[0] + nv):
                    nxt = _step_feature(cur, forward, nv, ring_next, ring_prev)
                    if cur < nv:
                        v = cur
                        e = nxt - nv
                    else:
                        v = nxt
                        e = cur - nv
                    vx = xy[v, 0]
                    vy = xy[v, 1]
                    nx = normal[e, 0]
                    ny = normal[e, 1]
                    if side == 0:
                        guess = fR[k]
                        reach = np.hypot(P[k, 0] - vx, P[k, 1] - vy) + seg_len + 4.0 * h
                        t = _ray_event(vx, vy, nx, ny, Rs, nR, guess, real_ptr, real_edge, xy, ring_next, normal,
                                       reach, scale)
                    else:
                        guess = fL[k]
                        reach = np.hypot(P[k, 0] - vx, P[k, 1] - vy) + seg_len + 4.0 * h
                        t = _ray_event(vx, vy, nx, ny, L, nL, guess, real_ptr, real_edge, xy, ring_next, normal,
                                       reach, scale)
                    bx = vx + t * nx
                    by = vy + t * ny
                    # Order along the chain: projection on the sample segment it was found in.
                    sx = P[k + 1, 0] - P[k, 0]
                    sy = P[k + 1, 1] - P[k, 1]
                    ss = sx * sx + sy * sy
                    u = ((bx - P[k, 0]) * sx + (by - P[k, 1]) * sy) / ss if ss > 0.0 else 0.0
                    u = min(1.0, max(0.0, u))
                    qx = P[k, 0] + u * sx - bx
                    qy = P[k, 1] + u * sy - by
                    tr_key = _grow2(tr_key, ntr)
                    tr_dat = _grow2(tr_dat, ntr)
                    tr_key[ntr] = cum[k] + u * seg_len + 1e-12 * guard
                    tr_dat[ntr, 0] = side
                    # An event far from where the pixels saw the change is noise: keep the feature change only.
                    tr_dat[ntr, 1] = v if np.hypot(qx, qy) <= 3.0 * h else -1
                    tr_dat[ntr, 2] = nxt
                    tr_dat[ntr, 3] = bx
                    tr_dat[ntr, 4] = by
                    tr_dat[ntr, 5] = t
                    ntr += 1
                    cur = nxt
                    guard += 1
                if cur != f1:
                    bad = True
        if bad:
            continue
        # Transitions of one side stay in the order they were walked, whatever rounding did to their keys.
        for side in range(2):
            running = -np.inf
            for i in range(ntr):
                if int(tr_dat[i, 0]) == side:
                    if tr_key[i] < running:
                        tr_key[i] = running
                    running = tr_key[i]
        order = np.argsort(tr_key[:ntr], kind="mergesort")
        # Build the chain's event list: start, transitions, end.
        nloc = 0
        while loc.shape[0] < ntr + 4:
            loc = np.empty((2 * loc.shape[0], 9), dtype=np.float64)
            loc_f = np.empty((loc.shape[0], 2), dtype=np.int64)
        curL = fL[0]
        curR = fR[0]
        loc[0, 0] = P[0, 0]
        loc[0, 1] = P[0, 1]
        loc[0, 2] = node_R[n0] if node_kind[n0] != NODE_INEXACT else np.hypot(P[0, 0] - cL[0, 0], P[0, 1] - cL[0, 1])
        loc[0, 3] = cL[0, 0]
        loc[0, 4] = cL[0, 1]
        loc[0, 5] = cR[0, 0]
        loc[0, 6] = cR[0, 1]
        loc_f[0, 0] = curL
        loc_f[0, 1] = curR
        nloc = 1
        tol = 1e-9 * scale
        for q in range(ntr):
            i = order[q]
            side = int(tr_dat[i, 0])
            v = int(tr_dat[i, 1])
            newf = int(tr_dat[i, 2])
            if side == 0:
                curL = newf
            else:
                curR = newf
            if v < 0:
                loc_f[nloc - 1, 0] = curL
                loc_f[nloc - 1, 1] = curR
                continue
            bx = tr_dat[i, 3]
            by = tr_dat[i, 4]
            t = tr_dat[i, 5]
            if side == 0:
                lx = xy[v, 0]
                ly = xy[v, 1]
                d, rx, ry = feature_closest(xy, ring_next, curR, bx, by)
            else:
                rx = xy[v, 0]
                ry = xy[v, 1]
                d, lx, ly = feature_closest(xy, ring_next, curL, bx, by)
            if np.hypot(bx - loc[nloc - 1, 0], by - loc[nloc - 1, 1]) <= tol:
                loc_f[nloc - 1, 0] = curL
                loc_f[nloc - 1, 1] = curR
                continue
            loc[nloc, 0] = bx
            loc[nloc, 1] = by
            loc[nloc, 2] = t
            loc[nloc, 3] = lx
            loc[nloc, 4] = ly
            loc[nloc, 5] = rx
            loc[nloc, 6] = ry
            loc_f[nloc, 0] = curL
            loc_f[nloc, 1] = curR
            nloc += 1
        last = npnt - 1
        endR = node_R[n1] if node_kind[n1] != NODE_INEXACT else np.hypot(P[last, 0] - cL[last, 0],
                                                                          P[last, 1] - cL[last, 1])
        if np.hypot(P[last, 0] - loc[nloc - 1, 0], P[last, 1] - loc[nloc - 1, 1]) <= tol and nloc > 1:
            nloc -= 1
        loc[nloc, 0] = P[last, 0]
        loc[nloc, 1] = P[last, 1]
        loc[nloc, 2] = endR
        loc[nloc, 3] = cL[last, 0]
        loc[nloc, 4] = cL[last, 1]
        loc[nloc, 5] = cR[last, 0]
        loc[nloc, 6] = cR[last, 1]
        loc_f[nloc, 0] = -1
        loc_f[nloc, 1] = -1
        nloc += 1
        # Emit, inserting the clearance minimum inside a piece where there is one.
        start = n_ev
        for q in range(nloc):
            ev = _grow2(ev, n_ev)
            ev_f = _grow2(ev_f, n_ev)
            for z in range(7):
                ev[n_ev, z] = loc[q, z]
            ev_f[n_ev, 0] = loc_f[q, 0]
            ev_f[n_ev, 1] = loc_f[q, 1]
            n_ev += 1
            if q == nloc - 1:
                break
            fl = loc_f[q, 0]
            fr = loc_f[q, 1]
            if fl < 0 or fr < 0:
                continue
            ins = False
            mx = 0.0
            my = 0.0
            mR = 0.0
            mlx = 0.0
            mly = 0.0
            mrx = 0.0
            mry = 0.0
            if fl < nv and fr < nv:
                mx = 0.5 * (xy[fl, 0] + xy[fr, 0])
                my = 0.5 * (xy[fl, 1] + xy[fr, 1])
                dx = loc[q + 1, 0] - loc[q, 0]
                dy = loc[q + 1, 1] - loc[q, 1]
                dd = np.hypot(dx, dy)
                if dd > 0.0:
                    u0 = ((mx - loc[q, 0]) * dx + (my - loc[q, 1]) * dy) / dd
                    ins = u0 > tol and u0 < dd - tol
                mR = 0.5 * np.hypot(xy[fl, 0] - xy[fr, 0], xy[fl, 1] - xy[fr, 1])
                mlx = xy[fl, 0]
                mly = xy[fl, 1]
                mrx = xy[fr, 0]
                mry = xy[fr, 1]
            elif (fl < nv) != (fr < nv):
                if fl < nv:
                    v = fl
                    e = fr - nv
                    ua = _edge_param(e, loc[q, 5], loc[q, 6], xy, ring_next)
                    ub = _edge_param(e, loc[q + 1, 5], loc[q + 1, 6], xy, ring_next)
                else:
                    v = fr
                    e = fl - nv
                    ua = _edge_param(e, loc[q, 3], loc[q, 4], xy, ring_next)
                    ub = _edge_param(e, loc[q + 1, 3], loc[q + 1, 4], xy, ring_next)
                hgt = normal[e, 0] * (xy[v, 0] - xy[e, 0]) + normal[e, 1] * (xy[v, 1] - xy[e, 1])
                if hgt > 0.0:
                    fx = xy[v, 0] - hgt * normal[e, 0]
                    fy = xy[v, 1] - hgt * normal[e, 1]
                    uf = _edge_param(e, fx, fy, xy, ring_next)
                    lo = min(ua, ub)
                    hi = max(ua, ub)
                    f2 = ring_next[e]
                    elen = np.hypot(xy[f2, 0] - xy[e, 0], xy[f2, 1] - xy[e, 1])
                    ins = uf > lo + tol / elen and uf < hi - tol / elen
                    mx = xy[v, 0] - 0.5 * hgt * normal[e, 0]
                    my = xy[v, 1] - 0.5 * hgt * normal[e, 1]
                    mR = 0.5 * hgt
                    if fl < nv:
                        mlx = xy[v, 0]
                        mly = xy[v, 1]
                        mrx = fx
                        mry = fy
                    else:
                        mlx = fx
                        mly = fy
                        mrx = xy[v, 0]
                        mry = xy[v, 1]
            if ins:
                ev = _grow2(ev, n_ev)
                ev_f = _grow2(ev_f, n_ev)
                ev[n_ev, 0] = mx
                ev[n_ev, 1] = my
                ev[n_ev, 2] = mR
                ev[n_ev, 3] = mlx
                ev[n_ev, 4] = mly
                ev[n_ev, 5] = mrx
                ev[n_ev, 6] = mry
                ev_f[n_ev, 0] = fl
                ev_f[n_ev, 1] = fr
                n_ev += 1
        # Arc length along the chain.
        ev[start, 7] = 0.0
        for q in range(start + 1, n_ev):
            length = interval_length(ev_f[q - 1, 0], ev_f[q - 1, 1], ev[q - 1, 0], ev[q - 1, 1], ev[q, 0],
                                     ev[q, 1], ev[q - 1, 3], ev[q - 1, 4], ev[q, 3], ev[q, 4], ev[q - 1, 5],
                                     ev[q - 1, 6], ev[q, 5], ev[q, 6], xy, ring_next, normal)
            ev[q, 7] = ev[q - 1, 7] + length
        good = True
        for q in range(start, n_ev):
            for z in range(8):
                if not np.isfinite(ev[q, z]):
                    good = False
            ev[q, 8] = 0.0
        if not good:
            n_ev = start
            continue
        ok[c] = True
    ev_ptr[nc] = n_ev
    return ev_ptr, ev[:n_ev].copy(), ev_f[:n_ev].copy(), ok


def split_four_way(node_ij, node_deg, node_xy, node_R, node_kind, labels, chain_ptr, pts, lab, chain_nodes, sites,
                   h: float):
    """Split the four-site nodes whose sites have no common equidistant point into two Voronoi vertices.

    Where two vertices lie within a pixel of each other the pixels show one corner with four sites A, B, C, D
    (counter-clockwise from the north-east pixel). Either A and C touch along a short edge (vertices (A, B, C) and
    (C, D, A)) or B and D do; the right choice is the one whose vertices have the fourth site no nearer. The short
    edge becomes a chain of one (zero-length) crack whose ends annotate_chains solves exactly.
    Returns the grown arrays (node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes).
    """
    H, W = labels.shape
    todo = np.flatnonzero((node_kind == NODE_INEXACT) & (node_deg == 4))
    if len(todo) == 0:
        return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
    args = (sites.real_ptr, sites.real_edge, sites.ring_xy, sites.ring_next)
    # Crack direction at each chain end: 0 N, 1 E, 2 S, 3 W (seen from the node).
    first = pts[chain_ptr[:-1] + 1] - pts[chain_ptr[:-1]]
    last = pts[chain_ptr[1:] - 2] - pts[chain_ptr[1:] - 1]

    def direction(d):
        return np.where(d[:, 0] > 0, 0, np.where(d[:, 1] > 0, 1, np.where(d[:, 0] < 0, 2, 3)))

    dir_first = direction(first)
    dir_last = direction(last)
    new_nodes_ij, new_xy, new_R, new_pts, new_lab, new_cn = [], [], [], [], [], []
    node_xy = node_xy.copy()
    node_R = node_R.copy()
    node_kind = node_kind.copy()
    chain_nodes = chain_nodes.copy()
    nn = len(node_ij)
    for k in todo:
        ci, cj = int(node_ij[k, 0]), int(node_ij[k, 1])
        if not (1 <= ci < H and 1 <= cj < W):
            continue
        A, B, C, D = labels[ci, cj], labels[ci, cj - 1], labels[ci - 1, cj - 1], labels[ci - 1, cj]
        if min(A, B, C, D) < 0 or len({A, B, C, D}) < 4:
            continue
        x, y = float(node_xy[k, 0]), float(node_xy[k, 1])
        best = None
        for first_tri, second_tri, far1, far2, cracks2, touch in (((A, B, C), (C, D, A), D, B, (1, 2), (A, C)),
                                                                 ((B, C, D), (D, A, B), A, C, (0, 1), (B, D))):
            sol = []
            for tri, far in ((first_tri, far1), (second_tri, far2)):
                sides = np.array([[tri[0], 0, 0, 0], [tri[1], 0, 0, 0], [tri[2], 0, 0, 0], [0, 0, 0, 0]],
                                 dtype=np.int32)
                counts = np.array([1, 1, 1, 0], dtype=np.int32)
                vx, vy, R, ok = _solve_vertex(sides, counts, 3, *args, x, y, h, sites.scale)
                dfar = set_closest(*args, np.array([far], dtype=np.int32), 1, vx, vy)[0]
                sol.append((vx, vy, R, ok and dfar >= R - 1e-9 * sites.scale))
            if sol[0][3] and sol[1][3]:
                best = (sol, cracks2, touch)
                break
        if best is None:
            continue
        sol, cracks2, touch = best
        node_xy[k] = sol[0][:2]
        node_R[k] = sol[0][2]
        node_kind[k] = NODE_VERTEX
        k2 = nn + len(new_nodes_ij)
        new_nodes_ij.append((ci, cj))
        new_xy.append(sol[1][:2])
        new_R.append(sol[1][2])
        # Chains leaving through the second vertex's cracks move to it (cracks E and S, or N and E).
        # Crack codes here: 0 N, 1 E, 2 S, 3 W; option 1 moves S and E, option 2 moves E and N.
        moved = (2, 1) if cracks2 == (1, 2) else (1, 0)
        for c in np.flatnonzero(chain_nodes[:, 0] == k):
            if dir_first[c] in moved:
                chain_nodes[c, 0] = k2
        for c in np.flatnonzero(chain_nodes[:, 1] == k):
            if dir_last[c] in moved:
                chain_nodes[c, 1] = k2
        # The short edge: left/right by where its two sites' closest points lie seen from vertex 1 to vertex 2.
        dx, dy = sol[1][0] - sol[0][0], sol[1][1] - sol[0][1]
        cp = set_closest(*args, np.array([touch[0]], dtype=np.int32), 1, sol[0][0], sol[0][1])
        left_first = dx * (cp[2] - sol[0][1]) - dy * (cp[1] - sol[0][0]) > 0
        new_pts.append([(ci, cj), (ci, cj)])
        new_lab.append([(touch[0], touch[1]) if left_first else (touch[1], touch[0]), (-1, -1)])
        new_cn.append((k, k2))
    if not new_nodes_ij:
        return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
    m = len(new_nodes_ij)
    node_ij = np.vstack([node_ij, np.array(new_nodes_ij, dtype=np.int32)])
    node_deg = np.concatenate([node_deg, np.full(m, 3, dtype=np.int32)])
    node_deg[todo] = np.where(node_kind[todo] == NODE_VERTEX, 3, node_deg[todo])
    node_xy = np.vstack([node_xy, np.array(new_xy)])
    node_R = np.concatenate([node_R, np.array(new_R)])
    node_kind = np.concatenate([node_kind, np.full(m, NODE_VERTEX, dtype=np.int32)])
    pts = np.vstack([pts, np.array(new_pts, dtype=np.int32).reshape(-1, 2)])
    lab = np.vstack([lab, np.array(new_lab, dtype=np.int32).reshape(-1, 2)])
    chain_ptr = np.concatenate([chain_ptr, chain_ptr[-1] + 2 * np.arange(1, m + 1)])
    chain_nodes = np.vstack([chain_nodes, np.array(new_cn, dtype=np.int32)])
    return node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab, chain_nodes
