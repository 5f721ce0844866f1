"""Moving obstacles during a run: a car, a cart or a tram carried along its path (core.scene.model.Obstacle.path).

A moving obstacle is no part of the navigation mesh, the planners or the ECM: like the "dynamic obstacles, such as
other characters and moving entities" of IRM section 4.5, the characters avoid it with a collision response force,
and a guard keeps them out of it. Around every step of a run with moving obstacles (``Simulation._advance`` then
steps one step per kernel call):

- before the step, IRM eq. 6 from each obstacle standing at time t, with the obstacle's nearest point as O_i
  (r_i = 0), c_o = k_r / (d_i - r) and k_r = c_o d_o as for the characters (capped at f_max, times vmax), for
  every walking character of every method (point MIRAN, disc MIRAN and IRM alike). It is added to the velocity as
  a kick F dt, which for Euler integration is the same as adding it to the step's force (for Verlet it is a full
  kick where the step's own force gets half of one; docs: departures);
- after the step, the obstacles stand where they are at t + dt. A character's position (point MIRAN) or disc
  (disc MIRAN, IRM) that a moving obstacle now overlaps, or that it passed over during the step, is pushed out on
  the side where they met: in the obstacle's own frame (moved with it, turned as it stands now) the character
  went in a straight line from where it stood to where it stands; where that line first meets the obstacle grown
  by its radius is the side. It goes to the nearest point of the grown obstacle from where it stands, sliding
  along that side, or, when the way there would cross the obstacle (a fast one deep into it), back to where they
  met. It never passes through. Where the static world leaves no room there (pinned against a wall), it slides
  round the obstacle to the nearest place where it fits, in the same piece of free space; with none it is lost
  (its way blocked). A turn at a corner of the path is taken in place: a character the turned outline covers goes
  out to its nearest side. The step's logged position is replaced by the pushed one, so no logged position lies
  inside a moving obstacle. A push is not walking: it adds to no walked length.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from core.scene.model import Obstacle
from core.steering.methods import DISC_MIRAN, IRM

from .state import ARRIVED, LOST, REASON_BLOCKED, WALKING

# Segments per quarter circle of the grown outlines' round joins.
QUAD_SEGS = 16
# Places tried round a moving obstacle for a character pinned between it and a wall.
RIM_SAMPLES = 512


class MovingObstacles:
    """The run's moving obstacles, their outlines as shapely polygons and where each stands at a time."""

    def __init__(self, obstacles: list[Obstacle]) -> None:
        self.obstacles = [o for o in obstacles if o.moving]
        self.outlines = [shapely.Polygon(o.polygon) for o in self.obstacles]
        self._room: dict = {}
        self._room_mesh = None

    def __bool__(self) -> bool:
        return bool(self.obstacles)

    def after(self, t: float) -> bool:
        """Whether any of them stands at time ``t`` or later."""
        return any(o.vanishes is None or o.vanishes > t for o in self.obstacles)

    def stands(self, t: float) -> bool:
        """Whether any of them stands at time ``t``."""
        return any(o.stands_at(t) for o in self.obstacles)

    def find(self, obstacle_id: str) -> Obstacle | None:
        """The moving obstacle with this id, or None."""
        return next((o for o in self.obstacles if o.id == obstacle_id), None)

    def replaced(self, obstacle_id: str, new: Obstacle | None) -> "MovingObstacles":
        """These obstacles with the one of this id replaced by ``new`` (None: without it)."""
        if new is None:
            return MovingObstacles([o for o in self.obstacles if o.id != obstacle_id])
        return MovingObstacles([new if o.id == obstacle_id else o for o in self.obstacles])

    def standing(self, t: float) -> list[tuple[int, shapely.Polygon, "Frame"]]:
        """(index, outline, frame) of each obstacle standing at time ``t``: the outline where the path begins, and
        the frame that carries it to where it stands."""
        return [(k, p, Frame(o, t)) for k, (o, p) in enumerate(zip(self.obstacles, self.outlines))
                if o.stands_at(t)]

    def polygons_at(self, t: float) -> list[tuple[str, shapely.Polygon]]:
        """(id, polygon) of each obstacle standing at time ``t``, where it stands."""
        return [(o.id, shapely.Polygon(o.polygon_at(t))) for o in self.obstacles if o.stands_at(t)]

    def room(self, sim, r: float) -> tuple:
        """(room, pieces, tree): the static free space where a disc of radius r fits, its connected pieces and an
        STRtree over them (cached per navigation mesh and radius)."""
        if self._room_mesh is not sim.mesh:
            self._room = {}
            self._room_mesh = sim.mesh
        if r not in self._room:
            free = sim.context.geometry.free
            margin = 1e-6 * sim.scale
            room = grown(free, -(r + margin)) if r + margin > 0 else free
            pieces = shapely.get_parts(room)
            self._room[r] = (room, pieces, shapely.STRtree(pieces))
        return self._room[r]


class Frame:
    """Where a moving obstacle stands at a time: its outline's points u map to the world as R(angle) (u - origin)
    + at, with ``origin`` its path's first point and ``at`` the point of its path it has reached."""

    def __init__(self, o: Obstacle, t: float) -> None:
        x, y, turn = o.pose_at(t)
        self.at = np.array([x, y])
        self.origin = np.asarray(o.path[0] if o.path else (0.0, 0.0), dtype=np.float64)
        c, s = math.cos(turn), math.sin(turn)
        self.rot = np.array([[c, -s], [s, c]])

    def to_world(self, u: np.ndarray) -> np.ndarray:
        """(k, 2) outline coordinates to world coordinates."""
        return (u - self.origin) @ self.rot.T + self.at

    def to_outline(self, x: np.ndarray) -> np.ndarray:
        """(k, 2) world coordinates to the outline's own."""
        return (x - self.at) @ self.rot + self.origin


def grown(geom, r: float):
    """``geom`` buffered by r (shrunk for r < 0) so that every point of the new boundary keeps at least |r| from the
    old one: shapely's round joins are chords of the circle, which cut inside it by r (1 - cos(pi / 4q)) with q
    segments a quarter; the radius is widened by that factor."""
    return geom.buffer(r / math.cos(math.pi / (4 * QUAD_SEGS)), quad_segs=QUAD_SEGS)


def guard_radius(sim) -> np.ndarray:
    """(n,) the distance each character keeps from an obstacle: its radius for a disc (disc MIRAN, IRM), 0 for a
    point MIRAN character (the step guard's rule, core.sim.kernels.move_phase)."""
    st = sim.state
    return np.where(np.isin(st.method, (DISC_MIRAN, IRM)), st.radius, 0.0)


def kick(sim, moving: MovingObstacles) -> None:
    """Add IRM eq. 6 from the obstacles standing now to the walking characters' velocities (a kick F dt)."""
    st = sim.state
    g = sim.params
    c_o = float(g.get("c_o"))
    if c_o <= 0.0:
        return
    walking = np.flatnonzero(st.status == WALKING)
    if len(walking) == 0:
        return
    x = st.pos[walking]
    r = st.radius[walking]
    vmax = g.prof["max_speed"][st.profile[walking]]
    # IRM eq. 6's influence region: d_o, or (0, automatic) a second's walk at the character's speed.
    d_o = np.full(len(walking), float(g.get("d_o"))) if g.get("d_o") > 0.0 else vmax * 1.0
    fmax = float(g.get("f_max"))
    dt = float(g.get("dt"))
    for _, outline, frame in moving.standing(sim.time):
        ring = frame.to_world(np.asarray(outline.exterior.coords, dtype=np.float64))
        lo = ring.min(axis=0)
        hi = ring.max(axis=0)
        reach = (d_o + r)[:, None]
        near = np.flatnonzero(np.all((x > lo - reach) & (x < hi + reach), axis=1))
        if len(near) == 0:
            continue
        q = _nearest_on_ring(ring, x[near])
        dv = x[near] - q
        d = np.hypot(dv[:, 0], dv[:, 1])
        inside = shapely.contains_xy(shapely.Polygon(ring), x[near, 0], x[near, 1])
        gap = np.where(inside, 0.0, d - r[near])
        on = (gap <= d_o[near]) & (d > 1e-12 * sim.scale)
        if not np.any(on):
            continue
        # IRM eq. 6: c_o = k_r / (d_i - r_i - r), k_r = c_o d_o, capped at f_max (overlapping: the cap), times vmax.
        with np.errstate(divide="ignore"):
            m = np.where(gap > 0.0, np.minimum(c_o * d_o[near] / np.maximum(gap, 1e-300), fmax), fmax)
        sign = np.where(inside, -1.0, 1.0)
        k = np.where(on, sign * m * vmax[near] / np.maximum(d, 1e-300), 0.0)
        rows = walking[near]
        st.vel[rows] += (k * dt)[:, None] * dv
        speed = np.hypot(st.vel[rows, 0], st.vel[rows, 1])
        over = speed > vmax[near]
        st.vel[rows[over]] *= (vmax[near][over] / speed[over])[:, None]


def push_out(sim, moving: MovingObstacles, before: np.ndarray, t_before: float, logged_from: int) -> int:
    """Push the characters the obstacles overlap at the current time out (see the module docstring); ``before``
    (n, 2) are the positions at ``t_before``, the start of the step, and the recorder's rows from ``logged_from``
    on are the step's. Returns how many were pushed."""
    st = sim.state
    alive = np.flatnonzero(st.status != ARRIVED)
    if len(alive) == 0:
        return 0
    margin = 1e-6 * sim.scale
    rg = guard_radius(sim)
    pushed = 0
    then = {k: frame for k, _, frame in moving.standing(t_before)}
    for k, outline, frame in moving.standing(sim.time):
        # In the obstacle's frame: where the character stood (the obstacle then where it was, or where it is now
        # when it has just appeared) to where it stands now; it is hit when that segment comes nearer than its
        # radius to the outline, so that a fast obstacle cannot jump over a character. A turn at a corner of the
        # path is taken in place: the frame of the segment's start is shifted by the obstacle's move but turned
        # as it stands now (a far character does not sweep round it).
        a = frame.to_outline(before[alive] + (frame.at - then.get(k, frame).at))
        b = frame.to_outline(st.pos[alive])
        x0, y0, x1, y1 = outline.bounds
        reach = rg[alive] + margin
        lo = np.minimum(a, b)
        hi = np.maximum(a, b)
        near = np.flatnonzero((lo[:, 0] < x1 + reach) & (hi[:, 0] > x0 - reach) & (lo[:, 1] < y1 + reach)
                              & (hi[:, 1] > y0 - reach))
        if len(near) == 0:
            continue
        seg = shapely.linestrings(np.stack([a[near], b[near]], axis=1))
        still = np.all(a[near] == b[near], axis=1)
        seg[still] = shapely.points(b[near][still])
        hit = shapely.distance(outline, seg) < rg[alive][near]
        hit |= shapely.intersects(outline, seg)
        rows = alive[near[hit]]
        if len(rows) == 0:
            continue
        a = a[near[hit]]
        b = b[near[hit]]
        out = np.empty_like(b)
        for r in np.unique(rg[rows]).tolist():
            sel = np.flatnonzero(rg[rows] == r)
            out[sel] = _entry_points(outline, float(r), a[sel], b[sel], margin)
        new = frame.to_world(out)
        placed = shapely.Polygon(frame.to_world(np.asarray(outline.exterior.coords)))
        _keep_in_room(sim, moving, rows, new, before[rows], rg, placed, margin)
        st.pos[rows] = new
        st.vel[rows] = 0.0
        pushed += len(rows)
        _relog(sim, rows, logged_from)
    return pushed


def _entry_points(outline, r: float, a: np.ndarray, b: np.ndarray, margin: float) -> np.ndarray:
    """(k, 2), in the outline's frame: where a character that went from a to b stands once pushed out of
    ``outline`` grown by r. It slides: the nearest point of the grown outline from b, as long as the way there
    from where the segment a -> b first met it does not cross the outline (the side it was met on); otherwise
    (a fast obstacle deep into it) that first meeting point, a hair (margin) before it. A segment that starts
    inside already goes to the nearest point outside from b."""
    big = grown(outline, r + margin) if r + margin > 0 else outline
    edge = big.exterior
    out = np.empty_like(b)
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    start_in = shapely.contains_xy(big, a[:, 0], a[:, 1]) | (np.hypot(*(b - a).T) == 0.0)
    found = np.zeros(len(a), dtype=bool)
    go = np.flatnonzero(~start_in)
    if len(go):
        parts, idx = shapely.get_parts(shapely.intersection(lines[go], edge), return_index=True)
        pts = parts[shapely.get_type_id(parts) == 0]
        idx = idx[shapely.get_type_id(parts) == 0]
        if len(pts):
            s = shapely.line_locate_point(lines[go][idx], pts)
            order = np.lexsort((s, idx))
            first = np.ones(len(order), dtype=bool)
            first[1:] = idx[order][1:] != idx[order][:-1]
            k = go[idx[order][first]]
            s_first = s[order][first]
            seg = b[k] - a[k]
            length = np.hypot(seg[:, 0], seg[:, 1])
            back = np.maximum(s_first - margin, 0.0) / length
            out[k] = a[k] + back[:, None] * seg
            found[k] = True
    wide = grown(outline, r + 2.0 * margin).exterior
    slid = shapely.get_coordinates(shapely.shortest_line(wide, shapely.points(b))).reshape(-1, 2, 2)[:, 0]
    met = np.flatnonzero(found)
    if len(met):
        way = shapely.linestrings(np.stack([out[met], slid[met]], axis=1))
        same = ~shapely.intersects(way, outline.buffer(-margin)) | np.all(out[met] == slid[met], axis=1)
        out[met[same]] = slid[met[same]]
    out[~found] = slid[~found]
    return out


def _keep_in_room(sim, moving: MovingObstacles, rows: np.ndarray, new: np.ndarray, before: np.ndarray,
                  rg: np.ndarray, placed, margin: float) -> None:
    """Where a pushed position leaves the static free space (its disc included: pinned against a wall), slide it
    along the moving obstacle ``placed``, grown by its radius, to the nearest place there that lies in the same
    piece of free space as where it stood (``before``), so that it never passes through the obstacle; with no
    such place it is lost (its way blocked), at the nearest place of that piece."""
    st = sim.state
    for r in np.unique(rg[rows]).tolist():
        sel = np.flatnonzero(rg[rows] == r)
        room, pieces, tree = moving.room(sim, float(r))
        bad = sel[~shapely.covers(room, shapely.points(new[sel]))]
        if len(bad) == 0:
            continue
        rim = grown(placed, float(r) + 2.0 * margin).exterior
        along = np.linspace(0.0, rim.length, RIM_SAMPLES, endpoint=False)
        samples = shapely.line_interpolate_point(rim, along)
        piece = tree.query_nearest(shapely.points(before[bad]), all_matches=False)[1]
        for k, p in zip(bad.tolist(), piece.tolist()):
            ok = shapely.covers(pieces[p], samples)
            if not ok.any():
                st.status[rows[k]] = LOST
                st.lost_reason[rows[k]] = REASON_BLOCKED
                near = shapely.shortest_line(pieces[p], shapely.Point(new[k]))
                new[k] = shapely.get_coordinates(near)[0]
                continue
            gap = np.abs(along - rim.project(shapely.Point(new[k])))
            gap = np.minimum(gap, rim.length - gap)
            new[k] = shapely.get_coordinates(samples[np.flatnonzero(ok)[np.argmin(gap[ok])]])[0]


def _relog(sim, rows: np.ndarray, logged_from: int) -> None:
    """Replace the step's logged positions of ``rows`` (the recorder's rows from ``logged_from`` on) by theirs."""
    rec = sim.recorder
    m = int(rec.cursor[0])
    if m <= logged_from:
        return
    agent = rec.agent[logged_from:m]
    mine = np.isin(agent, rows)
    rec.xy[logged_from:m][mine] = sim.state.pos[agent[mine]]


def _nearest_on_ring(ring: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(k, 2) the nearest point to each of x (k, 2) on the closed polyline ``ring`` (m + 1, 2)."""
    a = ring[:-1]
    e = ring[1:] - a
    ee = np.einsum("ij,ij->i", e, e)
    w = x[:, None, :] - a[None, :, :]
    t = np.clip(np.einsum("kij,ij->ki", w, e) / np.where(ee > 0.0, ee, 1.0), 0.0, 1.0)
    q = a[None, :, :] + t[:, :, None] * e[None, :, :]
    d2 = np.sum((x[:, None, :] - q) ** 2, axis=2)
    best = np.argmin(d2, axis=1)
    return q[np.arange(len(x)), best]
