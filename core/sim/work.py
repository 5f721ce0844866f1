"""The step kernel's work buffers: one ``Work`` per block of agents (one per thread), built once per ``advance``
call by ``work_buffers``. Scratch arrays are the block's own; ``fnew``, ``rest`` and ``moved`` are shared by all
blocks, each block writing only its agents' rows [lo, hi), so that the result does not depend on the number of
threads."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.jitcache import jit
from core.navmesh.kernels.crossings import crossing_work
from core.navmesh.kernels.shadows import shadow_work

from .fidelity import FAST_NEIGHBOURS
from .kernel_inputs import KeptWindows

# Capacity of the per-agent visible-interval buffer (a route window rarely has more than a handful).
MAX_INTERVALS = 256


class Work(NamedTuple):
    """Scratch of one block of agents, rows [lo, hi): visible and disc-adjusted intervals ``ibuf``, ``abuf``
    (MAX_INTERVALS, 2); points ``q`` and ``rpt`` (r_i) (2,); a fallback arc length ``outs`` (1,); an empty trace row
    ``no_trace`` (0, 4); four (2,) vectors ``v0``-``v3`` (forces, or the new position and velocity); the step's
    terrain lengths ``tl`` (T,); the shadow visibility's work arrays ``vwork`` (core.navmesh.kernels.shadows); the
    candidates' arc lengths and omegas ``cwork`` (2, n_cands) (core.steering.miran.pick_candidate); five (2,) vectors
    ``crowd`` for the crowd phase; ``near_d`` (FAST_NEIGHBOURS,) and ``near_m`` (FAST_NEIGHBOURS,) int64 an agent's
    nearest neighbours, distances and grid rows, for fast mode's capped personal-space force (core.sim.fidelity);
    ``tx`` the terrain boundaries with this block's crossing work (pick_candidate's
    TX). Shared by all blocks: the new forces ``fnew`` (n, 2), the agents ``attraction_points`` leaves to
    ``attraction_rest`` (block b's in ``rest[lo:hi]``), ``moved`` (n,), whether an agent walked this step,
    ``clear`` (n,), each walker's clearance at its position of this step (the force phase's d_b, which the move
    phase's collision guard reuses: the agent has not moved in between; for a point MIRAN agent far from every
    obstacle, the last one measured, see ``clear_at``), and ``clear_at`` (n, 2), where ``clear`` was measured (NaN
    before the first measurement: ``kernels.far_from_obstacles``); ``keep`` the crowd's kept window edges
    (core.sim.kernel_inputs.KeptWindows, every agent's row, kept across calls)."""

    ibuf: np.ndarray
    abuf: np.ndarray
    q: np.ndarray
    rpt: np.ndarray
    outs: np.ndarray
    no_trace: np.ndarray
    v0: np.ndarray
    v1: np.ndarray
    v2: np.ndarray
    v3: np.ndarray
    tl: np.ndarray
    vwork: tuple
    cwork: np.ndarray
    crowd: np.ndarray
    near_d: np.ndarray
    near_m: np.ndarray
    tx: tuple
    fnew: np.ndarray
    rest: np.ndarray
    moved: np.ndarray
    clear: np.ndarray
    clear_at: np.ndarray
    keep: KeptWindows
    lo: int
    hi: int


@jit
def work_buffers(n_types: int, n_edges: int, n_cands: int, terrain: tuple, shared: tuple, keep: KeptWindows, lo: int,
                 hi: int) -> Work:
    """A block's Work for agents [lo, hi) of a mesh with n_types terrain types and n_edges obstacle edges, room for
    n_cands candidates, the mesh's ``terrain`` boundaries and the ``shared`` (fnew, rest, moved, clear, clear_at)
    arrays, and the crowd's ``keep``."""
    fnew, rest, moved, clear, clear_at = shared
    return Work(np.empty((MAX_INTERVALS, 2), dtype=np.float64), np.empty((MAX_INTERVALS, 2), dtype=np.float64),
                np.empty(2, dtype=np.float64), np.empty(2, dtype=np.float64), np.empty(1, dtype=np.float64),
                np.empty((0, 4), dtype=np.float64), np.empty(2, dtype=np.float64), np.empty(2, dtype=np.float64),
                np.empty(2, dtype=np.float64), np.empty(2, dtype=np.float64), np.zeros(n_types, dtype=np.float64),
                shadow_work(n_edges), np.empty((2, n_cands), dtype=np.float64), np.empty((5, 2), dtype=np.float64),
                np.empty(FAST_NEIGHBOURS, dtype=np.float64), np.empty(FAST_NEIGHBOURS, dtype=np.int64),
                terrain + (crossing_work(terrain[0].shape[0]),), fnew, rest, moved, clear, clear_at, keep, lo, hi)
