"""Crowds of agents with random errands: random starts and goals, planned routes, replanning and respawning.

- ``random_free_points``: points uniformly distributed over the free space (a triangle of the navigation mesh
  picked by area, then a uniform point in it), so crowds fill every street and square alike.
- ``add_random_agents``: ``miran simulate --agents N --seed K``: N agents, each with a random start and goal in
  one connected part of the free space and a route planned between them (IRM section 6's experiment).
- ``replan_lost``: MIRAN 3.5: an agent that other agents pushed where no part of its route window is visible, or
  whose way along its route is blocked, gets a new route planned from where it stands to its goal.
- ``respawn_arrived``: IRM section 6: "When it had reached its destination, a new goal was assigned" -- a new
  random goal and a new planned route from where the agent stands.

Planning is per agent (a Python call into core.routes), but only for agents that need a route: never per step.
"""

from __future__ import annotations

import weakref

import numpy as np

from core.navmesh.queries import clearance, locate
from core.routes import Route, plan_route
from core.scene.model import DEFAULT_PLANNER
from core.scene.problems import InputError, Problem

from .state import ARRIVED, REASON_NO_ROUTE

# Tries per agent to find a start and goal that the planner can join.
MAX_TRIES = 20


def random_free_points(mesh, rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 2) float64 points uniform over the free space of a navigation mesh."""
    v, cdf = _area_sampler(mesh)
    if n == 0 or cdf is None:
        return np.zeros((0, 2))
    # What Generator.choice(len(area), size=n, p=area / area.sum()) draws, without redoing the areas per call.
    t = cdf.searchsorted(rng.random(n), side="right")
    a, b = rng.random(n), rng.random(n)
    flip = a + b > 1.0
    if flip.any():                                  # (skipped when empty: a crowd's errand draws one point)
        a[flip], b[flip] = 1.0 - a[flip], 1.0 - b[flip]
    p = v[t, 0] + a[:, None] * (v[t, 1] - v[t, 0]) + b[:, None] * (v[t, 2] - v[t, 0])
    # Round-off may put a point a hair outside a boundary triangle: pull those back to the triangle's centroid.
    bad = locate(mesh, p) < 0
    if bad.any():
        p[bad] = v[t[bad]].mean(axis=1)
    return p


_SAMPLERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _area_sampler(mesh) -> tuple[np.ndarray, np.ndarray | None]:
    """The free triangles' corners (nt, 3, 2) and their normalised cumulative areas (None without area), computed
    once per mesh: respawning crowds draw a goal per errand."""
    got = _SAMPLERS.get(mesh)
    if got is None:
        v = mesh.vertices[mesh.triangles]
        area = 0.5 * np.abs((v[:, 1, 0] - v[:, 0, 0]) * (v[:, 2, 1] - v[:, 0, 1])
                            - (v[:, 2, 0] - v[:, 0, 0]) * (v[:, 1, 1] - v[:, 0, 1]))
        cdf = None
        if area.sum() > 0:
            cdf = (area / area.sum()).cumsum()
            cdf /= cdf[-1]
        got = _SAMPLERS[mesh] = (v, cdf)
    return got


def roomy_points(sim, rng: np.random.Generator, n: int, room: float) -> np.ndarray:
    """(m, 2) points uniform over the part of the free space at least ``room`` from every obstacle and the bounds
    (a character of that radius fits there); m <= n: the draws that fell closer are dropped."""
    p = random_free_points(sim.mesh, rng, n)
    if room <= 0.0 or len(p) == 0:
        return p
    dist, _ = clearance(sim.mesh, p)
    return p[dist >= room]


def plan_errand(sim, start: np.ndarray, rng: np.random.Generator, profile: str, planner: str) -> Route | None:
    """A route from ``start`` to a random goal where the character fits (its radius as the simulation has it),
    keeping ``sim.clearance_for`` the profile (a few tries); None when no goal could be reached."""
    c = sim.clearance_for(profile)
    room = sim.params.get_profile(profile, "radius")      # the radius the engine checks (tuned live or not)
    for _ in range(MAX_TRIES):
        goals = roomy_points(sim, rng, 1, room)
        if len(goals) == 0:
            continue
        goal = goals[0]
        if np.hypot(*(goal - start)) <= 1e-6 * sim.scale:
            continue
        try:
            return plan_route(sim.scene, start, goal, planner, profile=profile, clearance=c,
                              context=sim.context, spot=False).route
        except InputError:
            continue
    return None


def add_random_agents(sim, n: int, seed: int, profiles: list[str] | None = None, method: str | None = None,
                      planner: str = DEFAULT_PLANNER) -> np.ndarray:
    """Add n agents with random starts and goals and routes planned with ``planner``; profiles are drawn in turn
    from ``profiles`` (default: all of the scene's). Returns their indices; InputError when the scene has no
    profile or no two points the planner can join."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if not sim.scene.profiles:
        raise InputError([Problem("profiles", "random agents need a profile, and the scene has none")])
    names = list(profiles) if profiles else [p.id for p in sim.scene.profiles]
    for p in names:
        sim.params.profile_index(p)
    meth = method or sim.method
    rng = np.random.default_rng(seed)
    routes: list[Route] = []
    profs: list[str] = []
    room = max(sim.params.get_profile(p, "radius") for p in names)
    starts = roomy_points(sim, rng, n * MAX_TRIES, room)
    k = 0
    for j in range(len(starts)):
        if len(routes) == n:
            break
        prof = names[k % len(names)]
        route = plan_errand(sim, starts[j], rng, prof, planner)
        if route is None:
            continue
        routes.append(route)
        profs.append(prof)
        k += 1
    if len(routes) < n:
        raise InputError([Problem("agents", f"found routes for only {len(routes)} of {n} random agents with the "
                                            f"{planner} planner")])
    ids = fresh_ids("crowd", sim.state.ids, sim.state.n, n)
    return sim.add_agents(routes, profs, ids, methods=meth)


def fresh_ids(prefix: str, taken, first: int, k: int) -> list[str]:
    """``k`` ids ``prefix-N`` for N from ``first`` up, skipping those in ``taken``: once an agent was left out of a
    run (its start now inside an obstacle), the count of agents no longer names an unused id."""
    used = set(taken)
    out: list[str] = []
    j = first
    while len(out) < k:
        name = f"{prefix}-{j}"
        if name not in used:
            out.append(name)
        j += 1
    return out


def replan_lost(sim, planner: str = DEFAULT_PLANNER, max_replans: int = 25) -> int:
    """MIRAN 3.5: plan a new route to its goal for every agent that replanning may help (``sim.replannable``),
    from where it stands, keeping ``sim.clearance_for`` its profile where it can (less only near where it stands);
    returns how many got one. An agent whose goal cannot be reached from where it stands is lost for good
    ("no route"), and so is one replanned ``max_replans`` times already ("no progress")."""
    st = sim.state
    lost = np.nonzero(sim.replannable())[0]
    done = 0
    for i in lost.tolist():
        if st.replans[i] >= max_replans:
            sim.give_up(np.array([i]))
            continue
        prof = sim.params.profile_ids[int(st.profile[i])]
        c = sim.clearance_for(prof)
        try:
            res = plan_route(sim.scene, st.pos[i].copy(), st.goal[i].copy(), planner, profile=prof, clearance=c,
                             context=sim.context, spot=False)
        except InputError:
            st.lost_reason[i] = REASON_NO_ROUTE
            continue
        sim.set_route(i, res.route)
        st.replans[i] += 1
        done += 1
    sim.replanned += done
    return done


def respawn_arrived(sim, rng: np.random.Generator, planner: str = DEFAULT_PLANNER) -> int:
    """IRM section 6: give every arrived agent a new random goal and a route to it from where it stands; returns
    how many got one."""
    st = sim.state
    arrived = np.nonzero(st.status == ARRIVED)[0]
    done = 0
    for i in arrived.tolist():
        prof = sim.params.profile_ids[int(st.profile[i])]
        route = plan_errand(sim, st.pos[i].copy(), rng, prof, planner)
        if route is None:
            continue
        sim.set_route(i, route)
        done += 1
    sim.respawned += done
    return done


__all__ = ["add_random_agents", "plan_errand", "random_free_points", "replan_lost", "respawn_arrived",
           "roomy_points"]
