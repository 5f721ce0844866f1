"""Choosing the corridor: A* over the ECM graph guided by the length of the path through the corridor so far.

ECM section II-C takes the corridor from A* on the medial axis's length. That length can favour a corridor whose
shortest path is several percent longer than through a neighbouring one (a wide square is long to cross along its
medial axis but short straight across). Here each partial corridor (a prefix of edges from the start) is scored
with the length of the shortest path that crosses its portals in order and then goes straight to the goal: a lower
bound on any path through that prefix, in the spirit of TA* (Demyen and Buro 2006, triangulation A*). The prefix's
funnel (apex, distance to the apex, left and right chains; Lee and Preparata) is kept per graph vertex, so
extending a prefix by one edge costs that edge's portals. As in A*, each vertex keeps the best-scored prefix that
reached it first; the search is therefore not guaranteed to find the best corridor, but it picks the homotopy class
of the shortest path in almost all queries (``miran bench`` reports the excess). ``astar`` in ``corridor`` keeps
the paper's medial-axis A*.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from core.jitcache import jit
from core.kernels.buffers import doubled, reserve
from core.kernels.geometry import orient
from core.kernels.heap import heap_push
from core.kernels.paths import path_between

from .astar import ends_clearance, pop_open, same_edge_clearance
from .funnel import FILTER, in_disk, in_piece, in_triangle
from .retract import closest_pair

# Relative weight of the medial-axis length in a final score: ties between equally short paths go to the shorter
# walk along the medial axis.
TIE = 1e-9


@jit(inline=True)
def _add(side, px, py, ap, apd, Lc, hl, nl, Rc, hr, nr, eps):
    """Add a left (side 0) or right (side 1) portal end point to the funnel; returns the new state scalars.

    ``ap`` (2,) holds the apex (updated in place); chains are Lc[hl:nl] and Rc[hr:nr] (points after the apex).
    """
    if side == 1:
        C = Rc
        hc = hr
        nc = nr
        O = Lc
        ho = hl
        no = nl
        sgn = 1.0
    else:
        C = Lc
        hc = hl
        nc = nl
        O = Rc
        ho = hr
        no = nr
        sgn = -1.0
    if nc > hc:
        if abs(C[nc - 1, 0] - px) <= eps and abs(C[nc - 1, 1] - py) <= eps:
            return apd, hl, nl, hr, nr
    elif abs(ap[0] - px) <= eps and abs(ap[1] - py) <= eps:
        return apd, hl, nl, hr, nr
    while nc > hc:
        if nc - hc >= 2:
            qx = C[nc - 2, 0]
            qy = C[nc - 2, 1]
        else:
            qx = ap[0]
            qy = ap[1]
        if sgn * orient(qx, qy, C[nc - 1, 0], C[nc - 1, 1], px, py) >= 0.0:
            nc -= 1
        else:
            break
    if nc == hc:
        # The chain emptied: the new point may lie beyond the other chain, whose points then join the path.
        while no > ho and sgn * orient(ap[0], ap[1], O[ho, 0], O[ho, 1], px, py) > 0.0:
            apd += np.hypot(O[ho, 0] - ap[0], O[ho, 1] - ap[1])
            ap[0] = O[ho, 0]
            ap[1] = O[ho, 1]
            ho += 1
    C[nc, 0] = px
    C[nc, 1] = py
    nc += 1
    if side == 1:
        return apd, ho, no, hc, nc
    return apd, hc, nc, ho, no


@jit(inline=True)
def _taut(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, eps):
    """Length of the shortest path through the funnel to t (the state is not changed).

    Adding t as a right point pops right-chain points that t sees past and, if the right chain empties, moves the
    apex along the left chain; the path is then apex -> remaining right chain -> t.
    """
    ax = ap[0]
    ay = ap[1]
    d = apd
    nc = nr
    while nc > hr:
        if nc - hr >= 2:
            qx = Rc[nc - 2, 0]
            qy = Rc[nc - 2, 1]
        else:
            qx = ax
            qy = ay
        if orient(qx, qy, Rc[nc - 1, 0], Rc[nc - 1, 1], tx, ty) >= 0.0:
            nc -= 1
        else:
            break
    if nc == hr:
        ho = hl
        while ho < nl and orient(ax, ay, Lc[ho, 0], Lc[ho, 1], tx, ty) > 0.0:
            d += np.hypot(Lc[ho, 0] - ax, Lc[ho, 1] - ay)
            ax = Lc[ho, 0]
            ay = Lc[ho, 1]
            ho += 1
        return d + np.hypot(tx - ax, ty - ay)
    x = ax
    y = ay
    for k in range(hr, nc):
        d += np.hypot(Rc[k, 0] - x, Rc[k, 1] - y)
        x = Rc[k, 0]
        y = Rc[k, 1]
    return d + np.hypot(tx - x, ty - y)


@jit
def _shrunk(bx, by, R, px, py, c):
    if R <= c or R <= 0.0:
        return bx, by
    return px + c * (bx - px) / R, py + c * (by - py) / R


@jit(inline=True)
def _edge_portals(ev_B, ev_R, ev_l, ev_r, forward, first, last, c, P, n):
    """Append the shrunk chords of one edge's events first..last (walking order) to P (rows as ``funnel.portals``);
    returns the new row count. Used for the partial edges at the start and the goal (whole edges read ``edge_rows``);
    it takes the four event arrays of ``EcmArrays`` themselves (fields taken out of the structure cost a reference
    count each call)."""
    step = 1 if forward else -1
    q = first
    while True:
        if forward:
            n = _disk_portal(ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_l[q, 0], ev_l[q, 1], ev_r[q, 0], ev_r[q, 1], c, P, n)
        else:
            n = _disk_portal(ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_r[q, 0], ev_r[q, 1], ev_l[q, 0], ev_l[q, 1], c, P, n)
        if q == last:
            break
        q += step
    return n


@jit(inline=True)
def edge_rows(ev_B, ev_R, ev_l, ev_r, ea, eb, c, E):
    """Fill the rows of events ea..eb-1 (one ECM edge) in E (``arrays.QueryWork.edge_rows``) at clearance c: walking
    forward, event q's portal is row q; walking backward, row 2 * events - 1 - q, so either walk reads a contiguous
    block in walking order. The same arithmetic as ``_edge_portals``, computed once per (edge, clearance) and read
    by every later relaxation of the edge instead of shrinking its disks again."""
    top = 2 * ev_R.shape[0] - 1
    for q in range(ea, eb):
        _disk_portal(ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_l[q, 0], ev_l[q, 1], ev_r[q, 0], ev_r[q, 1], c, E, q)
        _disk_portal(ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_r[q, 0], ev_r[q, 1], ev_l[q, 0], ev_l[q, 1], c, E, top - q)


@jit(inline=True)
def _stale(kept, c):
    """Whether an edge's rows kept for clearance ``kept`` (NaN: none yet) are not the rows for c (0.0 and -0.0 shrink
    to different signed zeros, so they are told apart)."""
    return kept != c or (c == 0.0 and math.copysign(1.0, kept) != math.copysign(1.0, c))


@jit(inline=True)
def _disk_portal(bx, by, R, lx, ly, rx, ry, c, P, n):
    a, b = _shrunk(bx, by, R, lx, ly, c)
    P[n, 0] = a
    P[n, 1] = b
    a, b = _shrunk(bx, by, R, rx, ry, c)
    P[n, 2] = a
    P[n, 3] = b
    P[n, 4] = bx
    P[n, 5] = by
    P[n, 6] = max(R - c, 0.0)
    return n + 1


class Funnel(NamedTuple):
    """The funnel of a corridor prefix (scalars): distance ``apd`` from the start to the apex ``ap``, the live
    chains ``Lc[hl:nl]`` and ``Rc[hr:nr]`` after it, whether a last portal was seen (``has``) and whether nothing
    was pushed yet (``fresh``: the start may still lie past the portals). The kernels take the arrays (``ap``, ``Lc``,
    ``Rc``, ``last``) beside it, themselves: they are used at every edge the search relaxes."""

    apd: float
    hl: int
    nl: int
    hr: int
    nr: int
    has: bool
    fresh: bool


@jit(inline=True)
def _set_last(last, P, z):
    last[0] = P[z, 0]
    last[1] = P[z, 1]
    last[2] = P[z, 2]
    last[3] = P[z, 3]


@jit(inline=True)
def _extend(P, k0, k1, fs, ap, Lc, Rc, last, st, eps):
    """Push portals k0..k1 of P into the funnel ``fs`` (``Funnel`` with its arrays), watching for the goal t before
    each portal; ``st`` is (sx, sy, tx, ty).

    While ``fresh`` (nothing pushed yet), portals the start s is already past are skipped as in
    ``funnel.enter_index``: those whose disk holds s, or whose strip piece to the next portal does. Returns
    (Funnel, found, f): once t lies in the strip piece before a portal, or in that portal's disk, the path through
    this corridor is fixed (it crosses the portals before and goes straight to t; ``funnel.exit_index``) and ``f``
    is its length; otherwise ``f`` is the length through all portals and then straight to t, a lower bound for any
    longer corridor.
    """
    sx, sy, tx, ty = st
    apd, hl, nl, hr, nr, has_last, fresh = fs.apd, fs.hl, fs.nl, fs.hr, fs.nr, fs.has, fs.fresh
    for z in range(k0, k1 + 1):
        inside = in_disk(P, z, tx, ty, eps)
        if has_last and not inside:
            inside = (in_triangle(tx, ty, last[0], last[1], last[2], last[3], P[z, 0], P[z, 1], eps)
                      or in_triangle(tx, ty, last[2], last[3], P[z, 0], P[z, 1], P[z, 2], P[z, 3], eps))
        if inside:
            f = _taut(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
            return Funnel(apd, hl, nl, hr, nr, has_last, fresh), True, f
        if fresh and (in_disk(P, z, sx, sy, eps) or (z < k1 and in_piece(P, z, sx, sy, eps))):
            _set_last(last, P, z)
            has_last = True
            continue
        fresh = False
        apd, hl, nl, hr, nr = _add(1, P[z, 2], P[z, 3], ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
        apd, hl, nl, hr, nr = _add(0, P[z, 0], P[z, 1], ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
        _set_last(last, P, z)
        has_last = True
    fs = Funnel(apd, hl, nl, hr, nr, has_last, fresh)
    return fs, False, _bound(tx, ty, fs, ap, Lc, Rc, last, eps)


@jit
def _via_segment(ax, ay, tx, ty, lx, ly, rx, ry):
    """min over q on segment [l, r] of |a - q| + |q - t| (reflect t across the segment's line when a and t lie on
    the same side).

    Where the straight line from a to (reflected) t crosses the segment, that distance is the answer unless rounding
    makes a detour through an end as short: the ends' sums are then only estimated with ``sqrt`` (a filter with
    margin ``funnel.FILTER``), and computed with ``hypot`` as before where the estimate cannot decide, so the result
    is the same to the bit (``tests/core/ecm/test_distance_filter.py``)."""
    dx = rx - lx
    dy = ry - ly
    dd = dx * dx + dy * dy
    if dd > 0.0:
        sa = dx * (ay - ly) - dy * (ax - lx)
        st = dx * (ty - ly) - dy * (tx - lx)
        fx = tx
        fy = ty
        if sa * st > 0.0:
            # Reflect t across the line.
            u = ((tx - lx) * dx + (ty - ly) * dy) / dd
            px = lx + u * dx
            py = ly + u * dy
            fx = 2.0 * px - tx
            fy = 2.0 * py - ty
            st = -st
        den = sa - st
        if den != 0.0:
            w = sa / den
            qx = ax + w * (fx - ax)
            qy = ay + w * (fy - ay)
            u = ((qx - lx) * dx + (qy - ly) * dy) / dd
            if 0.0 <= u <= 1.0:
                h = np.hypot(fx - ax, fy - ay)
                if h < (1.0 - FILTER) * min(_norm(lx - ax, ly - ay) + _norm(tx - lx, ty - ly),
                                            _norm(rx - ax, ry - ay) + _norm(tx - rx, ty - ry)):
                    return h
                return min(_via_ends(ax, ay, tx, ty, lx, ly, rx, ry), h)
    return _via_ends(ax, ay, tx, ty, lx, ly, rx, ry)


@jit(inline=True)
def _norm(x, y):
    """|(x, y)| to within two units in the last place (``np.hypot`` costs ten times as much)."""
    return np.sqrt(x * x + y * y)


@jit(inline=True)
def _via_ends(ax, ay, tx, ty, lx, ly, rx, ry):
    """The shorter way from a to t through an end of segment [l, r]."""
    return min(np.hypot(lx - ax, ly - ay) + np.hypot(tx - lx, ty - ly),
               np.hypot(rx - ax, ry - ay) + np.hypot(tx - rx, ty - ry))


@jit(inline=True)
def _bound(tx, ty, fs, ap, Lc, Rc, last, eps):
    """A lower bound on any path from the start through the portals pushed so far to t: the funnel's path to t when
    t lies ahead of the last portal; else (the corridor turns back towards t further on, through portals not seen
    yet) the distance to the apex, which every such path passes, plus the shortest way from the apex to t that
    touches the last portal."""
    if fs.has:
        fx = last[1] - last[3]
        fy = -(last[0] - last[2])
        mx = 0.5 * (last[0] + last[2])
        my = 0.5 * (last[1] + last[3])
        if (tx - mx) * fx + (ty - my) * fy < 0.0:
            return fs.apd + _via_segment(ap[0], ap[1], tx, ty, last[0], last[1], last[2], last[3])
    return _taut(tx, ty, ap, fs.apd, Lc, fs.hl, fs.nl, Rc, fs.hr, fs.nr, eps)


@jit(inline=True)
def _save_chains(pool, npool, st_chains, target, fs, Lc, Rc):
    """Append a funnel's live chains to the pool as ``target``'s; returns (pool, npool). Element by element: a slice
    copy builds two array views per chain, which cost more than the few points a chain holds."""
    hl, nl, hr, nr = fs.hl, fs.nl, fs.hr, fs.nr
    if npool + (nl - hl) + (nr - hr) > pool.shape[0]:
        pool = reserve(pool, npool + (nl - hl) + (nr - hr))
    st_chains[target, 0] = npool
    st_chains[target, 1] = nl - hl
    npool = _copy_rows(Lc, hl, nl, pool, npool)
    st_chains[target, 2] = npool
    st_chains[target, 3] = nr - hr
    npool = _copy_rows(Rc, hr, nr, pool, npool)
    return pool, npool


@jit(inline=True)
def _copy_rows(src, a, b, dst, n):
    """Copy points src[a:b] to dst[n:]; returns the new end n + b - a."""
    for j in range(a, b):
        dst[n, 0] = src[j, 0]
        dst[n, 1] = src[j, 1]
        n += 1
    return n


@jit(inline=True)
def _keep(w, target, med, found, f, fs, ap, Lc, Rc, last, pool, npool):
    """Record a prefix reaching ``target`` with score f (final when ``found``) and medial-axis length ``med`` if it
    beats the one kept there: (key, kept, pool, npool). Ties go to the shorter medial length (``TIE``); the caller
    sets the parent and pushes ``key``. A final score needs no funnel state."""
    key = f * (1.0 + TIE) + TIE * med if found else f
    if not key < w.best[target]:
        return key, False, pool, npool
    w.best[target] = key
    w.medial[target] = med
    w.st_found[target] = found
    if found:
        w.st_d[target] = f
        return key, True, pool, npool
    w.st_ap[target, 0] = ap[0]
    w.st_ap[target, 1] = ap[1]
    w.st_d[target] = fs.apd
    w.st_has[target] = fs.has
    w.st_fresh[target] = fs.fresh
    w.st_last[target, 0] = last[0]
    w.st_last[target, 1] = last[1]
    w.st_last[target, 2] = last[2]
    w.st_last[target, 3] = last[3]
    pool, npool = _save_chains(pool, npool, w.st_chains, target, fs, Lc, Rc)
    return key, True, pool, npool


@jit
def _seed_portals(ecm, start, goal, end, c, P):
    """The portals from the start's retraction along its edge to its first (``end`` 0) or last (1) vertex, or (2)
    along the common edge to the goal's retraction: (rows of P, medial-axis length)."""
    ls_x, ls_y, rs_x, rs_y = closest_pair(start.i, start.x, start.y, ecm.ev_fl, ecm.ev_fr, ecm.xy, ecm.ring_next)
    ev_B, ev_R, ev_l, ev_r = ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r
    i_s, i_g = start.i, goal.i
    n = 0
    if end == 1:
        n = _disk_portal(start.x, start.y, start.R, ls_x, ls_y, rs_x, rs_y, c, P, n)
        if i_s + 1 <= ecm.edge_ptr[start.k + 1] - 1:
            n = _edge_portals(ev_B, ev_R, ev_l, ev_r, True, i_s + 1, ecm.edge_ptr[start.k + 1] - 1, c, P, n)
        return n, ecm.edge_len[start.k] - start.s
    if end == 0:
        n = _disk_portal(start.x, start.y, start.R, rs_x, rs_y, ls_x, ls_y, c, P, n)
        n = _edge_portals(ev_B, ev_R, ev_l, ev_r, False, i_s, ecm.edge_ptr[start.k], c, P, n)
        return n, start.s
    lg_x, lg_y, rg_x, rg_y = closest_pair(i_g, goal.x, goal.y, ecm.ev_fl, ecm.ev_fr, ecm.xy, ecm.ring_next)
    if i_s < i_g or (i_s == i_g and start.s <= goal.s):
        n = _disk_portal(start.x, start.y, start.R, ls_x, ls_y, rs_x, rs_y, c, P, n)
        if i_g >= i_s + 1:
            n = _edge_portals(ev_B, ev_R, ev_l, ev_r, True, i_s + 1, i_g, c, P, n)
        n = _disk_portal(goal.x, goal.y, goal.R, lg_x, lg_y, rg_x, rg_y, c, P, n)
    else:
        n = _disk_portal(start.x, start.y, start.R, rs_x, rs_y, ls_x, ls_y, c, P, n)
        if i_s >= i_g + 1:
            n = _edge_portals(ev_B, ev_R, ev_l, ev_r, False, i_s, i_g + 1, c, P, n)
        n = _disk_portal(goal.x, goal.y, goal.R, rg_x, rg_y, lg_x, lg_y, c, P, n)
    return n, abs(goal.s - start.s)


@jit
def _goal_portals(ecm, goal, end, c, P):
    """The portals from the goal edge's first (``end`` 0) or last (1) vertex along it to the goal's retraction."""
    lg_x, lg_y, rg_x, rg_y = closest_pair(goal.i, goal.x, goal.y, ecm.ev_fl, ecm.ev_fr, ecm.xy, ecm.ring_next)
    ev_B, ev_R, ev_l, ev_r = ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r
    if end == 0:
        n = _edge_portals(ev_B, ev_R, ev_l, ev_r, True, ecm.edge_ptr[goal.k], goal.i, c, P, 0)
        return _disk_portal(goal.x, goal.y, goal.R, lg_x, lg_y, rg_x, rg_y, c, P, n)
    n = _edge_portals(ev_B, ev_R, ev_l, ev_r, False, ecm.edge_ptr[goal.k + 1] - 1, goal.i + 1, c, P, 0)
    return _disk_portal(goal.x, goal.y, goal.R, rg_x, rg_y, lg_x, lg_y, c, P, n)


@jit(shared=True)
def corridor_search(ecm, w, start, goal, sx, sy, tx, ty, clearance, eps):
    """Funnel-guided A* from s (retracted to ``start``) to t (``goal``) on the reset buffers ``w``
    (``arrays.QueryWork``): (nodes, edges, found) as ``astar.astar``.

    Each vertex keeps the funnel of the best-scored prefix that reached it (apex, distance to the apex, chains,
    the last portal) and whether the goal already lies in that prefix's strip (then the score is final). Ties go to
    the shorter medial-axis length, so a finished prefix walks on to the goal's retraction the shortest way.
    """
    edge_uv, edge_len, edge_minR, edge_ptr = ecm.edge_uv, ecm.edge_len, ecm.edge_minR, ecm.edge_ptr
    adj_ptr, adj_edge, adj_other = ecm.adj_ptr, ecm.adj_edge, ecm.adj_other
    closed, parent, via, hk, hv, P = w.closed, w.parent, w.via, w.hk, w.hv, w.P
    ev_B, ev_R, ev_l, ev_r = ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r
    nv = ecm.vert_xy.shape[0]
    S = nv
    G = nv + 1
    pool = w.pool
    E, rows_c = w.edge_rows, w.edge_rows_c
    top = 2 * ev_R.shape[0] - 1
    npool = 0
    nh = 0
    ok, min_back, min_fwd, g_back, g_fwd = ends_clearance(ecm, start, goal, clearance)
    if not ok:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    ap, Lc, Rc, last = w.ap, w.Lc, w.Rc, w.last
    st = (sx, sy, tx, ty)
    ks = start.k
    kg = goal.k
    # The search starts at the start S, whose relaxations are the seeds: along the start's edge towards both ends,
    # and directly to the goal on the same edge. One loop relaxes S and then every vertex the heap gives, so that
    # numba inlines the funnel's extension and the keeping once.
    u = S
    # u's kept prefix, read once for all its relaxations (they write other vertices only).
    med_u = 0.0
    found_u = False
    d_u = 0.0
    has_u = False
    fresh_u = True
    ax_u = sx
    ay_u = sy
    l0 = 0
    nl = 0
    r0 = 0
    nr = 0
    last_u0 = 0.0
    last_u1 = 0.0
    last_u2 = 0.0
    last_u3 = 0.0
    deg = 0
    while True:
        if u == S:
            count = 3
        else:
            med_u = w.medial[u]
            found_u = w.st_found[u]
            d_u = w.st_d[u]
            has_u = w.st_has[u]
            fresh_u = w.st_fresh[u]
            ax_u = w.st_ap[u, 0]
            ay_u = w.st_ap[u, 1]
            l0 = w.st_chains[u, 0]
            nl = w.st_chains[u, 1]
            r0 = w.st_chains[u, 2]
            nr = w.st_chains[u, 3]
            last_u0 = w.st_last[u, 0]
            last_u1 = w.st_last[u, 1]
            last_u2 = w.st_last[u, 2]
            last_u3 = w.st_last[u, 3]
            deg = adj_ptr[u + 1] - adj_ptr[u]
            count = deg + 2
        for q in range(count):
            if u == S:
                end = q
                if end < 2:
                    if (min_back if end == 0 else min_fwd) < clearance:
                        continue
                    target = edge_uv[ks, end]
                    k = ks
                else:
                    if kg != ks or same_edge_clearance(ecm, start, goal) < clearance:
                        continue
                    target = G
                    k = -2
                n, med = _seed_portals(ecm, start, goal, end, clearance, P)
                rows = P
                k0 = 0
                # Start and goal in the start's own disk: straight there.
                done = in_disk(P, 0, tx, ty, eps) and in_disk(P, 0, sx, sy, eps)
                f_done = np.hypot(tx - sx, ty - sy)
                fs_done = Funnel(0.0, 0, 0, 0, 0, False, True)
                fs_from = Funnel(0.0, 0, 0, 0, 0, False, True)
            else:
                if q < deg:
                    k = adj_edge[adj_ptr[u] + q]
                    v = adj_other[adj_ptr[u] + q]
                    if closed[v] or edge_minR[k] < clearance:
                        continue
                    ea = edge_ptr[k]
                    eb = edge_ptr[k + 1]
                    if _stale(rows_c[k], clearance):
                        edge_rows(ev_B, ev_R, ev_l, ev_r, ea, eb, clearance, E)
                        rows_c[k] = clearance
                    rows = E
                    if edge_uv[k, 0] == u:
                        k0 = ea
                    else:
                        k0 = top - (eb - 1)
                    n = eb - ea
                    med = med_u + edge_len[k]
                    target = v
                else:
                    end = q - deg
                    if closed[G] or edge_uv[kg, end] != u or (g_back if end == 0 else g_fwd) < clearance:
                        continue
                    n = _goal_portals(ecm, goal, end, clearance, P)
                    rows = P
                    k0 = 0
                    med = med_u + goal.s if end == 0 else med_u + edge_len[kg] - goal.s
                    k = kg
                    target = G
                done = found_u
                f_done = d_u
                fs_done = Funnel(0.0, 0, 0, 0, 0, has_u, False)
                fs_from = Funnel(d_u, 0, nl, 0, nr, has_u, fresh_u)
            if done:
                f = f_done
                found = True
                fs = fs_done
            else:
                ap[0] = ax_u
                ap[1] = ay_u
                if u != S:
                    if Lc.shape[0] < nl + n + 4:
                        Lc = np.empty((2 * (nl + n + 4), 2))
                    if Rc.shape[0] < nr + n + 4:
                        Rc = np.empty((2 * (nr + n + 4), 2))
                    _copy_rows(pool, l0, l0 + nl, Lc, 0)
                    _copy_rows(pool, r0, r0 + nr, Rc, 0)
                    last[0] = last_u0
                    last[1] = last_u1
                    last[2] = last_u2
                    last[3] = last_u3
                fs, found, f = _extend(rows, k0, k0 + n - 1, fs_from, ap, Lc, Rc, last, st, eps)
            key, kept, pool, npool = _keep(w, target, med, found, f, fs, ap, Lc, Rc, last, pool, npool)
            if kept:
                parent[target] = u
                via[target] = k
                if nh >= hk.shape[0]:
                    hk, hv = doubled(hk, nh), doubled(hv, nh)
                nh = heap_push(hk, hv, nh, key, target)
        u, nh = pop_open(hk, hv, nh, closed)
        if u < 0 or u == G:
            break
    if not closed[G]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    nodes, edges = path_between(parent, via, S, G)
    return nodes, edges, True
