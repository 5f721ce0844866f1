"""The attraction phase's full pass (``kernels.attraction_rest``): an agent whose visible intervals outgrow the
block's buffers gets larger ones, and a traced disc agent weighs every candidate by the sweep cost instead of the
pruned disc choice. Both must choose exactly as the untraced pass with room does."""

from __future__ import annotations

import numpy as np
import pytest

from core.bench.steering import SCENES_DIR, _crowd
from core.navmesh import build_navmesh
from core.scene.io import load_scene
from core.sim import kernels
from core.sim.kernel_inputs import Params, RouteArrays
from core.sim.simulation import _NO_TRACE
from core.sim.state import WALKING


@pytest.fixture(scope="module")
def city():
    scene = load_scene(SCENES_DIR / "city.json")
    return scene, build_navmesh(scene)


def _rest_pass(sim, rows: int | None) -> tuple:
    """Every walking agent's choice by ``attraction_rest`` at the current state, with interval buffers of ``rows``
    rows (None: the block's own): (lost, attraction points, their arc lengths, status)."""
    st = sim.state
    A = st.kernel_arrays()
    P = Params(sim.params.glob, sim.params.prof, sim.params.weights, sim._weight_stats(), sim.scale)
    M = sim.mesh.arrays
    wk = kernels._block_works(M, A, P, sim._extension(), 1)[0]
    if rows is not None:
        wk = wk._replace(ibuf=np.empty((rows, 2)), abuf=np.empty((rows, 2)))
    walking = np.flatnonzero(st.status == WALKING)
    wk.rest[:len(walking)] = walking
    lost = kernels.attraction_rest(M, RouteArrays(sim.routes.points, sim.routes.s), A, P, sim.time, _NO_TRACE, wk,
                                   len(walking))
    return lost, st.attr.copy(), st.s_attr.copy(), st.status.copy()


@pytest.mark.parametrize("method", ["miran", "disc-miran"])
def test_agents_whose_intervals_outgrow_the_buffers_choose_as_with_room(city, method):
    scene, mesh = city
    sim = _crowd(scene, mesh, method, 40)
    sim.step(5)
    walking = np.flatnonzero(sim.state.status == WALKING).tolist()
    traces = sim.fork().step(trace=walking)
    assert sum(len(t.intervals) > 1 for t in traces) >= 3  # so that a one-row buffer overflows for some agents
    roomy, tight = sim.fork(), sim.fork()
    want = _rest_pass(roomy, None)
    got = _rest_pass(tight, 1)
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:]):
        assert np.array_equal(a, b, equal_nan=True)


def test_a_traced_disc_crowd_walks_as_an_untraced_one(city):
    scene, mesh = city
    sim = _crowd(scene, mesh, "disc-miran", 30)
    traced, plain = sim.fork(), sim.fork()
    for _ in range(25):
        walking = np.flatnonzero(traced.state.status == WALKING).tolist()
        traced.step(trace=walking)
        plain.step()
    assert np.array_equal(traced.positions(), plain.positions())
    assert np.array_equal(traced.state.attr, plain.state.attr, equal_nan=True)
