"""Crowd density per PedPy's definitions (Boltes et al., PedPy documentation "Density"), vectorised over agents.

- Classic density in a measurement area M: rho = N / A(M), N the agents inside M.
- Voronoi density: every agent's Voronoi cell V_i (of all agents' positions) clipped to the walkable area (the
  part holding the agent when the clip falls apart) carries the density 1 / A(V_i) spread over the cell; in M,
  rho_V = sum_i A(V_i n M) / A(V_i) / A(M) (PedPy ``compute_voronoi_density`` without a cut-off).
- Heatmaps on a grid of square pixels over a time window (PedPy's density profiles): the classic one counts the
  agents in a pixel over the pixel's area, the Voronoi one is the Voronoi density of each pixel as of a
  measurement area; both are averaged over the window's frames.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely import STRtree


def voronoi_cells(points: np.ndarray, walkable) -> np.ndarray:
    """(k,) shapely polygons: agent i's Voronoi cell of ``points`` (k, 2) clipped to ``walkable`` (a polygon or
    multipolygon that holds the points), as PedPy ``compute_individual_voronoi_polygons`` makes them."""
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) == 0:
        return np.zeros(0, dtype=object)
    geoms = shapely.points(pts)
    if len(pts) == 1:
        cells = np.array([walkable], dtype=object)
    else:
        cells = shapely.get_parts(shapely.voronoi_polygons(shapely.MultiPoint(pts), extend_to=walkable,
                                                           ordered=True))
    cells = shapely.intersection(cells, walkable)
    multi = np.flatnonzero(shapely.get_type_id(cells) != 3)
    for k in multi:   # rare: the clip split a cell; keep the part that holds the agent (PedPy does the same)
        parts = shapely.get_parts(cells[k])
        parts = parts[shapely.get_type_id(parts) == 3]
        hold = shapely.covers(parts, geoms[k])
        cells[k] = parts[int(np.argmax(hold))] if hold.any() else parts[int(np.argmax(shapely.area(parts)))]
    return cells


def classic_density(points: np.ndarray, area) -> float:
    """Agents per unit area inside ``area`` (PedPy ``compute_classic_density``: agents within the polygon)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    inside = shapely.contains_xy(area, pts[:, 0], pts[:, 1]) if len(pts) else np.zeros(0, bool)
    return float(np.count_nonzero(inside)) / float(area.area)


def voronoi_density(points: np.ndarray, walkable, area) -> float:
    """The Voronoi density in ``area``: sum of A(cell n area) / A(cell) over the agents, over A(area)."""
    cells = voronoi_cells(points, walkable)
    if len(cells) == 0:
        return 0.0
    part = shapely.area(shapely.intersection(cells, area))
    return float(np.sum(part / shapely.area(cells))) / float(area.area)


def density_series(frames: list[tuple[float, np.ndarray]], walkable, area) -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
    """(times, classic, Voronoi) densities in ``area`` at each frame (time, (k, 2) positions of the agents)."""
    t = np.array([f[0] for f in frames], dtype=np.float64)
    classic = np.array([classic_density(p, area) for _, p in frames], dtype=np.float64)
    voronoi = np.array([voronoi_density(p, walkable, area) for _, p in frames], dtype=np.float64)
    return t, classic, voronoi


def grid_shape(bounds: tuple[float, float, float, float], cell: float) -> tuple[int, int]:
    """(rows, columns) of a grid of square pixels of side ``cell`` covering ``bounds`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = bounds
    return max(1, int(np.ceil((y1 - y0) / cell - 1e-9))), max(1, int(np.ceil((x1 - x0) / cell - 1e-9)))


def classic_heatmap(frames: list[tuple[float, np.ndarray]], bounds: tuple[float, float, float, float],
                    cell: float) -> np.ndarray:
    """(rows, columns) agents per unit area in each pixel, averaged over the frames (row 0 at y0)."""
    rows, cols = grid_shape(bounds, cell)
    x0, y0 = bounds[0], bounds[1]
    acc = np.zeros(rows * cols, dtype=np.float64)
    pts = [p for _, p in frames if len(p)]
    if pts:
        allp = np.concatenate(pts)
        c = np.floor((allp[:, 0] - x0) / cell).astype(np.int64)
        r = np.floor((allp[:, 1] - y0) / cell).astype(np.int64)
        ok = (c >= 0) & (c < cols) & (r >= 0) & (r < rows)
        acc += np.bincount(r[ok] * cols + c[ok], minlength=rows * cols)
    return (acc / (max(1, len(frames)) * cell * cell)).reshape(rows, cols)


def voronoi_heatmap(frames: list[tuple[float, np.ndarray]], walkable, bounds: tuple[float, float, float, float],
                    cell: float) -> np.ndarray:
    """(rows, columns) Voronoi density of each pixel, sum_i A(V_i n pixel) / A(V_i) / A(pixel) (PedPy's Voronoi
    density profile), averaged over the frames (row 0 at y0); NaN where a pixel does not meet ``walkable``."""
    rows, cols = grid_shape(bounds, cell)
    x0, y0 = bounds[0], bounds[1]
    gx, gy = np.meshgrid(x0 + np.arange(cols) * cell, y0 + np.arange(rows) * cell)
    pixels = shapely.box(gx.ravel(), gy.ravel(), gx.ravel() + cell, gy.ravel() + cell)
    free = shapely.intersects(walkable, pixels)
    acc = np.zeros(rows * cols, dtype=np.float64)
    for _, p in frames:
        cells = voronoi_cells(p, walkable)
        if len(cells) == 0:
            continue
        pix, owner = STRtree(cells).query(pixels, predicate="intersects")
        share = shapely.area(shapely.intersection(pixels[pix], cells[owner])) / shapely.area(cells[owner])
        acc += np.bincount(pix, weights=share, minlength=rows * cols)
    out = acc / (max(1, len(frames)) * cell * cell)
    out[~free] = np.nan
    return out.reshape(rows, cols)


def free_space(scene):
    """The walkable area of a scene: its bounds minus the obstacles that stand all the time (a polygon or a
    multipolygon; a scheduled obstacle's ground is walked while it is gone, a moving one's once it has passed)."""
    free = shapely.box(*scene.bounds)
    always = [shapely.Polygon(o.polygon) for o in scene.obstacles if not (o.scheduled or o.moving)]
    if always:
        free = free.difference(shapely.union_all(always))
    return free


def heatmap_cell(bounds: tuple[float, float, float, float], pixels: int = 160) -> float:
    """A pixel size giving about ``pixels`` pixels along the longer side of ``bounds``, never below 0.25."""
    return max(0.25, max(bounds[2] - bounds[0], bounds[3] - bounds[1]) / pixels)


def sample_frames(replay, t0: float, t1: float, most: int) -> list[tuple[float, np.ndarray]]:
    """At most ``most`` frames (time, (k, 2) positions of the agents present) of a core.sim.replay.Replay at its
    recorded times in [t0, t1], evenly spread, the last one kept; only the frames kept are computed."""
    ts = replay.times()
    ts = ts[(ts >= t0) & (ts <= t1)]
    if len(ts) > most:
        ts = ts[np.unique(np.linspace(len(ts) - 1, 0, most).round().astype(np.int64))]
    return [(float(t), replay.positions_at(t)[replay.present_at(t)]) for t in ts]
