"""A crowd's routes do not depend on what its planner answered before: two identical respawning crowds built one
after the other on one planner context (sweeps, Side by Side and a second run share one) get the same routes and walk
the same steps. A search whose result depends on the context's history (landmarks measured after N queries broke
ties differently) fails here."""

from __future__ import annotations

import pytest

from core.bench.crowd import SCENES_DIR, crowd_simulation
from core.navmesh import build_navmesh
from core.routes import PlannerContext
from core.scene.io import load_scene


@pytest.mark.crowd
def test_two_identical_crowds_on_one_planner_walk_the_same() -> None:
    scene = load_scene(SCENES_DIR / "city.json")
    mesh = build_navmesh(scene)
    ctx = PlannerContext(scene, navmesh=mesh)
    a = crowd_simulation(scene, mesh, ctx, "miran", 5000)
    b = crowd_simulation(scene, mesh, ctx, "miran", 5000)
    assert a.routes.points.tobytes() == b.routes.points.tobytes()
    for sim in (a, b):
        sim.run(max_steps=20)
    assert a.state.pos.tobytes() == b.state.pos.tobytes()
