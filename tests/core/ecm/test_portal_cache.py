"""The batch's cache of arc portals (``portal_cache``): portals taken from it are the rows ``portals`` computes, to
the bit, whatever the clearances that share it and however small it is (entries dropped when it fills)."""

import numpy as np
import pytest

from core.ecm import OK
from core.ecm.corridor import corridor_disks
from core.ecm.funnel import ARC_STEP, cached_portals, portals
from core.ecm.path import plan
from core.ecm.portal_cache import arc_cache

from conftest import case


def _corridors(ecm, scene, n, seed):
    """Disks of up to n random corridors at random clearances: [(Disks, rows, clearance)]."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = scene.bounds
    out = []
    for _ in range(20 * n):
        s, g = rng.uniform([x0, y0], [x1, y1], size=(2, 2))
        c = float(rng.choice([0.2, 0.5, 1.0]))
        p = plan(ecm, s, g, c)
        if p.status == OK:
            d, m = corridor_disks(ecm.arrays, p)
            out.append((d, m, c))
        if len(out) == n:
            break
    return out


@pytest.mark.parametrize("capacity", [0, 6, 100000])
def test_cached_portals_are_the_computed_ones(capacity):
    scene, g, ecm = case(202)
    s = ecm.sites
    cache = arc_cache(len(ecm.arrays.ev_R), capacity)
    corridors = _corridors(ecm, scene, 40, 5)
    assert len(corridors) == 40
    pieces = 0
    for rnd in range(2):
        for d, m, c in corridors:
            B, R, l, r, f, p = d.B[:m], d.R[:m], d.l[:m], d.r[:m], d.f[:m], d.p[:m]
            want = portals(B, R, l, r, f, c, s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
            got = cached_portals(B, R, l, r, f, p, c, s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP, cache)
            assert got.tobytes() == want.tobytes()
            pieces += int((p >= 0).sum())
    assert pieces > 100
    # The cache was used (rows kept) unless it has no room at all.
    kept = np.isfinite(cache.tag).sum()
    assert (kept > 0) == (capacity > 0)
    assert cache.used[0] <= capacity


def test_piece_entries_name_the_events_the_corridor_joins():
    """Entry 2q joins event q to q + 1 (walked forward), 2q + 1 event q to q - 1: the disks on both sides are those
    event points."""
    scene, g, ecm = case(203)
    a = ecm.arrays
    seen = 0
    for d, m, c in _corridors(ecm, scene, 30, 8):
        for i in np.flatnonzero(d.p[:m] >= 0):
            q, back = divmod(int(d.p[i]), 2)
            nxt = q - 1 if back else q + 1
            assert d.B[i].tolist() == a.ev_B[q].tolist() and d.B[i + 1].tolist() == a.ev_B[nxt].tolist()
            feats = (a.ev_fr[nxt], a.ev_fl[nxt]) if back else (a.ev_fl[q], a.ev_fr[q])
            assert d.f[i].tolist() == list(feats)
            seen += 1
    assert seen > 50
