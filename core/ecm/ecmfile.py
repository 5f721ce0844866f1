"""The ``miran ecm --out`` file (``miran-ecm``, version 1): vertices and edges with their event points."""

from __future__ import annotations

from .graph import ECM


def _pt(a) -> list[float]:
    return [float(a[0]), float(a[1])]


def ecm_to_dict(ecm: ECM, scene_name: str = "", units: str = "m") -> dict:
    """JSON-ready ECM.

    ``vertices``: [x, y, clearance]; ``edges``: {"from", "to", "length", "min_clearance", "events"} where each event
    point is {"B": [x, y], "R": clearance, "l": [x, y], "r": [x, y]} (left and right seen from "from" to "to"),
    the first and last being the edge's vertices (ECM Definition 1).
    """
    edges = []
    for k in range(ecm.n_edges):
        sl = ecm.edge_events(k)
        events = [{"B": _pt(b), "R": float(r), "l": _pt(lp), "r": _pt(rp)}
                  for b, r, lp, rp in zip(ecm.ev_B[sl], ecm.ev_R[sl], ecm.ev_l[sl], ecm.ev_r[sl])]
        edges.append({"from": int(ecm.edge_uv[k, 0]), "to": int(ecm.edge_uv[k, 1]), "length": float(ecm.edge_len[k]),
                      "min_clearance": float(ecm.edge_minR[k]), "events": events})
    return {
        "format": "miran-ecm",
        "version": 1,
        "scene": scene_name,
        "units": units,
        "bounds": [float(v) for v in ecm.sites.bounds],
        "resolution": int(ecm.resolution),
        "pixel_size": float(ecm.pixel),
        "counts": {"vertices": ecm.n_vertices, "edges": ecm.n_edges, "events": ecm.n_events,
                   "sites": ecm.sites.n_sites, "obstacle_vertices": ecm.sites.n_obstacle_vertices},
        "vertices": [[float(x), float(y), float(r)] for (x, y), r in zip(ecm.vert_xy, ecm.vert_R)],
        "edges": edges,
    }
