"""Scene items as flat drawing arrays (no Qt): what each layer hands to its one graphics item.

Polygons become one (n, 2) float64 array of closed rings separated by NaN rows, shells counter-clockwise and holes
clockwise, so a winding-rule fill draws overlapping shells as their union and holes as holes. All coordinates are
scene units.
"""

from __future__ import annotations

import numpy as np

from core.scene import Scene
from core.scene.edits import agent_ends


def closed_rings(coords: np.ndarray, lens: np.ndarray, ccw: np.ndarray) -> np.ndarray:
    """Rings packed as ``coords`` ((n, 2)) with ``lens`` ((r,) vertices each), turned so that ring k runs
    counter-clockwise where ``ccw[k]`` else clockwise, each closed (first point repeated) and followed by a NaN
    row: ((n + 2r), 2)."""
    lens = np.asarray(lens, dtype=np.int64)
    r = len(lens)
    n = int(lens.sum())
    if r == 0 or n == 0:
        return np.zeros((0, 2))
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    ring_of = np.repeat(np.arange(r), lens)
    idx = np.arange(n)
    nxt = idx + 1
    nxt[starts + lens - 1] = starts
    x, y = coords[:, 0], coords[:, 1]
    area2 = np.add.reduceat(x * y[nxt] - x[nxt] * y, starts)
    flip = (area2 > 0) != np.asarray(ccw, dtype=bool)
    local = idx - starts[ring_of]
    src = np.where(flip[ring_of], starts[ring_of] + lens[ring_of] - 1 - local, idx)
    oriented = coords[src]
    out = np.full((n + 2 * r, 2), np.nan)
    out[idx + 2 * ring_of] = oriented
    out[starts + lens + 2 * np.arange(r)] = oriented[starts]
    return out


def _pack(rings: list, ccw: list[bool]) -> np.ndarray:
    lens = np.fromiter((len(r) for r in rings), dtype=np.int64, count=len(rings))
    coords = np.array([p for r in rings for p in r], dtype=np.float64).reshape(-1, 2)
    return closed_rings(coords, lens, np.asarray(ccw, dtype=bool))


def obstacle_rings(scene: Scene, dynamic: bool = False) -> np.ndarray:
    """The outlines of the obstacles that stand all the time (or, ``dynamic``, of those that come and go or move,
    where they stand first), packed as ``closed_rings``."""
    rings = [o.polygon for o in scene.obstacles if (o.scheduled or o.moving) == dynamic]
    return _pack(rings, [True] * len(rings))


def rings_of(outlines) -> np.ndarray:
    """Outlines ((k, 2) arrays or point lists) packed as ``closed_rings``."""
    rings = [list(map(tuple, np.asarray(p, dtype=np.float64).reshape(-1, 2))) for p in outlines]
    return _pack(rings, [True] * len(rings))


def motion_paths(scene: Scene) -> np.ndarray:
    """The moving obstacles' paths as NaN-separated polylines (a loop closed back to its first point)."""
    out: list = []
    for o in scene.obstacles:
        if o.path is not None:
            out += [*o.path, *([o.path[0]] if o.loop else []), (np.nan, np.nan)]
    return np.asarray(out, dtype=np.float64).reshape(-1, 2)


def terrain_runs(scene: Scene) -> list[tuple[str, np.ndarray]]:
    """The terrain polygons grouped in runs of one type, in file order (later runs paint over earlier ones):
    ``[(type id, packed rings with holes)]``."""
    runs: list[tuple[str, list, list]] = []
    for t in scene.terrains:
        if not runs or runs[-1][0] != t.type:
            runs.append((t.type, [], []))
        runs[-1][1].append(t.polygon)
        runs[-1][2].append(True)
        for h in t.holes:
            runs[-1][1].append(h)
            runs[-1][2].append(False)
    return [(tid, _pack(rings, ccw)) for tid, rings, ccw in runs]


def route_lines(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """Routes as NaN-separated polylines ((n, 2)) and their points ((m, 2))."""
    if not scene.routes:
        return np.zeros((0, 2)), np.zeros((0, 2))
    pts = np.array([p for r in scene.routes for p in r.points], dtype=np.float64).reshape(-1, 2)
    lens = np.fromiter((len(r.points) for r in scene.routes), dtype=np.int64, count=len(scene.routes))
    ring_of = np.repeat(np.arange(len(lens)), lens)
    out = np.full((len(pts) + len(lens), 2), np.nan)
    out[np.arange(len(pts)) + ring_of] = pts
    return out, pts


def route_arrows(scene: Scene, pixel: float, size_px: float = 9.0) -> np.ndarray:
    """Small chevrons at the middle of each route segment showing its direction, as (4k, 2) pairs of points
    (two strokes per arrow, for ``connect='pairs'``); ``pixel`` is one screen pixel in scene units."""
    segs = []
    for r in scene.routes:
        a = np.asarray(r.points, dtype=np.float64)
        segs.append(np.stack([a[:-1], a[1:]], axis=1))
    if not segs:
        return np.zeros((0, 2))
    s = np.concatenate(segs)
    d = s[:, 1] - s[:, 0]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 6 * size_px * pixel
    s, d, length = s[keep], d[keep], length[keep]
    if len(s) == 0:
        return np.zeros((0, 2))
    u = d / length[:, None]
    nrm = np.column_stack([-u[:, 1], u[:, 0]])
    tip = (s[:, 0] + s[:, 1]) / 2 + u * (size_px * pixel / 2)
    back = tip - u * size_px * pixel
    w = 0.6 * size_px * pixel
    left, right = back + nrm * w, back - nrm * w
    return np.stack([left, tip, right, tip], axis=1).reshape(-1, 2)


def network_arrays(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """Network edges as point pairs ((2e, 2), for ``connect='pairs'``) and all nodes ((m, 2))."""
    edges, nodes = [], []
    for net in scene.networks:
        nd = np.asarray(net.nodes, dtype=np.float64).reshape(-1, 2)
        nodes.append(nd)
        if net.edges:
            edges.append(nd[np.asarray(net.edges, dtype=np.int64).reshape(-1)])
    return (np.concatenate(edges) if edges else np.zeros((0, 2)),
            np.concatenate(nodes) if nodes else np.zeros((0, 2)))


def agent_arrays(scene: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Agents' starts and goals ((a, 2) each, their route's ends for route followers), each agent's profile
    index ((a,) int64, -1 for an unknown profile), and start->goal lines of planned agents as pairs ((2p, 2))."""
    prof = {p.id: i for i, p in enumerate(scene.profiles)}
    starts, goals, pidx, lines = [], [], [], []
    for a in scene.agents:
        s, g = agent_ends(scene, a)
        if s is None or g is None:
            continue
        starts.append(s)
        goals.append(g)
        pidx.append(prof.get(a.profile, -1))
        if a.route is None:
            lines.extend((s, g))
    arr = lambda v: np.asarray(v, dtype=np.float64).reshape(-1, 2)  # noqa: E731
    return arr(starts), arr(goals), np.asarray(pidx, dtype=np.int64), arr(lines)
