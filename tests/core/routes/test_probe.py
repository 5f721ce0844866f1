"""Route probes (the app's test path) and the free space shrunk by a radius, checked against shapely."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon, box

from core.routes import PlannerContext, plan_route
from core.routes.probe import probe_route, shrunk_free_space
from core.scene.model import Obstacle, Profile, Scene, TerrainPolygon, TerrainType

BLOCK = [(8.0, 2.0), (12.0, 2.0), (12.0, 16.0), (8.0, 16.0)]


def scene(radius: float = 0.5) -> Scene:
    return Scene(bounds=(0.0, 0.0, 20.0, 20.0), terrain_types=[TerrainType("default"), TerrainType("mud")],
                 default_terrain="default", obstacles=[Obstacle("b", BLOCK)],
                 terrains=[TerrainPolygon("m", "mud", [(0.0, 15.0), (20.0, 15.0), (20.0, 20.0), (0.0, 20.0)])],
                 profiles=[Profile("p", {"mud": 3.0}, radius=radius)])


@pytest.mark.parametrize("planner", ["cdt", "portal", "grid"])
def test_probe_is_the_simulations_route_with_its_cost_and_narrowest_clearance(planner):
    sc = scene()
    ctx = PlannerContext(sc)
    probe = probe_route(ctx, (3.0, 8.0), (17.0, 8.0), planner, "p")
    assert probe.error is None
    ref = plan_route(sc, (3.0, 8.0), (17.0, 8.0), planner, profile="p", clearance=0.5, context=ctx)
    assert np.array_equal(probe.points, ref.route.points) and probe.cost == ref.cost
    line = LineString(probe.points)
    assert probe.length == pytest.approx(line.length)
    # Independent reference: shapely's distance from the route to the obstacle and the bounds' outline.
    walls = shapely.union(Polygon(BLOCK).boundary, box(0, 0, 20, 20).boundary)
    assert probe.narrowest == pytest.approx(line.distance(walls), abs=1e-6)
    assert probe.clearance == 0.5 and probe.clearance_ok == (probe.narrowest >= 0.5 - 1e-9)
    assert probe.narrowest_at is not None
    assert shapely.Point(probe.narrowest_at).distance(walls) == pytest.approx(probe.narrowest, abs=1e-6)


def test_a_refused_probe_says_why_instead_of_raising():
    ctx = PlannerContext(scene())
    inside = probe_route(ctx, (10.0, 8.0), (17.0, 8.0), "cdt", "p")
    assert inside.error is not None and "start" in inside.error and len(inside.points) == 0
    # A disc of radius 3 cannot pass either gap (2 m below the block, 4 m above it): no route keeps it.
    wide = probe_route(PlannerContext(scene(radius=3.0)), (3.0, 8.0), (17.0, 8.0), "cdt", "p")
    assert wide.error is not None and len(wide.points) == 0


@pytest.mark.parametrize("radius", [0.0, 0.4, 1.5])
def test_shrunk_free_space_is_the_free_space_eroded_by_the_radius(radius):
    ctx = PlannerContext(scene())
    rings = shrunk_free_space(ctx, radius)
    assert rings and all(np.array_equal(r[0], r[-1]) for r in rings)
    free = box(0, 0, 20, 20).difference(Polygon(BLOCK))
    expected = free.buffer(-radius) if radius > 0 else free
    # The drawn outline is the eroded free space's outline (the planners erode a hair more, so that their
    # polygonal buffer keeps at least the radius everywhere: a few centimetres here).
    outline = shapely.MultiLineString([LineString(r) for r in rings])
    assert outline.hausdorff_distance(expected.boundary) < 0.02 + 0.05 * radius
    assert len(rings) == len(expected.interiors) + 1 if expected.geom_type == "Polygon" else len(rings) >= 2
    pts = np.vstack(rings)
    walls = shapely.union(Polygon(BLOCK).boundary, box(0, 0, 20, 20).boundary)
    d = shapely.distance(shapely.points(pts), walls)
    assert np.all(d >= radius - 1e-6)
