"""The agent state as the step kernels receive it: named tuples of the ``AgentState`` views (numba types them as
named tuples, so a kernel reads ``A.pos`` instead of a position in a tuple). Built once by ``AgentState`` per layout
(core.sim.state) and passed whole."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class ProgressArrays(NamedTuple):
    """The progress guarantee's per-agent arrays (core.sim.progress; fields as in core.sim.state)."""

    lost_reason: np.ndarray
    prog_t: np.ndarray
    prog_s: np.ndarray
    prog_a: np.ndarray
    prog_sa: np.ndarray
    prog_d: np.ndarray
    rec_s: np.ndarray
    rec_u: np.ndarray
    walk_steps: np.ndarray
    rec_steps: np.ndarray
    stalls: np.ndarray


class AgentArrays(NamedTuple):
    """Every array of the agent state a step reads or writes (n rows; fields as in core.sim.state), with the
    progress guarantee's arrays in ``prog``."""

    pos: np.ndarray
    vel: np.ndarray
    force: np.ndarray
    has_force: np.ndarray
    attr: np.ndarray
    s_ref: np.ndarray
    s_attr: np.ndarray
    route_lo: np.ndarray
    route_hi: np.ndarray
    goal: np.ndarray
    profile: np.ndarray
    method: np.ndarray
    radius: np.ndarray
    tri: np.ndarray
    status: np.ndarray
    t_arrive: np.ndarray
    length: np.ndarray
    terrain_len: np.ndarray
    min_clear: np.ndarray
    attr_age: np.ndarray
    prog: ProgressArrays
