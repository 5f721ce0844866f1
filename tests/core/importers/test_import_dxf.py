"""DXF import: a drawing written by ezdxf itself, in millimetres, with overlapping and bulged polylines, circles,
an arc closed by a line, loose lines closed by polygonize, a block inserted twice and a route.

Areas are checked against the exact shapes (shapely, pi r^2) within the flattening bound perimeter x tolerance.
"""

from __future__ import annotations

import math

import pytest
import shapely

from core.importers import ImportOptions, import_file
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

import ezdxf
TOL = 0.01
MAP = ["Pillars=obstacle", "Water=mud", "Trees=obstacle"]


def write_drawing(path, units: int = 4) -> None:
    doc = ezdxf.new(units=units)
    msp = doc.modelspace()
    walls = {"layer": "Walls"}
    msp.add_lwpolyline([(0, 0), (10000, 0), (10000, 5000), (0, 5000)], close=True, dxfattribs=walls)
    msp.add_lwpolyline([(5000, 2000), (15000, 2000), (15000, 4000), (5000, 4000)], close=True, dxfattribs=walls)
    # A slot: a 4 x 2 m rectangle whose right side is a half circle (bulge 1 = 180 degrees counter-clockwise).
    msp.add_lwpolyline([(20000, 0, 0), (24000, 0, 1), (24000, 2000, 0), (20000, 2000, 0)], format="xyb",
                       close=True, dxfattribs=walls)
    msp.add_circle((30000, 3000), 500, dxfattribs={"layer": "Pillars"})
    for a, b in (((0, 10000), (5000, 10000)), ((5000, 10000), (5000, 15000)), ((5000, 15000), (0, 15000)),
                 ((0, 15000), (0, 10000))):
        msp.add_line(a, b, dxfattribs={"layer": "Grass"})
    msp.add_arc((20000, 12000), 2000, 0, 180, dxfattribs={"layer": "Water"})
    msp.add_line((18000, 12000), (22000, 12000), dxfattribs={"layer": "Water"})
    tree = doc.blocks.new("TREE")
    tree.add_circle((0, 0), 300)
    msp.add_blockref("TREE", (40000, 8000), dxfattribs={"layer": "Trees", "xscale": 2, "yscale": 2})
    msp.add_blockref("TREE", (40000, 12000), dxfattribs={"layer": "Trees", "xscale": 2, "yscale": 2,
                                                          "rotation": 30})
    msp.add_lwpolyline([(1000, 7000), (35000, 7000)], dxfattribs={"layer": "Route"})
    msp.add_line((45000, 0), (46000, 1000), dxfattribs={"layer": "Notes"})
    doc.saveas(path)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    path = tmp_path_factory.mktemp("dxf") / "plan.dxf"
    write_drawing(path)
    return import_file(path, MAP, ImportOptions(tolerance=TOL))


def test_layers_counts_and_validity(result):
    s = result.scene
    assert_valid(s)
    assert result.report.notes[0] == "units: millimetres ($INSUNITS 4)"
    assert result.report.roles == {"obstacle": 6, "terrain:grass": 4, "terrain:mud": 2, "route": 1,
                                   "terrain:notes": 1}
    # The two overlapping walls merge; the slot, the pillar and two trees stay apart.
    assert len(s.obstacles) == 5
    assert [r.points for r in s.routes] == [[(1.0, 7.0), (35.0, 7.0)]]
    assert any("layer 'Grass' into 1 polygon" in c for c in result.report.changes)
    assert any("layer 'Notes'" in c and "LINE handle" in c for c in result.report.changes)


def test_obstacle_area_matches_the_drawing(result):
    walls = shapely.union_all([shapely.box(0, 0, 10, 5), shapely.box(5, 2, 15, 4)])
    slot = 4 * 2 + math.pi * 1.0 ** 2 / 2
    pillar = math.pi * 0.5 ** 2
    trees = 2 * math.pi * 0.6 ** 2
    exact = walls.area + slot + pillar + trees
    bound = TOL * (math.pi * 1.0 + 2 * math.pi * 0.5 + 2 * 2 * math.pi * 0.6) + 1e-3
    assert abs(obstacle_area(result.scene) - exact) <= bound
    # The rotated tree stays a circle of radius 0.6 m around its insertion point.
    tree = [o for o in result.scene.obstacles if shapely.Point(40, 12).within(shapely.Polygon(o.polygon))]
    assert len(tree) == 1
    assert shapely.Polygon(tree[0].polygon).hausdorff_distance(shapely.Point(40, 12).buffer(0.6, 64)) <= TOL + 1e-3


def test_terrain_areas_match_the_drawing(result):
    areas = painted_areas(result.scene)
    assert areas["grass"] == pytest.approx(25.0, abs=1e-9)
    assert abs(areas["mud"] - math.pi * 2.0 ** 2 / 2) <= TOL * math.pi * 2.0


def test_unitless_drawings_are_metres_and_scale_overrides(tmp_path):
    path = tmp_path / "plan.dxf"
    write_drawing(path, units=0)
    r = import_file(path, MAP, ImportOptions(scale=0.001))
    assert "--scale" in r.report.notes[0]
    assert painted_areas(r.scene)["grass"] == pytest.approx(25.0, abs=1e-9)
    r = import_file(path, MAP)
    assert "states no length unit; 1 drawing unit = 1 m" in r.report.notes[0]
    assert painted_areas(r.scene)["grass"] == pytest.approx(25e6, rel=1e-12)


def test_a_route_through_an_obstacle_names_the_entity(tmp_path):
    path = tmp_path / "plan.dxf"
    doc = ezdxf.new(units=6)
    msp = doc.modelspace()
    msp.add_lwpolyline([(0, 0), (10, 0), (10, 10), (0, 10)], close=True, dxfattribs={"layer": "Walls"})
    route = msp.add_lwpolyline([(-5, 5), (5, 5), (20, 5)], dxfattribs={"layer": "Route"})
    doc.saveas(path)
    with pytest.raises(InputError) as e:
        import_file(path)
    assert f"layer 'Route', LWPOLYLINE handle {route.dxf.handle}" in str(e.value)
    assert "inside obstacle" in str(e.value)


def test_a_hatch_with_an_island_is_a_polygon_with_a_hole(tmp_path):
    path = tmp_path / "hatch.dxf"
    doc = ezdxf.new(units=6)
    hatch = doc.modelspace().add_hatch(dxfattribs={"layer": "Lawn"})
    hatch.paths.add_polyline_path([(0, 0), (20, 0), (20, 10), (0, 10)], is_closed=True, flags=1)
    hatch.paths.add_polyline_path([(5, 3), (8, 3), (8, 6), (5, 6)], is_closed=True, flags=16)
    hatch.paths.add_edge_path().add_arc((15, 5), 2, 0, 360)
    doc.saveas(path)
    r = import_file(path)
    assert_valid(r.scene)
    (t,) = r.scene.terrains
    assert t.type == "lawn" and len(t.holes) == 2
    assert abs(painted_areas(r.scene)["lawn"] - (200 - 9 - math.pi * 4)) <= 2 * math.pi * 2 * TOL


def test_lines_that_miss_by_less_than_snap_are_joined(tmp_path):
    """A square of four lines whose ends miss by 4 mm: closed with the default 1 cm snap, left open without."""
    path = tmp_path / "gaps.dxf"
    doc = ezdxf.new(units=6)
    msp = doc.modelspace()
    for a, b in (((0, 0), (9.996, 0)), ((10, 0.004), (10, 10)), ((10, 10), (0.004, 10)), ((0, 9.996), (0, 0.004))):
        msp.add_line(a, b, dxfattribs={"layer": "Lawn"})
    msp.add_line((20, 0), (21, 1), dxfattribs={"layer": "Marks"})   # keeps the scene non-empty without the lawn
    doc.saveas(path)
    r = import_file(path, ["Marks=obstacle"])
    # Meeting ends go to their mean: each corner moves by at most 2 mm.
    assert painted_areas(r.scene)["lawn"] == pytest.approx(100.0, abs=4 * 10 * 0.002)
    assert any("joined 6 line end(s)" in c for c in r.report.changes)    # three corners miss, one meets
    with pytest.raises(InputError) as e:
        import_file(path, ["Marks=obstacle"], ImportOptions(snap=0))
    assert "left 4 open line(s) of layer 'Lawn' out" in str(e.value)


def test_a_wide_polyline_is_the_wall_it_draws(tmp_path):
    path = tmp_path / "wall.dxf"
    doc = ezdxf.new(units=4)
    msp = doc.modelspace()
    msp.add_lwpolyline([(0, 0), (5000, 0)], dxfattribs={"layer": "Walls", "const_width": 300})
    msp.add_lwpolyline([(0, 2000), (5000, 2000)], dxfattribs={"layer": "Route"})
    doc.saveas(path)
    r = import_file(path)
    assert_valid(r.scene)
    assert obstacle_area(r.scene) == pytest.approx(5.0 * 0.3, abs=1e-9)


def test_not_a_dxf_is_a_located_error(tmp_path):
    path = tmp_path / "broken.dxf"
    path.write_text("0\nSECTION\n2\nENTITIES\n0\nLINE\n")
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "broken.dxf" in str(e.value) and "DXF" in str(e.value)
