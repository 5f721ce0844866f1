"""OpenStreetMap import: a small extract written by osmium itself, as .osm (XML) and as .osm.pbf.

A building (closed way), a multipolygon building with a courtyard (relation with an inner ring), a footway with a
``width`` tag, a residential road, a grass landuse area, an untagged way and a shop node: obstacle and terrain
areas are checked against geodesic areas (pyproj's Geod) and buffered way widths.
"""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Polygon

from core.importers import import_file
from core.importers.osm import OSM_TAGS
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

import osmium
import pyproj
GEOD = pyproj.Geod(ellps="WGS84")
LON, LAT = 13.4050, 52.5200
D = 0.0002                       # about 13.6 m east-west, 22.2 m north-south

NODES = {
    # building 1
    1: (0, 0), 2: (2, 0), 3: (2, 1), 4: (0, 1),
    # courtyard building: outer 10..13, inner 11..12
    10: (4, 0), 11: (7, 0), 12: (7, 3), 13: (4, 3), 14: (5, 1), 15: (6, 1), 16: (6, 2), 17: (5, 2),
    # footway, road
    20: (0, 4), 21: (8, 4), 22: (0, 6), 23: (8, 6),
    # grass
    30: (9, 0), 31: (11, 0), 32: (11, 3), 33: (9, 3),
    # untagged way
    40: (0, 8), 41: (3, 8),
}


def ll(n):
    x, y = NODES[n]
    return (LON + x * D, LAT + y * D)


def write_extract(path) -> None:
    from osmium.osm.mutable import Node, Relation, Way

    w = osmium.SimpleWriter(str(path))
    try:
        for nid in sorted(NODES):
            w.add_node(Node(id=nid, location=ll(nid), version=1))
        w.add_node(Node(id=99, location=ll(1), version=1, tags={"shop": "bakery"}))
        w.add_way(Way(id=100, nodes=[1, 2, 3, 4, 1], tags={"building": "yes"}, version=1))
        w.add_way(Way(id=101, nodes=[10, 11, 12, 13, 10], version=1))
        w.add_way(Way(id=102, nodes=[14, 15, 16, 17, 14], version=1))
        w.add_way(Way(id=103, nodes=[20, 21], tags={"highway": "footway", "width": "3"}, version=1))
        w.add_way(Way(id=104, nodes=[22, 23], tags={"highway": "residential"}, version=1))
        w.add_way(Way(id=105, nodes=[30, 31, 32, 33, 30], tags={"landuse": "grass"}, version=1))
        w.add_way(Way(id=106, nodes=[40, 41], version=1))
        w.add_relation(Relation(id=200, members=[("w", 101, "outer"), ("w", 102, "inner")],
                                tags={"type": "multipolygon", "building": "school"}, version=1))
    finally:
        w.close()


def area(nodes) -> float:
    return abs(GEOD.geometry_area_perimeter(Polygon([ll(n) for n in nodes]))[0])


def length(a, b) -> float:
    return GEOD.geometry_length(LineString([ll(a), ll(b)]))


@pytest.fixture(scope="module", params=["osm", "osm.pbf"])
def extract(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("osm") / f"berlin.{request.param}"
    write_extract(path)
    return path


def test_buildings_ways_and_landuse(extract):
    r = import_file(extract)
    s = r.scene
    assert_valid(s)
    assert r.report.roles == {"obstacle": 2, "terrain:footway": 1, "terrain:road": 1, "terrain:grass": 1}
    assert len(s.obstacles) >= 3                  # the courtyard building is split into hole-free pieces
    building = area([1, 2, 3, 4])
    school = area([10, 11, 12, 13]) - area([14, 15, 16, 17])
    assert obstacle_area(s) == pytest.approx(building + school, rel=1e-4)
    areas = painted_areas(s)
    assert areas["grass"] == pytest.approx(area([30, 31, 32, 33]), rel=1e-4)
    # Ways are buffered with flat ends: the width tag (3 m) for the footway, the table's 6 m for the road.
    assert areas["footway"] == pytest.approx(3.0 * length(20, 21), rel=1e-3)
    assert areas["road"] == pytest.approx(6.0 * length(22, 23), rel=1e-3)
    types = {t.id: t for t in s.terrain_types}
    assert types["grass"].color == next(t.color for t in OSM_TAGS if t.value == "grass")
    assert s.profiles[0].weights["road"] == 4.0


def test_the_table_can_be_overridden(extract):
    r = import_file(extract, ["highway=residential=ignore", "building=school=mud", "landuse=ignore"])
    s = r.scene
    assert_valid(s)
    areas = painted_areas(s)
    assert "road" not in areas and "grass" not in areas
    school = area([10, 11, 12, 13]) - area([14, 15, 16, 17])
    assert areas["mud"] == pytest.approx(school, rel=1e-4)
    assert obstacle_area(s) == pytest.approx(area([1, 2, 3, 4]), rel=1e-4)


def test_an_extract_without_anything_known_is_refused(tmp_path):
    from osmium.osm.mutable import Node, Way

    path = tmp_path / "empty.osm"
    w = osmium.SimpleWriter(str(path))
    w.add_node(Node(id=1, location=(LON, LAT), version=1))
    w.add_node(Node(id=2, location=(LON + D, LAT), version=1))
    w.add_way(Way(id=5, nodes=[1, 2], tags={"power": "line"}, version=1))
    w.close()
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "no building, way or landuse" in str(e.value)
    bad = tmp_path / "bad.osm"
    bad.write_text("<osm><node id='1' lat='x'")
    with pytest.raises(InputError) as e:
        import_file(bad)
    assert "bad.osm" in str(e.value)
