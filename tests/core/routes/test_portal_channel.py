"""The portal planner's channel (the crossed portals' left and right ends, framed by start and goal) from its kernel
against the same selection written with NumPy, on the city's decomposition and random portal sequences."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.routes import PlannerContext
from core.routes.planners.portal import channel
from core.scene.io import load_scene

CITY = Path(__file__).resolve().parents[3] / "scenes" / "city.json"


def _numpy_channel(dec, start, goal, states):
    k, d = states >> 1, states & 1
    a, b = dec.vertices[dec.portals[k, 0]], dec.vertices[dec.portals[k, 1]]
    left = np.where((d == 0)[:, None], b, a)
    right = np.where((d == 0)[:, None], a, b)
    return np.vstack([start[None], left, goal[None]]), np.vstack([start[None], right, goal[None]])


def test_channel_kernel_equals_numpy_selection():
    dec = PlannerContext(load_scene(CITY)).planner("portal").decomposition(0.0)
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 60):
        states = rng.integers(0, 2 * len(dec.portals), n).astype(np.int64)
        start, goal = rng.uniform(0, 50, 2), rng.uniform(0, 50, 2)
        left, right = channel(dec, start, goal, states)
        ref_l, ref_r = _numpy_channel(dec, start, goal, states)
        assert left.tobytes() == ref_l.tobytes() and right.tobytes() == ref_r.tobytes()
        assert left.flags.c_contiguous and right.flags.c_contiguous
