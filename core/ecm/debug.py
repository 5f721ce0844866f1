"""Plain arrays for the app's GVD/ECM overlays: medial-axis polylines, closest-point segments, corridor sides.

Nothing here draws; ``app`` turns these arrays into pyqtgraph items (one item per layer, ``connect='pairs'``).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .graph import ECM


@jit
def _point_on_piece(fl, fr, b0, b1, l0, l1, r0, r1, u, xy, ring_next, normal):
    """The point at fraction u of one piece of a Voronoi edge, exactly on the bisector: (x, y, clearance).

    The piece as in ``annotate.lengths``: features fl, fr, event points b0, b1, closest points l0, l1, r0, r1."""
    nv = xy.shape[0]
    if fl >= 0 and fr >= 0 and (fl < nv) != (fr < nv):
        # Parabola between vertex v and edge e: parameterised by the foot on the edge.
        if fl < nv:
            v = fl
            e = fr - nv
            fx = r0[0] + u * (r1[0] - r0[0])
            fy = r0[1] + u * (r1[1] - r0[1])
        else:
            v = fr
            e = fl - nv
            fx = l0[0] + u * (l1[0] - l0[0])
            fy = l0[1] + u * (l1[1] - l0[1])
        nx = normal[e, 0]
        ny = normal[e, 1]
        wx = xy[v, 0] - fx
        wy = xy[v, 1] - fy
        den = 2.0 * (nx * wx + ny * wy)
        if den > 1e-12 * (wx * wx + wy * wy) ** 0.5:
            rho = (wx * wx + wy * wy) / den
            return fx + rho * nx, fy + rho * ny, rho
    x = b0[0] + u * (b1[0] - b0[0])
    y = b0[1] + u * (b1[1] - b0[1])
    R = np.inf
    for f in (fl, fr):
        if f < 0:
            continue
        if f < nv:
            R = min(R, np.hypot(x - xy[f, 0], y - xy[f, 1]))
        else:
            e = f - nv
            R = min(R, normal[e, 0] * (x - xy[e, 0]) + normal[e, 1] * (y - xy[e, 1]))
    if not np.isfinite(R):
        R = 0.0
    return x, y, R


@jit
def sample_edges(edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, xy, ring_next, normal, step):
    """Every edge as a polyline with points at most ``step`` apart along straight chords of its pieces.

    Returns (points (n, 2) float64, clearance (n,) float64, offsets (ne + 1,) int64).
    """
    ne = edge_ptr.shape[0] - 1
    total = 0
    for k in range(ne):
        total += 1
        for i in range(edge_ptr[k], edge_ptr[k + 1] - 1):
            d = np.hypot(ev_B[i + 1, 0] - ev_B[i, 0], ev_B[i + 1, 1] - ev_B[i, 1])
            total += max(1, int(np.ceil(d / step)))
    pts = np.empty((total, 2), dtype=np.float64)
    clr = np.empty(total, dtype=np.float64)
    off = np.zeros(ne + 1, dtype=np.int64)
    n = 0
    for k in range(ne):
        a = edge_ptr[k]
        pts[n, 0] = ev_B[a, 0]
        pts[n, 1] = ev_B[a, 1]
        clr[n] = ev_R[a]
        n += 1
        for i in range(a, edge_ptr[k + 1] - 1):
            d = np.hypot(ev_B[i + 1, 0] - ev_B[i, 0], ev_B[i + 1, 1] - ev_B[i, 1])
            m = max(1, int(np.ceil(d / step)))
            for j in range(1, m + 1):
                if j == m:
                    pts[n, 0] = ev_B[i + 1, 0]
                    pts[n, 1] = ev_B[i + 1, 1]
                    clr[n] = ev_R[i + 1]
                else:
                    x, y, R = _point_on_piece(ev_fl[i], ev_fr[i], (ev_B[i, 0], ev_B[i, 1]),
                                              (ev_B[i + 1, 0], ev_B[i + 1, 1]), (ev_l[i, 0], ev_l[i, 1]),
                                              (ev_l[i + 1, 0], ev_l[i + 1, 1]), (ev_r[i, 0], ev_r[i, 1]),
                                              (ev_r[i + 1, 0], ev_r[i + 1, 1]), j / m, xy, ring_next, normal)
                    pts[n, 0] = x
                    pts[n, 1] = y
                    clr[n] = R
                n += 1
        off[k + 1] = n
    return pts[:n], clr[:n], off


def medial_axis(ecm: ECM, step: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The medial axis as polylines: (points (n, 2) float64, clearance (n,) float64, offsets (ne + 1,) int64).

    Edge k is ``points[offsets[k]:offsets[k+1]]``; parabolic pieces are sampled at most ``step`` apart (default:
    one GVD pixel), exactly on the curve.
    """
    s = ecm.sites
    return sample_edges(ecm.edge_ptr, ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r, ecm.ev_fl, ecm.ev_fr, s.ring_xy,
                        s.ring_next, s.edge_normal, float(step or ecm.pixel))


def medial_axis_segments(ecm: ECM, step: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(m, 4) float32 segments [x0, y0, x1, y1] of the medial axis and (m,) float32 mean clearance of each."""
    pts, clr, off = medial_axis(ecm, step)
    last = np.zeros(len(pts), dtype=bool)
    last[off[1:] - 1] = True
    a = np.flatnonzero(~last)
    seg = np.hstack([pts[a], pts[a + 1]]).astype(np.float32)
    return seg, (0.5 * (clr[a] + clr[a + 1])).astype(np.float32)


def closest_point_segments(ecm: ECM) -> np.ndarray:
    """(2 n, 4) float32: for every event point, the segments B -> l and B -> r."""
    return np.vstack([np.hstack([ecm.ev_B, ecm.ev_l]), np.hstack([ecm.ev_B, ecm.ev_r])]).astype(np.float32)


def event_points(ecm: ECM) -> tuple[np.ndarray, np.ndarray]:
    """(n, 2) float32 event centres and (n,) float32 clearances."""
    return ecm.ev_B.astype(np.float32), ecm.ev_R.astype(np.float32)
