"""The grid planner at narrow places: a passage that a disc of the asked clearance passes but whose width the
default cells cannot represent is found by refining the grid locally, every move of the refined route keeps the
clearance (shapely), and where no route keeps it the refusal states true numbers."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import shapely

from core.routes import PlannerContext, plan_route
from core.routes.planners import grid as gridmod
from core.scene.model import Agent, Obstacle, Profile, Scene, TerrainType
from core.scene.problems import InputError


def walls_scene(gap: float, size: float = 80.0, gaps_at=(13.3, 61.7, 29.1), radius: float = 0.25,
                seed: int = 0) -> Scene:
    """size x size with three walls 0.5 m thick across it (y = size/4, size/2, 3 size/4), each with one gap of
    ``gap`` m at x = gaps_at[k] (shifted by a seeded random sub-cell offset, so that the gap never lines up with
    the cells), and one profile of the given radius."""
    rng = np.random.default_rng(seed)
    obstacles = []
    for k, (y, x) in enumerate(zip((size / 4, size / 2, 3 * size / 4), gaps_at)):
        x = x + float(rng.uniform(0.0, 0.2))
        for side, (a, b) in enumerate(((0.0, x - gap / 2), (x + gap / 2, size))):
            obstacles.append(Obstacle(f"w{k}{side}", [(a, y - 0.25), (b, y - 0.25), (b, y + 0.25), (a, y + 0.25)]))
    return Scene(bounds=(0.0, 0.0, size, size), terrain_types=[TerrainType("default")], default_terrain="default",
                 obstacles=obstacles, profiles=[Profile("walker", radius=radius)], name=f"walls with {gap} m gaps")


def _clearance(scene: Scene, pts: np.ndarray) -> float:
    free = shapely.box(*scene.bounds).difference(shapely.union_all([shapely.Polygon(o.polygon)
                                                                     for o in scene.obstacles]))
    return float(shapely.LineString(pts).distance(free.boundary))


@pytest.mark.parametrize("radius", [0.25, 0.28, 0.3])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_grid_passes_gaps_its_cells_cannot_represent(radius, seed):
    """0.75 m gaps, 0.2 m cells: no cell centre keeps r + h / sqrt(2) in the gap, yet the route is found and keeps
    the radius all along (shapely), through all three gaps."""
    scene = walls_scene(0.75, radius=radius, seed=seed)
    ctx = PlannerContext(scene)
    assert ctx.planner("grid").h == pytest.approx(0.2)
    res = plan_route(scene, (3.5, 3.5), (76.5, 76.5), "grid", "walker", clearance=radius, context=ctx)
    assert res.clearance_ok
    assert _clearance(scene, res.route.points) >= radius - 1e-9
    ys = res.route.points[:, 1]
    assert ys.max() > 60.25 and ys.min() < 19.75


def test_a_gap_narrower_than_the_disc_is_refused_with_true_numbers():
    """A 0.5 m gap cannot pass a clearance of 0.3: the message states the best route's clearance, which is less
    than the clearance asked for."""
    scene = walls_scene(0.5, radius=0.3)
    with pytest.raises(InputError) as e:
        plan_route(scene, (3.5, 3.5), (76.5, 76.5), "grid", "walker", clearance=0.3)
    msg = str(e.value)
    assert "keeps a clearance of 0.3" in msg
    width = float(re.search(r"comes within ([0-9.e-]+) of an obstacle", msg).group(1))
    assert width < 0.3 and "less than 0.3" in msg


def test_without_refinement_the_refusal_says_the_cells_are_too_coarse(monkeypatch):
    """With the refinement turned off the grid cannot pass the 0.75 m gaps: the refusal says its cells are too
    coarse, near which gap and how wide it is, and which planners or cell size pass; every number it gives is
    true, and the cell size it names passes."""
    monkeypatch.setattr(gridmod, "REFINE_STEPS", ())
    for size, gaps_at in ((80.0, (13.3, 61.7, 29.1)), (50.0, (8.0, 38.0, 18.0))):
        scene = walls_scene(0.75, size=size, gaps_at=gaps_at, radius=0.3)
        start, goal = (3.5, 3.5), (size - 3.5, size - 3.5)
        with pytest.raises(InputError) as e:
            plan_route(scene, start, goal, "grid", "walker", clearance=0.3)
        msg = str(e.value)
        assert "too coarse" in msg and "cdt or portal" in msg and f"cells of {size / 400:.3g}" in msg
        width = float(re.search(r"comes within ([0-9.e-]+) of an obstacle", msg).group(1))
        assert width >= 0.3 - 1e-9                      # the free space keeps the clearance: the portal route does
        at = re.search(r"near \(([-0-9.e]+), ([-0-9.e]+)\), ([0-9.e]+) wide", msg)
        assert at and min(abs(float(at.group(2)) - k * size / 4) for k in (1, 2, 3)) < 1.0
        assert abs(float(at.group(3)) - 0.75) < 0.02
        named = re.search(r"cell size of at most ([0-9.e-]+)", msg)
        if size == 80.0:
            assert named is None and "over its limit" in msg   # 0.05 m cells over 80 m: too many
            continue
        ctx = PlannerContext(scene, cell_size=float(named.group(1)))
        res = plan_route(scene, start, goal, "grid", "walker", clearance=0.3, context=ctx)
        assert _clearance(scene, res.route.points) >= 0.3 - 1e-9


def test_scene_agents_without_a_route_are_lost_and_the_others_walk():
    """One grid agent behind a gap narrower than its disc gets no route: it is added lost ("no route keeps its
    clearance"), with the planner's message, and the others are added walking."""
    from core.sim import Simulation

    scene = walls_scene(0.5, radius=0.3)
    agents = [Agent("far", "walker", start=(3.5, 3.5), goal=(76.5, 76.5), planner="grid"),
              Agent("near", "walker", start=(3.5, 3.5), goal=(60.0, 15.0), planner="grid")]
    scene = dataclasses.replace(scene, agents=agents)
    sim = Simulation(scene)
    assert sim.status_of(0) == ("lost", "no route keeps its clearance")
    assert "keeps a clearance of 0.3" in sim.unrouted["far"]
    assert sim.status_of(1) == ("walking", "")
