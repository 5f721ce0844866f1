"""The weighted planners follow the profiles' terrain preferences: McKenna + Road's pedestrian keeps to the sidewalk
and out of the mud (MIRAN section 5, Figure 8), the forest's adult and child choose different branches (MIRAN
section 4, Figure 1). Terrain lengths are measured with shapely on the scene's regions."""

from __future__ import annotations

import pytest
import shapely

from core.routes import PlannerContext, plan_route

from routegen import shipped


def terrain_lengths(ctx, pts) -> dict[str, float]:
    line = shapely.LineString(pts)
    return {t.id: shapely.intersection(line, r).length for t, r in zip(ctx.scene.terrain_types, ctx.geometry.regions)}


@pytest.mark.parametrize("planner", ["grid", "cdt"])
def test_mckenna_road_pedestrian_keeps_to_the_sidewalk_and_out_of_the_mud(planner):
    scene = shipped("mckenna_road")
    ctx = PlannerContext(scene)
    # The scene's route: west end of the main road, past the muddy yard, down the north-south road.
    res = plan_route(scene, (4, 100), (155, 6), planner, "pedestrian", context=ctx)
    L = terrain_lengths(ctx, res.route.points)
    assert L["mud"] == 0.0
    assert L["sidewalk"] >= 0.85 * res.route.length
    # Start and goal lie on roads: leaving one and reaching the other takes at least 8 + 4 m of road.
    assert L["road"] <= 25.0
    # A planner blind to the terrain takes the short way over open ground and road instead.
    blind = terrain_lengths(ctx, plan_route(scene, (4, 100), (155, 6), "portal", context=ctx).route.points)
    assert blind["sidewalk"] < 0.3 * sum(blind.values())


@pytest.mark.parametrize("planner", ["grid", "cdt"])
def test_mckenna_road_mud_is_walked_around(planner):
    scene = shipped("mckenna_road")
    ctx = PlannerContext(scene)
    # Across the muddy yard (mud from x 118 to 147 south of the sidewalk): the straight line crosses the mud.
    s, g = (112.0, 70.0), (149.0, 60.0)
    assert terrain_lengths(ctx, [s, g])["mud"] > 10.0
    res = plan_route(scene, s, g, planner, "pedestrian", context=ctx)
    assert terrain_lengths(ctx, res.route.points)["mud"] == 0.0


@pytest.mark.parametrize("planner", ["grid", "cdt"])
def test_forest_adult_and_child_take_different_branches(planner):
    scene = shipped("forest")
    ctx = PlannerContext(scene)
    adult = plan_route(scene, (4, 99), (296, 99), planner, "adult", context=ctx)
    child = plan_route(scene, (4, 99), (296, 99), planner, "child", context=ctx)
    la, lc = terrain_lengths(ctx, adult.route.points), terrain_lengths(ctx, child.route.points)
    # The adult climbs the northern branch (to the panoramic view) and avoids puddles and fallen trees...
    assert adult.route.points[:, 1].max() > 118 and la["view"] > 0 and la["puddles"] == 0 and la["trees"] == 0
    # ... the child takes the short southern branch through the puddles and over the fallen tree.
    assert child.route.points[:, 1].max() < 110 and lc["puddles"] > 0 and lc["view"] == 0
    # Both keep to the path (forest weighs 30 for both).
    assert la["forest"] < 0.02 * adult.route.length and lc["forest"] < 0.02 * child.route.length
    line_a, line_c = shapely.LineString(adult.route.points), shapely.LineString(child.route.points)
    assert line_a.hausdorff_distance(line_c) > 25.0
    # Each profile's own route is cheaper for it than the other's.
    _, wa = ctx.weights("adult")
    _, wc = ctx.weights("child")
    def cost(L, w):
        return sum(w[k] * L[t.id] for k, t in enumerate(scene.terrain_types))
    assert cost(la, wa) < cost(lc, wa) and cost(lc, wc) < cost(la, wc)
