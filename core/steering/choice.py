"""Named structures of MIRAN's candidate choice (``miran.pick_candidate``, MIRAN 2013 sections 3.2-3.3): the
scalar parameters of one agent's choice and the work arrays it writes, so the kernel reads fields by name."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.navmesh.kernels.kept_edges import KeptEdges


class ChoiceParams(NamedTuple):
    """One agent's choice: sampling distance ``d`` (MIRAN 3.2), terrain weights ``w`` (n_types,) and their minimum
    ``w_min`` (the pruning bound), ``uniform`` (every terrain weighs ``w_min``), ``skip_first`` (the reference point
    is no candidate: the character stands on it), and for disc MIRAN the disc's radius and the clearance its sweep
    needs (``disc_radius`` 0 for point agents)."""

    d: float
    w: np.ndarray
    w_min: float
    uniform: bool
    skip_first: bool
    disc_radius: float
    disc_need: float


class ChoiceWork(NamedTuple):
    """Work arrays of one choice: ``q`` (2,) a candidate point, ``trace`` (m, 4) the [s, x, y, omega] rows recorded
    when tracing (0 rows otherwise), ``cands`` (2, m) the candidates' arc lengths and omegas; ``kept`` the crowd's
    kept terrain boundary edges (``core.navmesh.kernels.kept_edges.KeptEdges``) and ``agent`` the chooser's row in
    them (-1: gather the window's edges afresh)."""

    q: np.ndarray
    trace: np.ndarray
    cands: np.ndarray
    kept: KeptEdges
    agent: int
