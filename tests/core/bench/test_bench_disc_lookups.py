"""The steering bench's disc MIRAN step-lookup records: the sweep clearance and the disc's triangle measured afresh
and reused from the step before, on a crowd's own positions."""

from __future__ import annotations

import numpy as np

from core.bench.disc_lookups import lookups_measured, lookups_reused
from core.bench.steering import SCENES_DIR, _crowd, disc_lookup_records
from core.navmesh import build_navmesh
from core.navmesh.kernels.clearance import point_clearance
from core.navmesh.kernels.walk import locate_any
from core.scene.io import load_scene
from core.sim.state import WALKING


def test_disc_lookup_records_compare_the_same_values():
    """Both kernels give the shapely-free reference's values (point_clearance and locate_any called one by one);
    the records name both and report no difference (no timing is asserted)."""
    city = load_scene(SCENES_DIR / "city.json")
    mesh = build_navmesh(city)
    M = mesh.arrays
    W, C = M
    sim = _crowd(city, mesh, "disc-miran", 40)
    sim.step(3)
    before = sim.state.pos.copy()
    sim.step()
    st = sim.state
    walk = np.flatnonzero((st.status == WALKING) & (st.radius > 0.0))
    assert len(walk) >= 30
    X, rad = np.ascontiguousarray(st.pos[walk]), np.ascontiguousarray(st.radius[walk])
    at = np.ascontiguousarray(before[walk])
    c_last = np.array([point_clearance(C, p[0], p[1])[0] for p in at])
    want_need = np.array([min(r, point_clearance(C, p[0], p[1])[0]) * (1.0 - 1e-9) for p, r in zip(X, rad)])
    want_tri = np.array([locate_any(W, p[0], p[1]) for p in X])
    n = len(walk)
    need, tri = np.empty(n), np.empty(n, dtype=np.int64)
    lookups_measured(M, X, rad, need, tri)
    assert np.array_equal(need, want_need) and np.array_equal(tri, want_tri)
    need[:], tri[:] = np.nan, -2
    x0, y0, x1, y1 = mesh.bounds
    hint = np.ascontiguousarray(st.tri[walk], dtype=np.int64)
    lookups_reused(M, X, rad, c_last, at, hint, 1e-9 * max(x1 - x0, y1 - y0), need, tri)
    assert np.array_equal(need, want_need) and np.array_equal(tri, want_tri)
    recs = disc_lookup_records(sim, mesh, 1)
    assert [r.name for r in recs] == ["disc MIRAN step lookups, reused", "disc MIRAN step lookups, measured (baseline)"]
    assert all(r.value > 0 for r in recs) and "DIFFER" not in recs[0].reference
