"""A check shared by the ECM tests: a map against a fresh build of the same scene."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import cKDTree


def assert_same_map(got, fresh, tol: float) -> None:
    """Vertices matched both ways within ``tol`` with the same clearance and kind, the same edges between them, the
    same number of events, each event matched within ``tol``, and the same total length."""
    d_gf, to_fresh = cKDTree(fresh.vert_xy).query(got.vert_xy)
    d_fg, _ = cKDTree(got.vert_xy).query(fresh.vert_xy)
    assert d_gf.max(initial=0.0) <= tol and d_fg.max(initial=0.0) <= tol
    np.testing.assert_allclose(got.vert_R, fresh.vert_R[to_fresh], atol=tol)
    assert np.array_equal(got.vert_kind, fresh.vert_kind[to_fresh])
    got_edges = sorted(tuple(sorted(map(int, to_fresh[uv]))) for uv in got.edge_uv)
    assert got_edges == sorted(tuple(sorted(map(int, uv))) for uv in fresh.edge_uv)
    assert got.n_events == fresh.n_events
    d_ev, _ = cKDTree(fresh.ev_B).query(got.ev_B)
    assert d_ev.max(initial=0.0) <= tol
    assert got.edge_len.sum() == pytest.approx(fresh.edge_len.sum(), abs=tol * max(1, fresh.n_edges))
