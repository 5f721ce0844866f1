"""``ecm``: the shortest minimum-clearance path of the Explicit Corridor Map (Geraerts 2010, sections III-IV).

The map and its query belong to ``core.ecm`` (GVD on the GPU, exact annotation, A* on the medial axis, the corridor
shrunk by the clearance, the funnel through it); this planner wraps the query. The map is built once per context
(or handed in as ``PlannerContext(ecm=...)``). Like the other planners, a clearance C that the corridor or an end
point cannot keep is retried at C/2 and 0 (``plan_route``), with the end points joined to the eroded free space.
"""

from __future__ import annotations

import numpy as np

from core.scene.problems import InputError, Problem

from .base import Leg, join_point


def _query():
    """core.ecm's query ``shortest_path_status(ecm, start, goal, clearance) -> (points, length, status)``."""
    try:
        from core.ecm.path import OK, shortest_path_status
    except ImportError:
        return None, None
    return shortest_path_status, OK


def ecm_available() -> bool:
    """Whether core.ecm provides the shortest-path query this planner wraps."""
    return _query()[0] is not None


class EcmPlanner:
    """The ECM's shortest minimum-clearance path between the (joined) start and goal."""

    name = "ecm"
    unreachable_hint = "the Explicit Corridor Map has no corridor between them"

    def __init__(self, ctx):
        self.query, self.ok = _query()
        if self.query is None:
            raise InputError([Problem("planner", "the ecm planner needs the Explicit Corridor Map's shortest-path "
                                                 "query (core.ecm.path), which this installation lacks; "
                                                 "use cdt, portal, grid or network")])
        self.ctx = ctx
        self._answers: dict[tuple[bytes, bytes, float], tuple[np.ndarray, float, int]] = {}

    def prefetch(self, starts: np.ndarray, goals: np.ndarray, clearance: float) -> None:
        """Answer the queries of many (start, goal) pairs at ``clearance`` in one batch call (``core.ecm.query_batch``,
        the same answers as one at a time); ``plan`` takes them from here. Pairs with an end outside the eroded free
        space (joined to it first) are left to ``plan``."""
        from core.ecm.path import query_batch

        s = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
        g = np.asarray(goals, dtype=np.float64).reshape(-1, 2)
        if clearance > 0.0:
            free_c = self.ctx.free(clearance)
            inside = free_c.contains(s) & free_c.contains(g)
            s, g = s[inside], g[inside]
        b = query_batch(self.ecm, s, g, clearance)
        for q in range(len(s)):
            self._answers[(s[q].tobytes(), g[q].tobytes(), float(clearance))] = (
                b.path(q), float(b.lengths[q]), int(b.status[q]))

    @property
    def ecm(self):
        """The scene's Explicit Corridor Map (built on first use: GVD on the GPU, then exact annotation)."""
        with self.ctx.lock:
            if self.ctx.ecm is None:
                from core.ecm.build import build_ecm

                self.ctx.ecm = build_ecm(self.ctx.scene, geometry=self.ctx.geometry)
            return self.ctx.ecm

    def plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float) -> Leg | None:
        """The ECM query at this clearance level; None when no corridor of that clearance joins start and goal."""
        free_c = self.ctx.free(clearance)
        s1 = join_point(self.ctx, free_c, start)
        g1 = join_point(self.ctx, free_c, goal)
        if s1 is None or g1 is None:
            return None
        answer = self._answers.pop((s1.tobytes(), g1.tobytes(), float(clearance)), None)
        pts, length, status = answer if answer is not None else self.query(self.ecm, s1, g1, clearance)
        if status != self.ok or len(pts) == 0:
            return None
        pts = np.vstack([start[None], s1[None], np.asarray(pts, dtype=np.float64), g1[None], goal[None]])
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
        pts = pts[keep]
        return Leg(pts, float(np.sum(np.hypot(*np.diff(pts, axis=0).T))))
