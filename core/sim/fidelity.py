"""The crowd level of detail: ``exact`` (every step is the papers' method, the default) or ``fast``.

In ``fast`` mode a MIRAN or disc MIRAN character keeps its attraction point between choices instead of choosing
one every step (MIRAN 3.3 chooses anew at every step). It keeps it while all of these hold, else it chooses afresh
exactly as in ``exact`` mode:

- the choice is fewer than ``fast_steps`` steps old (the global parameter, 3 by default: 0.3 s at dt = 0.1 s;
  DetourCrowd re-optimises a path's topology at most every 0.5 s, but 5 steps broke the error budget on the city;
  the docs' decisions record the measurements);
- it has walked at most ``KEEP_SIGMA`` sigma since (bounded by age x vmax x dt, its speed cap): its window has not
  moved far along the route;
- the point is farther than the character can walk before the next choice, so it never walks past it;
- the point is still in sight: the straight segment to it stays in the free space (MIRAN Lemma 1 keeps it so while
  the character walks straight at it; the other forces may push it aside, so it is checked), and for a disc, the
  disc can sweep to it (Kremyzas 4.2's condition for a candidate);
- that segment lies on one terrain type, unless the character's profile weighs every type the same: where it
  crosses into another, the terrain-weighted choice (MIRAN 3.3's omega sums w(T) l^T) may turn to a cheaper line;
- the character stands on its profile's cheapest terrain type, and stood on it a step ago (or the profile weighs
  every type the same): on costlier ground every step's terrain-weighted choice is what leads it off soonest (MIRAN
  3.3), and a kept point there cost a village character 10.3 m of mud against exact mode's 3.9 m. Such a character
  chooses exactly at every step: fast mode falls back to exact for it while it is there. (Where it stood a step
  ago is the triangle the step kernel already holds, so a character on costly ground is told so without the walk
  to its point.);
- the character is not in the progress guarantee's recovery.

Why a character chose afresh is in its trace (``AgentTrace.keep``): the ``KEEP_*`` codes below, written for traced
characters only.

The personal-space force (IRM section 5, Helbing and Molnar) comes from the ``FAST_NEIGHBOURS`` nearest
neighbours within its static reach only (where a standing neighbour's force falls to the floor,
``core.steering.social.social_reach``), as DetourCrowd caps an agent's neighbours at 6
(``DT_CROWDAGENT_MAX_NEIGHBOURS``). ``exact`` sums every neighbour whose force can reach the floor, out to where a
neighbour walking at the crowd's top speed could push (about twice as far at walking pace, four times the area to
search).

A traced character's trace row keeps its last choice while it walks on it. Each character's choice age is
``AgentState.attr_age`` (-1: choose at the next step, as after a new route). The step stays deterministic and
independent of the number of threads: the rule reads and writes the character's own rows only.
"""

from __future__ import annotations

from typing import NamedTuple

from core.jitcache import jit
from core.navmesh.kernels.disc import sweep_blocked
from core.navmesh.kernels.predicates import norm2d
from core.navmesh.kernels.segments import walk_terrain_run
from core.navmesh.kernels.walk import locate_near
from core.scene.model import FIDELITIES
from core.steering.disc_miran import sweep_need

EXACT = 0
FAST = 1
# How many of the nearest neighbours push a character with their personal-space force in fast mode.
FAST_NEIGHBOURS = 8
# The farthest a character may walk, in units of its sigma, before its kept attraction point is chosen afresh.
KEEP_SIGMA = 0.1

# A fast-mode step's verdict on a character's attraction point (the trace's TS_KEEP): kept, or why it was chosen
# afresh. ``keeps_choice`` returns minus the code of a refusal.
KEEP_KEPT = 0
KEEP_AGE = 1            # a first choice, or fast_steps steps or KEEP_SIGMA sigma since the last one
KEEP_NEAR = 2           # the point is within the character's walk before the next choice
KEEP_UNLOCATED = 3      # the character's triangle was not found near the last one
KEEP_BLOCKED = 4        # the straight line to the point leaves the free space
KEEP_TERRAIN = 5        # the line crosses into another terrain type
KEEP_SWEEP = 6          # a disc cannot sweep to the point
KEEP_COSTLY = 7         # the character stands on terrain costlier than its profile's cheapest
KEEP_RECOVERING = 8     # the progress guarantee walks the character
KEEP_REASONS = ("kept", "age", "near", "unlocated", "blocked", "terrain change", "sweep", "costly terrain",
                "recovering")


def fidelity_code(name: str) -> int:
    """The kernel code of a fidelity name; ValueError listing the valid names otherwise."""
    try:
        return FIDELITIES.index(name)
    except ValueError:
        raise ValueError(f"unknown fidelity {name!r} (valid: {', '.join(FIDELITIES)})") from None


class KeepRule(NamedTuple):
    """One character's terms of the rule: ``steps`` the global ``fast_steps``, ``vmax`` (units/s) and ``sigma``
    (units) its profile's, ``dt`` (s), ``uniform`` whether its profile weighs every terrain type the same, ``rad`` its
    disc's radius (0: a point) and ``tol`` the scene's rounding margin (units)."""

    steps: int
    vmax: float
    dt: float
    sigma: float
    uniform: bool
    rad: float
    tol: float


@jit(noalloc=True)
def keeps_choice(M, tri, x, attr, age, rule, clear, clear_at) -> int:
    """May a character at ``x`` keep its attraction point ``attr`` (both (2,)) chosen ``age`` steps ago, under the
    rules of the module docstring and its ``rule`` (KeepRule)? ``clear`` and ``clear_at`` are its last measured
    clearance and where (as ``sweep_need`` takes them), ``tri`` a triangle that held x at some earlier step (-1:
    unknown). Returns x's triangle when it may keep the point, else minus the KEEP_* code of why not (the terrain
    it stands on is the caller's to weigh: KEEP_COSTLY)."""
    W = M.walk
    C = M.edges
    steps = rule.steps
    walk = rule.vmax * rule.dt
    if age < 0 or age + 1 >= steps or (age + 1) * walk > KEEP_SIGMA * rule.sigma:
        return -KEEP_AGE
    ax = attr[0]
    ay = attr[1]
    if norm2d(ax - x[0], ay - x[1]) <= (steps - age) * walk:
        return -KEEP_NEAR
    V, T, N, TT = W.V, W.T, W.N, W.TT
    tx = locate_near(W, tri, x[0], x[1])
    if tx < 0:
        return -KEEP_UNLOCATED
    run = walk_terrain_run(V, T, N, TT, tx, x[0], x[1], ax, ay, not rule.uniform)
    if run == -1:
        return -KEEP_BLOCKED
    if run == -2 and not rule.uniform:
        return -KEEP_TERRAIN
    rad = rule.rad
    if rad > 0.0 and sweep_blocked(C, x[0], x[1], ax, ay, sweep_need(C, x, rad, clear, clear_at, rule.tol)):
        return -KEEP_SWEEP
    return tx


@jit(noalloc=True)
def keep_nearest(near_d, near_m, n, a, m) -> int:
    """Insert neighbour ``m`` at distance ``a`` into the ascending list ``near_d``, ``near_m`` of the n nearest so
    far, keeping at most its capacity (ties keep the earlier row first); returns the new count."""
    cap = near_d.shape[0]
    if n == cap and a >= near_d[n - 1]:
        return n
    j = n if n < cap else cap - 1
    while j > 0 and near_d[j - 1] > a:
        near_d[j] = near_d[j - 1]
        near_m[j] = near_m[j - 1]
        j -= 1
    near_d[j] = a
    near_m[j] = m
    return n + 1 if n < cap else n
