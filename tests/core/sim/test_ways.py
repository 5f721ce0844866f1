"""Which characters' ways on come near a changed obstacle (core.sim.ways.near_box), against the same bounding
boxes computed with numpy from the ways gathered point by point, on a generated city's crowd."""

import numpy as np

import stressgen as sg

from core.sim import Simulation
from core.sim.state import WALKING
from core.sim.ways import near_box
from core.sim.world import _packed_ways


def test_near_box_finds_the_ways_whose_bounding_box_comes_near_as_numpy_does():
    sim = Simulation(sg.city(4711, blocks=8), seed=2)
    sim.add_random_agents(300, seed=5)
    sim.step(20)
    st = sim.state
    rng = np.random.default_rng(61)
    x0, y0, x1, y1 = sim.scene.bounds
    for _ in range(40):
        walking = np.flatnonzero(st.status == WALKING)
        agents = np.sort(rng.choice(walking, int(rng.integers(1, len(walking))), replace=False))
        c = rng.uniform((x0, y0), (x1, y1))
        half = rng.uniform(0.2, 8.0, 2)
        box = np.array([c[0] - half[0], c[1] - half[1], c[0] + half[0], c[1] + half[1]])
        reach = rng.choice([0.0, 0.25, 0.4], len(agents))
        out = np.zeros(len(agents), dtype=np.bool_)
        count = near_box(st.route_lo, st.route_hi, st.s_ref, st.pos, sim.routes.points, sim.routes.s, agents,
                         box, reach, out)
        ids, pts = _packed_ways(sim, agents)
        starts = np.searchsorted(ids, np.arange(len(agents)))
        lo, hi = np.minimum.reduceat(pts, starts), np.maximum.reduceat(pts, starts)
        ref = (lo[:, 0] <= box[2] + reach) & (hi[:, 0] >= box[0] - reach) & \
              (lo[:, 1] <= box[3] + reach) & (hi[:, 1] >= box[1] - reach)
        assert np.array_equal(out, ref)
        assert count == int(ref.sum())
        sim.step(3)
