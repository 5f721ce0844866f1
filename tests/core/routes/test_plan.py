"""plan_route: every planner valid on generated and shipped scenes, clearance, errors, context reuse."""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route
from core.scene.model import Obstacle, Scene
from core.scene.problems import InputError

from routecheck import assert_valid
from routegen import SHIPPED, random_queries, random_scene, shipped

PLANNERS = ["grid", "cdt", "ecm", "portal", "network"]


@lru_cache(maxsize=None)
def shipped_context(name: str) -> PlannerContext:
    """One context per shipped scene for the whole module (the ECM is built once per scene)."""
    return PlannerContext(shipped(name))


@lru_cache(maxsize=None)
def generated(seed: int) -> tuple:
    scene = random_scene(seed)
    return scene, PlannerContext(scene, cell_size=0.5)


def _ok_or_reported(scene, ctx, planner, s, g, clearance=0.0):
    """Plan; an InputError is allowed only for the reasons a planner may legitimately refuse a reachable goal."""
    try:
        return plan_route(scene, s, g, planner, clearance=clearance, context=ctx)
    except InputError as e:
        msg = str(e)
        assert (planner == "grid" and "cell size" in msg) or (planner == "network" and "network" in msg), msg
        return None


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("seed", [41, 42, 43])
def test_generated_scenes(planner, seed):
    scene, ctx = generated(seed)
    done = 0
    for x0, y0, x1, y1 in random_queries(scene, seed, 8):
        res = _ok_or_reported(scene, ctx, planner, (x0, y0), (x1, y1))
        if res is not None:
            assert_valid(res, ctx.geometry, (x0, y0), (x1, y1))
            assert res.planner == planner and res.clearance_ok
            done += 1
    assert done >= 6


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scenes(planner, name):
    scene = shipped(name)
    if planner == "network" and not scene.networks:
        with pytest.raises(InputError, match="no indicative network"):
            plan_route(scene, *random_queries(scene, 1, 1).reshape(2, 2), planner)
        return
    ctx = shipped_context(name)
    done = 0
    for x0, y0, x1, y1 in random_queries(scene, 44, 6):
        res = _ok_or_reported(scene, ctx, planner, (x0, y0), (x1, y1))
        if res is not None:
            assert_valid(res, ctx.geometry, (x0, y0), (x1, y1))
            done += 1
    assert done >= 4


@pytest.mark.parametrize("planner", ["grid", "cdt", "ecm", "portal"])
def test_clearance_is_kept_where_the_free_space_allows(planner):
    scene = random_scene(45, n_obstacles=8)
    ctx = PlannerContext(scene, cell_size=0.5)
    C = 1.0
    eroded = ctx.free(C).free
    kept = 0
    for x0, y0, x1, y1 in random_queries(scene, 45, 10):
        s, g = (x0, y0), (x1, y1)
        res = _ok_or_reported(scene, ctx, planner, s, g, clearance=C)
        if res is None:
            continue
        assert_valid(res, ctx.geometry, s, g, clearance=C)
        parts = shapely.get_parts(eroded)
        same_part = [c for c in parts if c.contains(shapely.Point(s)) and c.contains(shapely.Point(g))]
        if same_part:
            # Both ends keep C and lie in one part of the eroded free space: the route keeps C everywhere.
            assert res.clearance_ok and res.clearance_used == C and res.narrowest >= C - 1e-7
            kept += 1
        else:
            assert res.clearance_used < C or not res.clearance_ok
    assert kept >= 3


def _door_scene() -> Scene:
    """Two rooms joined by a 1 m door at x 19..21, y 9.5..10.5."""
    scene = Scene.empty(40, 20)
    scene.obstacles = [Obstacle("wall-a", [(19, 0), (21, 0), (21, 9.5), (19, 9.5)]),
                       Obstacle("wall-b", [(19, 10.5), (21, 10.5), (21, 20), (19, 20)])]
    return scene


def test_narrow_passage_is_refused_naming_the_narrowest_spot():
    # Clearance 2 cannot be kept in the 1 m door: the query fails and says where the best route is narrowest.
    scene = _door_scene()
    door = shapely.box(19, 9.5, 21, 10.5)
    for planner in ("cdt", "portal", "grid", "ecm"):
        ctx = PlannerContext(scene, cell_size=0.2)
        with pytest.raises(InputError, match=r"keeps a clearance of 2: the best route comes within 0\.[45]\d* of an "
                                             r"obstacle at \((\S+), (\S+)\)") as e:
            plan_route(scene, (5, 10), (35, 10), planner, clearance=2.0, context=ctx)
        x, y = (float(v) for v in re.search(r"at \(([^,]+), ([^)]+)\)", str(e.value)).groups())
        assert door.buffer(0.6).contains(shapely.Point(x, y)), f"{planner}: the spot {(x, y)} is not at the door"


@pytest.mark.parametrize("planner", ["grid", "cdt", "ecm", "portal"])
def test_without_the_spot_the_same_routes_and_the_same_refusals(planner):
    """``spot=False`` (a crowd's errands and replans) returns the very routes of ``spot=True`` and refuses exactly
    the queries it refuses, only without the narrowest spot (and the second search that finds it)."""
    refused = planned = 0
    for seed in (46, 47):
        scene = random_scene(seed, n_obstacles=14)
        ctx = PlannerContext(scene, cell_size=0.5)
        for x0, y0, x1, y1 in random_queries(scene, seed, 12):
            outcomes = []
            for spot in (True, False):
                try:
                    outcomes.append(plan_route(scene, (x0, y0), (x1, y1), planner, clearance=3.0, context=ctx,
                                               spot=spot))
                except InputError as e:
                    outcomes.append(str(e))
            full, bare = outcomes
            if isinstance(full, str):
                assert isinstance(bare, str), (planner, seed, full)
                if "keeps a clearance" in full:
                    assert "keeps a clearance of 3" in bare and "best route" not in bare, bare
                    refused += 1
                else:
                    assert bare == full
            else:
                assert not isinstance(bare, str), (planner, seed, bare)
                assert np.array_equal(full.route.points, bare.route.points) and full.cost == bare.cost
                assert bare.narrowest_at is None and full.narrowest == bare.narrowest
                planned += 1
    assert refused >= 2 and planned >= 4, (refused, planned)
    with pytest.raises(InputError, match=r"keeps a clearance of 2$"):
        plan_route(_door_scene(), (5, 10), (35, 10), planner, clearance=2.0, spot=False)


def test_narrow_passage_is_reported_when_less_clearance_is_accepted():
    # With min_clearance 0 the route through the door is returned, and says it does not keep 2.
    scene = _door_scene()
    for planner in ("cdt", "portal", "grid", "ecm"):
        ctx = PlannerContext(scene, cell_size=0.2)
        res = plan_route(scene, (5, 10), (35, 10), planner, clearance=2.0, context=ctx, min_clearance=0.0)
        assert not res.clearance_ok and res.narrowest < 2.0
        x, y = res.narrowest_at
        assert shapely.LineString(res.route.points).distance(shapely.Point(x, y)) < 1e-9
        assert ctx.geometry.free.boundary.distance(shapely.Point(x, y)) == pytest.approx(res.narrowest, abs=1e-9)
        assert res.clearance_used < 2.0
        assert res.narrowest == pytest.approx(shapely.LineString(res.route.points).distance(
            ctx.geometry.free.boundary), abs=1e-9)


def test_unreachable_goal_is_a_clear_input_error():
    scene = Scene.empty(40, 20)
    scene.obstacles = [Obstacle("wall", [(19, 0), (21, 0), (21, 20), (19, 20)])]
    for planner in ("grid", "cdt", "ecm", "portal"):
        with pytest.raises(InputError, match="different connected parts of the free space"):
            plan_route(scene, (5, 10), (35, 10), planner)


@pytest.mark.parametrize("args, match", [
    (dict(planner="astar"), "unknown planner 'astar'"),
    (dict(profile="nobody"), "unknown profile 'nobody'"),
    (dict(start=(-1, 5)), r"start: \(-1, 5\) is outside the bounds"),
    (dict(goal=(20, 10)), r"goal: \(20, 10\) is inside an obstacle"),
    (dict(goal=(5, 5)), "start and goal are the same point"),
    (dict(clearance=-1), "clearance: must be a number >= 0"),
    (dict(start=(np.nan, 1)), "not a finite point"),
])
def test_bad_queries(args, match):
    scene = Scene.empty(40, 20)
    scene.obstacles = [Obstacle("box", [(15, 5), (25, 5), (25, 15), (15, 15)])]
    q = dict(start=(5, 5), goal=(35, 15), planner="cdt", profile=None, clearance=0.0) | args
    with pytest.raises(InputError, match=match):
        plan_route(scene, q["start"], q["goal"], q["planner"], q["profile"], q["clearance"])


def test_context_reuses_structures_and_belongs_to_its_scene():
    scene = random_scene(46)
    ctx = PlannerContext(scene)
    s, g = random_queries(scene, 46, 1).reshape(2, 2)
    plan_route(scene, s, g, "cdt", context=ctx)
    mesh, planner = ctx.mesh, ctx.planner("cdt")
    plan_route(scene, g, s, "cdt", context=ctx)
    assert ctx.mesh is mesh and ctx.planner("cdt") is planner
    with pytest.raises(ValueError, match="another scene"):
        plan_route(random_scene(47), s, g, "cdt", context=ctx)


def test_changed_weight_changes_the_route_without_rebuilding():
    scene = shipped("mckenna_road")
    ctx = PlannerContext(scene)
    s, g = (10.0, 89.0), (190.0, 89.0)
    before = plan_route(scene, s, g, "cdt", context=ctx)
    graph = ctx.planner("cdt").graph(0.0)
    prof = scene.profile("pedestrian")
    old = prof.weights["sidewalk"]
    prof.weights["sidewalk"] = 50.0
    try:
        after = plan_route(scene, s, g, "cdt", context=ctx)
    finally:
        prof.weights["sidewalk"] = old
    assert ctx.planner("cdt").graph(0.0) is graph
    assert after.cost != before.cost
