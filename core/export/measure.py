"""Turning a simulation's walked paths into a ``miran-paths`` document, with exact measures on each polyline.

Terrain lengths come from the navigation mesh's exact segment walks over every segment of the walked polyline
(MIRAN 3.3's l^T); the clearance is the exact distance between the polyline and the obstacle edges (the bounds
included), minus the disc radius for disc agents (docs: Reference, paths format).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.clearance import polyline_clearance
from core.navmesh.kernels.segments import polyline_terrain_lengths
from core.sim.state import ARRIVED
from core.steering.methods import DISC_MIRAN, IRM, method_name

from .paths import AgentPath, PathsFile


@jit
def ragged_measures(M, xy, offsets, lengths, clearance) -> None:
    """For each path ``xy[offsets[i]:offsets[i + 1]]`` ((m, 2) float64): its terrain lengths into ``lengths[i]``
    ((n, T) float64, zeroed first) and its clearance into ``clearance[i]`` ((n,) float64)."""
    W = M.walk
    C = M.edges
    for i in range(offsets.shape[0] - 1):
        a = offsets[i]
        b = offsets[i + 1]
        for k in range(lengths.shape[1]):
            lengths[i, k] = 0.0
        if b - a == 0:
            clearance[i] = np.nan
            continue
        pts = xy[a:b]
        polyline_terrain_lengths(W, pts, lengths[i])
        clearance[i] = polyline_clearance(C, pts)


def paths_from_simulation(sim) -> PathsFile:
    """The ``miran-paths`` document of a simulation's recorded paths (every agent, in index order).

    With every step recorded the measures are exact on the walked polyline; with a longer recording interval
    (or none, and then no points) they are the per-step sums the kernels keep in the state: the same lengths,
    and the clearance at the positions of the steps."""
    st = sim.state
    rows, offsets = sim.recorder.paths(st.n)
    xy = np.ascontiguousarray(rows[:, 1:3])
    exact = sim.recorder.every == 1
    if exact:
        lengths = np.zeros((st.n, sim.mesh.n_terrain_types), dtype=np.float64)
        clearance = np.zeros(st.n, dtype=np.float64)
        if st.n:
            ragged_measures(sim.mesh.arrays, xy, offsets, lengths, clearance)
        seg = np.diff(xy, axis=0)
        seglen = np.hypot(seg[:, 0], seg[:, 1]) if len(xy) > 1 else np.zeros(0)
    else:
        lengths = st.terrain_len
        # The state's clearance is already a disc's (minus its radius); the loop below subtracts it again. The
        # current positions count too (the state's minimum is taken where each step starts).
        here = np.zeros(st.n, dtype=np.float64)
        if st.n:
            ragged_measures(sim.mesh.arrays, np.ascontiguousarray(st.pos),
                            np.arange(st.n + 1, dtype=np.int64), np.zeros((st.n, sim.mesh.n_terrain_types)), here)
        disc_r = np.where(st.method == DISC_MIRAN, st.radius, 0.0)
        clearance = np.minimum(st.min_clear + disc_r, here)
    agents = []
    w = sim.params.weights
    tids = list(sim.mesh.terrain_ids)
    for i in range(st.n):
        a, b = int(offsets[i]), int(offsets[i + 1])
        total = float(seglen[a:max(a, b - 1)].sum()) if exact else float(st.length[i])
        disc = int(st.method[i]) in (DISC_MIRAN, IRM)
        arrived = int(st.status[i]) == ARRIVED
        status, why = sim.status_of(i)
        agents.append(AgentPath(
            id=st.ids[i],
            profile=sim.params.profile_ids[int(st.profile[i])],
            reached_goal=arrived,
            time=float(st.t_arrive[i]) if arrived else sim.time,
            length=total,
            weighted_length=float(lengths[i] @ w[int(st.profile[i])]),
            terrain_lengths={t: float(v) for t, v in zip(tids, lengths[i])},
            min_clearance=float(clearance[i] - (st.radius[i] if disc else 0.0)),
            points=rows[a:b].copy(),
            status=status,
            lost_reason=why,
            steps=int(st.walk_steps[i]),
            recovered_steps=int(st.rec_steps[i]),
            stalls=int(st.stalls[i]),
        ))
    params = sim.params.to_dict()
    params["seed"] = sim.seed
    params["steps"] = sim.steps
    params["methods"] = {st.ids[i]: method_name(int(st.method[i])) for i in range(st.n)}
    return PathsFile(scene=sim.scene.name, method=sim.method, integrator=sim.params.get("integrator"),
                     dt=sim.params.dt, agents=agents, parameters=params)
