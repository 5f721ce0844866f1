"""The eroded free space (clearance levels): the piecewise erosion of large obstacles is GEOS's erosion."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from core.routes import freespace
from core.routes.freespace import erode_geometry
from core.scene import build_geometry
from core.scene.model import Obstacle, Scene, TerrainType


def comb_with_courtyard(n: int) -> Scene:
    """A comb of n vertices (teeth 90 / n m apart, far closer than the clearance) and a courtyard with a hole."""
    teeth = n - 2
    x = 5.0 + 90.0 * np.arange(teeth) / (teeth - 1)
    y = np.where(np.arange(teeth) % 2 == 1, 70.0, 60.0)
    comb = [(95.0, 40.0), (5.0, 40.0)] + list(zip(x.tolist(), y.tolist()))
    court = [(20.0, 5.0), (40.0, 5.0), (40.0, 30.0), (20.0, 30.0), (20.0, 20.0), (25.0, 20.0), (25.0, 25.0),
             (35.0, 25.0), (35.0, 10.0), (25.0, 10.0), (25.0, 15.0), (20.0, 15.0)]
    edge = [(99.5, 0.0), (100.0, 0.0), (100.0, 30.0), (99.5, 30.0)]
    return Scene(bounds=(0.0, 0.0, 100.0, 100.0), terrain_types=[TerrainType("default", "Open ground")],
                 default_terrain="default", name="comb",
                 obstacles=[Obstacle("comb", comb), Obstacle("court", court), Obstacle("edge", edge)])


@pytest.mark.parametrize("clearance", [0.05, 0.25, 1.3])
def test_the_piecewise_erosion_is_geos_erosion_and_keeps_the_clearance(clearance, monkeypatch):
    g = build_geometry(comb_with_courtyard(3000))
    assert shapely.get_num_coordinates(g.free) > freespace.PIECEWISE_VERTICES
    fast = erode_geometry(g, clearance).free
    monkeypatch.setattr(freespace, "PIECEWISE_VERTICES", 10**9)
    geos = erode_geometry(g, clearance).free
    # Equal but for where the chords of each rounded corner fall (sagitta r (1 - cos(pi / 16)) < 0.02 r) and the
    # simplification within 1 % of r.
    assert fast.symmetric_difference(geos).area <= 1e-4 * geos.area
    assert fast.hausdorff_distance(geos) <= 0.03 * clearance
    # Every point of the eroded space keeps the clearance from the obstacles and the bounds (the guarantee).
    assert shapely.distance(g.obstacles, fast.boundary) >= clearance * (1 - 1e-12)
    pts = shapely.get_coordinates(fast)
    d_box = np.minimum.reduce([pts[:, 0], pts[:, 1], 100.0 - pts[:, 0], 100.0 - pts[:, 1]])
    assert np.all(d_box >= clearance * (1 - 1e-12))
    assert fast.is_valid and fast.within(g.free)


def test_a_clearance_wider_than_the_bounds_leaves_nothing():
    g = build_geometry(comb_with_courtyard(3000))
    assert erode_geometry(g, 60.0).free.is_empty
