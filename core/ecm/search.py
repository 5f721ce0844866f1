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

import numpy as np
from core.jitcache import jit
from core.kernels.paths import path_between
from core.kernels.buffers import doubled, reserve
from core.kernels.geometry import orient

from core.kernels.heap import heap_pop, heap_push

from .retract import closest_pair, partial_clearance


@jit
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


@jit
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


@jit
def _edge_portals(k, forward, first, last, edge_ptr, ev_B, ev_R, ev_l, ev_r, c, P, n):
    """Append the shrunk chords of edge k's events first..last (walking order) to P (rows as ``funnel.portals``)."""
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


@jit
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


@jit
def _in_disk(P, z, px, py, eps):
    return np.hypot(px - P[z, 4], py - P[z, 5]) <= P[z, 6] + eps


@jit
def _in_piece(P, z, px, py, eps):
    """p in the strip piece between portals z and z + 1 of P."""
    return (_in_tri(px, py, P[z, 0], P[z, 1], P[z, 2], P[z, 3], P[z + 1, 0], P[z + 1, 1], eps)
            or _in_tri(px, py, P[z, 2], P[z, 3], P[z + 1, 0], P[z + 1, 1], P[z + 1, 2], P[z + 1, 3], eps))


@jit
def _extend(P, k0, k1, ap, apd, Lc, hl, nl, Rc, hr, nr, last, has_last, fresh, sx, sy, tx, ty, eps):
    """Push portals k0..k1 of P into the funnel, watching for the goal t before each portal.

    While ``fresh`` (nothing pushed yet), portals the start s is already past are skipped as in
    ``funnel.enter_index``: those whose disk holds s, or whose strip piece to the next portal does. Returns
    (apd, hl, nl, hr, nr, found, f, has_last, fresh): once t lies in the strip piece before a portal, or in that
    portal's disk, the path through this corridor is fixed (it crosses the portals before and goes straight to t;
    ``funnel.exit_index``) and ``f`` is its length; otherwise ``f`` is the length through all portals and then
    straight to t, a lower bound for any longer corridor.
    """
    for z in range(k0, k1 + 1):
        inside = _in_disk(P, z, tx, ty, eps)
        if has_last and not inside:
            inside = (_in_tri(tx, ty, last[0], last[1], last[2], last[3], P[z, 0], P[z, 1], eps)
                      or _in_tri(tx, ty, last[2], last[3], P[z, 0], P[z, 1], P[z, 2], P[z, 3], eps))
        if inside:
            f = _taut(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
            return apd, hl, nl, hr, nr, True, f, has_last, fresh
        if fresh and (_in_disk(P, z, sx, sy, eps) or (z < k1 and _in_piece(P, z, sx, sy, eps))):
            last[0] = P[z, 0]
            last[1] = P[z, 1]
            last[2] = P[z, 2]
            last[3] = P[z, 3]
            has_last = True
            continue
        fresh = False
        apd, hl, nl, hr, nr = _add(1, P[z, 2], P[z, 3], ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
        apd, hl, nl, hr, nr = _add(0, P[z, 0], P[z, 1], ap, apd, Lc, hl, nl, Rc, hr, nr, eps)
        last[0] = P[z, 0]
        last[1] = P[z, 1]
        last[2] = P[z, 2]
        last[3] = P[z, 3]
        has_last = True
    f = _bound(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, last, has_last, eps)
    return apd, hl, nl, hr, nr, False, f, has_last, fresh


@jit
def _via_segment(ax, ay, tx, ty, lx, ly, rx, ry):
    """min over q on segment [l, r] of |a - q| + |q - t| (reflect t across the segment's line when a and t lie on
    the same side)."""
    dx = rx - lx
    dy = ry - ly
    dd = dx * dx + dy * dy
    best = min(np.hypot(lx - ax, ly - ay) + np.hypot(tx - lx, ty - ly),
               np.hypot(rx - ax, ry - ay) + np.hypot(tx - rx, ty - ry))
    if dd <= 0.0:
        return best
    sa = dx * (ay - ly) - dy * (ax - lx)
    st = dx * (ty - ly) - dy * (tx - lx)
    if sa * st > 0.0:
        # Reflect t across the line.
        u = ((tx - lx) * dx + (ty - ly) * dy) / dd
        fx = lx + u * dx
        fy = ly + u * dy
        tx = 2.0 * fx - tx
        ty = 2.0 * fy - ty
        st = -st
    den = sa - st
    if den != 0.0:
        w = sa / den
        qx = ax + w * (tx - ax)
        qy = ay + w * (ty - ay)
        u = ((qx - lx) * dx + (qy - ly) * dy) / dd
        if 0.0 <= u <= 1.0:
            best = min(best, np.hypot(tx - ax, ty - ay))
    return best


@jit
def _bound(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, last, has_last, eps):
    """A lower bound on any path from the start through the portals pushed so far to t: the funnel's path to t when
    t lies ahead of the last portal; else (the corridor turns back towards t further on, through portals not seen
    yet) the distance to the apex, which every such path passes, plus the shortest way from the apex to t that
    touches the last portal."""
    if has_last:
        fx = last[1] - last[3]
        fy = -(last[0] - last[2])
        mx = 0.5 * (last[0] + last[2])
        my = 0.5 * (last[1] + last[3])
        if (tx - mx) * fx + (ty - my) * fy < 0.0:
            return apd + _via_segment(ap[0], ap[1], tx, ty, last[0], last[1], last[2], last[3])
    return _taut(tx, ty, ap, apd, Lc, hl, nl, Rc, hr, nr, eps)


@jit
def _in_tri(px, py, ax, ay, bx, by, cx, cy, eps):
    area = orient(ax, ay, bx, by, cx, cy)
    if abs(area) <= eps * eps:
        return False
    d1 = orient(ax, ay, bx, by, px, py)
    d2 = orient(bx, by, cx, cy, px, py)
    d3 = orient(cx, cy, ax, ay, px, py)
    if area > 0.0:
        return d1 >= -eps * eps and d2 >= -eps * eps and d3 >= -eps * eps
    return d1 <= eps * eps and d2 <= eps * eps and d3 <= eps * eps


@jit
def _save_chains(pool, npool, st_chains, target, Lc, hl, nl, Rc, hr, nr):
    """Append a funnel's live chains Lc[hl:nl] and Rc[hr:nr] to the pool as ``target``'s; returns (pool, npool)."""
    pool = reserve(pool, npool + (nl - hl) + (nr - hr))
    st_chains[target, 0] = npool
    st_chains[target, 1] = nl - hl
    pool[npool:npool + nl - hl] = Lc[hl:nl]
    npool += nl - hl
    st_chains[target, 2] = npool
    st_chains[target, 3] = nr - hr
    pool[npool:npool + nr - hr] = Rc[hr:nr]
    npool += nr - hr
    return pool, npool


@jit
def corridor_search(vert_xy, vert_R, edge_uv, edge_len, edge_minR, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr,
                    adj_ptr, adj_edge, adj_other, xy, ring_next, ks, is_, Sx, Sy, Rs, ss, kg, ig, Gx, Gy, Rg, sg, sx,
                    sy, tx, ty, clearance, eps):
    """Funnel-guided A*: (nodes, edges, found) as ``corridor.astar``.

    Each vertex keeps the funnel of the best-scored prefix that reached it (apex, distance to the apex, chains,
    the last portal) and whether the goal already lies in that prefix's strip (then the score is final). Ties go to
    the shorter medial-axis length, so a finished prefix walks on to the goal's retraction the shortest way.
    """
    nv = vert_xy.shape[0]
    S = nv
    G = nv + 1
    best = np.full(nv + 2, np.inf)
    medial = np.zeros(nv + 2)
    parent = np.full(nv + 2, -1, dtype=np.int64)
    via = np.full(nv + 2, -1, dtype=np.int64)
    closed = np.zeros(nv + 2, dtype=np.bool_)
    st_ap = np.zeros((nv + 2, 2))
    st_d = np.zeros(nv + 2)
    st_last = np.zeros((nv + 2, 4))
    st_has = np.zeros(nv + 2, dtype=np.bool_)
    st_found = np.zeros(nv + 2, dtype=np.bool_)
    st_fresh = np.zeros(nv + 2, dtype=np.bool_)
    st_chains = np.zeros((nv + 2, 4), dtype=np.int64)  # left chain's start in pool and length, then the right's
    pool = np.empty((1024, 2))
    npool = 0
    cap = 4 * (edge_uv.shape[0] + nv) + 16
    hk = np.empty(cap, dtype=np.float64)
    hv = np.empty(cap, dtype=np.int64)
    nh = 0
    if Rs < clearance or Rg < clearance:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    lsx, lsy, rsx, rsy = closest_pair(is_, Sx, Sy, ev_fl, ev_fr, xy, ring_next)
    lgx, lgy, rgx, rgy = closest_pair(ig, Gx, Gy, ev_fl, ev_fr, xy, ring_next)
    maxev = 0
    for k in range(edge_ptr.shape[0] - 1):
        maxev = max(maxev, edge_ptr[k + 1] - edge_ptr[k])
    P = np.empty((2 * maxev + 8, 7))
    Lc = np.empty((4 * maxev + 64, 2))
    Rc = np.empty((4 * maxev + 64, 2))
    ap = np.empty(2)
    last = np.empty(4)
    tie = 1e-9
    a = edge_ptr[ks]
    b = edge_ptr[ks + 1]
    ga = edge_ptr[kg]
    gb = edge_ptr[kg + 1]
    min_back, min_fwd = partial_clearance(edge_ptr, ev_R, ks, is_, Rs)
    g_back, g_fwd = partial_clearance(edge_ptr, ev_R, kg, ig, Rg)
    # Seeds: from the start along its edge towards both ends, and directly to the goal on the same edge.
    for end in range(3):
        if end < 2:
            if (min_back if end == 0 else min_fwd) < clearance:
                continue
            n = 0
            if end == 1:
                n = _disk_portal(Sx, Sy, Rs, lsx, lsy, rsx, rsy, clearance, P, n)
                if is_ + 1 <= b - 1:
                    n = _edge_portals(ks, True, is_ + 1, b - 1, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, n)
                med = edge_len[ks] - ss
            else:
                n = _disk_portal(Sx, Sy, Rs, rsx, rsy, lsx, lsy, clearance, P, n)
                n = _edge_portals(ks, False, is_, a, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, n)
                med = ss
            target = edge_uv[ks, end]
        else:
            if kg != ks:
                continue
            lo = min(is_, ig)
            hi = max(is_, ig)
            m = min(Rs, Rg)
            for q in range(lo + 1, hi + 1):
                m = min(m, ev_R[q])
            if m < clearance:
                continue
            n = 0
            if is_ < ig or (is_ == ig and ss <= sg):
                n = _disk_portal(Sx, Sy, Rs, lsx, lsy, rsx, rsy, clearance, P, n)
                if ig >= is_ + 1:
                    n = _edge_portals(ks, True, is_ + 1, ig, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, n)
                n = _disk_portal(Gx, Gy, Rg, lgx, lgy, rgx, rgy, clearance, P, n)
            else:
                n = _disk_portal(Sx, Sy, Rs, rsx, rsy, lsx, lsy, clearance, P, n)
                if is_ >= ig + 1:
                    n = _edge_portals(ks, False, is_, ig + 1, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, n)
                n = _disk_portal(Gx, Gy, Rg, rgx, rgy, lgx, lgy, clearance, P, n)
            med = abs(sg - ss)
            target = G
        ap[0] = sx
        ap[1] = sy
        has = False
        fresh = True
        if _in_disk(P, 0, tx, ty, eps) and _in_disk(P, 0, sx, sy, eps):
            # Start and goal in the start's own disk: straight there.
            found = True
            f = np.hypot(tx - sx, ty - sy)
            apd = 0.0
            hl = 0
            nl = 0
            hr = 0
            nr = 0
        else:
            apd, hl, nl, hr, nr, found, f, has, fresh = _extend(P, 0, n - 1, ap, 0.0, Lc, 0, 0, Rc, 0, 0, last, has,
                                                                fresh, sx, sy, tx, ty, eps)
        key = f * (1.0 + tie) + tie * med if found else f
        if key < best[target]:
            best[target] = key
            medial[target] = med
            parent[target] = S
            via[target] = ks if end < 2 else -2
            st_ap[target, 0] = ap[0]
            st_ap[target, 1] = ap[1]
            st_d[target] = f if found else apd
            st_found[target] = found
            st_has[target] = has
            st_fresh[target] = fresh
            st_last[target] = last
            pool, npool = _save_chains(pool, npool, st_chains, target, Lc, hl, nl, Rc, hr, nr)
            nh = heap_push(hk, hv, nh, key, target)
    while nh > 0:
        key, u = hk[0], hv[0]
        nh = heap_pop(hk, hv, nh)
        if closed[u]:
            continue
        closed[u] = True
        if u == G:
            break
        deg = adj_ptr[u + 1] - adj_ptr[u]
        for q in range(deg + 2):
            if q < deg:
                k = adj_edge[adj_ptr[u] + q]
                w = adj_other[adj_ptr[u] + q]
                if closed[w] or edge_minR[k] < clearance:
                    continue
                ea = edge_ptr[k]
                eb = edge_ptr[k + 1]
                if edge_uv[k, 0] == u:
                    n = _edge_portals(k, True, ea, eb - 1, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, 0)
                else:
                    n = _edge_portals(k, False, eb - 1, ea, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, 0)
                med = medial[u] + edge_len[k]
                target = w
            else:
                end = q - deg
                if closed[G] or edge_uv[kg, end] != u or (g_back if end == 0 else g_fwd) < clearance:
                    continue
                if end == 0:
                    n = _edge_portals(kg, True, ga, ig, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, 0)
                    n = _disk_portal(Gx, Gy, Rg, lgx, lgy, rgx, rgy, clearance, P, n)
                    med = medial[u] + sg
                else:
                    n = _edge_portals(kg, False, gb - 1, ig + 1, edge_ptr, ev_B, ev_R, ev_l, ev_r, clearance, P, 0)
                    n = _disk_portal(Gx, Gy, Rg, rgx, rgy, lgx, lgy, clearance, P, n)
                    med = medial[u] + edge_len[kg] - sg
                k = kg
                target = G
            if st_found[u]:
                f = st_d[u]
                found = True
                hl = 0
                nl = 0
                hr = 0
                nr = 0
                has = st_has[u]
            else:
                ap[0] = st_ap[u, 0]
                ap[1] = st_ap[u, 1]
                nl = st_chains[u, 1]
                nr = st_chains[u, 3]
                if Lc.shape[0] < nl + n + 4:
                    Lc = np.empty((2 * (nl + n + 4), 2))
                if Rc.shape[0] < nr + n + 4:
                    Rc = np.empty((2 * (nr + n + 4), 2))
                Lc[:nl] = pool[st_chains[u, 0]:st_chains[u, 0] + nl]
                Rc[:nr] = pool[st_chains[u, 2]:st_chains[u, 2] + nr]
                last[:] = st_last[u]
                apd, hl, nl, hr, nr, found, f, has, fresh = _extend(P, 0, n - 1, ap, st_d[u], Lc, 0, nl, Rc, 0, nr,
                                                                    last, st_has[u], st_fresh[u], sx, sy, tx, ty,
                                                                    eps)
            key = f * (1.0 + tie) + tie * med if found else f
            if key < best[target]:
                best[target] = key
                medial[target] = med
                parent[target] = u
                via[target] = k
                st_found[target] = found
                if found:
                    st_d[target] = f
                else:
                    st_ap[target, 0] = ap[0]
                    st_ap[target, 1] = ap[1]
                    st_d[target] = apd
                    st_has[target] = has
                    st_fresh[target] = fresh
                    st_last[target] = last
                    pool, npool = _save_chains(pool, npool, st_chains, target, Lc, hl, nl, Rc, hr, nr)
                if nh >= hk.shape[0]:
                    hk, hv = doubled(hk, nh), doubled(hv, nh)
                nh = heap_push(hk, hv, nh, key, target)
    if not closed[G]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    nodes, edges = path_between(parent, via, S, G)
    return nodes, edges, True
