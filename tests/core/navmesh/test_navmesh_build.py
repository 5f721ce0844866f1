"""The triangulation and its DCEL: invariants, areas per terrain type against shapely, grids, progress."""

import numpy as np
import pytest

from core.navmesh import BuildCancelled, build_navmesh
from core.scene import Scene

from mesh_checks import area2, assert_areas, assert_constraints, assert_dcel, assert_locate_seeds
from scenegen import ALL_CASES, case, random_scene


@pytest.mark.parametrize("name", ALL_CASES)
def test_dcel_invariants(name):
    assert_dcel(case(name)[2])


@pytest.mark.parametrize("name", ALL_CASES)
def test_areas_match_shapely(name):
    assert_areas(*case(name))


@pytest.mark.parametrize("name", ALL_CASES)
def test_constraints_and_obstacle_edges(name):
    assert_constraints(*case(name)[1:])


@pytest.mark.parametrize("name", ALL_CASES)
def test_location_grid_seeds_contain_cell_centres(name):
    assert_locate_seeds(case(name)[2])


def test_empty_scene_is_two_triangles():
    m = build_navmesh(Scene.empty(30, 20))
    assert m.n_triangles == 2 and m.triangle_areas().sum() == pytest.approx(600.0)
    assert len(m.obstacle_edges) == 4


def test_progress_reports_and_cancels():
    scene = random_scene(5)
    seen = []
    build_navmesh(scene, progress=lambda f, stage: seen.append((f, stage)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    with pytest.raises(BuildCancelled):
        build_navmesh(scene, progress=lambda f, stage: stage != "triangulation")


def test_nearly_coincident_vertices_are_merged():
    # Terrain corners a hair (1e-14 of the scene) off an obstacle corner and edge: one PSLG vertex, valid mesh.
    from core.scene.model import Obstacle, TerrainPolygon, TerrainType

    scene = Scene.empty(100, 100)
    scene.terrain_types.append(TerrainType("road"))
    scene.obstacles = [Obstacle("o", [(20, 20), (40, 20), (40, 40), (20, 40)])]
    eps = 1e-13
    scene.terrains = [TerrainPolygon("t", "road", [(40 + eps, 40 - eps), (60, 40), (60, 60), (40, 60 + eps)])]
    m = build_navmesh(scene)
    assert np.all(area2(m.vertices[m.xtriangles]) > 0)
    d = np.linalg.norm(m.vertices[:, None] - m.vertices[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min() > m.snap
