"""GeoJSON in lon/lat, a Shapefile and a GeoPackage written by pyogrio, and the GeoJSON round trip.

Areas of the projected scene are checked against the geodesic areas pyproj's Geod computes on the WGS 84
ellipsoid (relative 1e-4: the local transverse Mercator's scale error over 200 m is far below it).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon

from core.export.geojson import to_geojson
from core.importers import ImportOptions, import_file
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

import pyproj
GEOD = pyproj.Geod(ellps="WGS84")
LON, LAT = 6.9578, 50.9413          # a square near Cologne cathedral
D = 0.0004                          # about 28 m east-west, 44 m north-south


def sq(x0, y0, x1, y1):
    return [[LON + x0 * D, LAT + y0 * D], [LON + x1 * D, LAT + y0 * D], [LON + x1 * D, LAT + y1 * D],
            [LON + x0 * D, LAT + y1 * D], [LON + x0 * D, LAT + y0 * D]]


def feature(geom_type, coords, **props):
    return {"type": "Feature", "properties": props, "geometry": {"type": geom_type, "coordinates": coords}}


COLLECTION = {"type": "FeatureCollection", "features": [
    # A building with a courtyard: an obstacle with a hole, which the scene format splits.
    feature("Polygon", [sq(0, 0, 3, 3), sq(1, 1, 2, 2)[::-1]], layer="buildings", id="b1"),
    # Two overlapping buildings: merged.
    feature("Polygon", [sq(4, 0, 6, 1)], layer="buildings", id="b2"),
    feature("Polygon", [sq(5, 0.5, 7, 2)], layer="buildings", id="b3"),
    # A self-intersecting plaza (a bow tie): made valid.
    feature("Polygon", [[[LON, LAT + 4 * D], [LON + 2 * D, LAT + 5 * D], [LON + 2 * D, LAT + 4 * D],
                         [LON, LAT + 5 * D], [LON, LAT + 4 * D]]], layer="plaza", id="p1"),
    feature("Polygon", [sq(3, 4, 7, 5)], layer="grass", id="g1"),
    # A sliver far below the 0.01 m^2 limit.
    feature("Polygon", [[[LON + 8 * D, LAT], [LON + 8 * D + 1e-9, LAT], [LON + 8 * D, LAT + 1e-9],
                         [LON + 8 * D, LAT]]], layer="grass", id="g2"),
    feature("LineString", [[LON + 0.5 * D, LAT + 3.5 * D], [LON + 7.5 * D, LAT + 3.5 * D]], layer="route", id="r1"),
    feature("Point", [LON + D, LAT + 3 * D], layer="trees", id="t1"),
]}


def geodesic_area(ring) -> float:
    a, _ = GEOD.geometry_area_perimeter(Polygon(ring))
    return abs(a)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    path = tmp_path_factory.mktemp("geo") / "square.geojson"
    path.write_text(json.dumps(COLLECTION))
    return import_file(path, ["plaza=paving"])


def test_lonlat_is_projected_and_cleaned(result):
    s = result.scene
    assert_valid(s)
    assert "tmerc" in result.report.notes[0] and "(0, 0) is lon" in result.report.notes[0]
    ch = "\n".join(result.report.changes)
    assert "made 1 invalid polygon(s) valid: feature 'p1'" in ch
    assert "merged 3 obstacle polygon(s) into 2" in ch
    assert "split 1 obstacle(s) with holes" in ch
    assert "dropped 1 sliver(s) below 0.01 m2" in ch and "feature 'g2'" in ch
    assert "left 1 point feature(s) out" in ch and "feature 't1'" in ch
    assert s.bounds[:2] == (0.0, 0.0)
    assert len(s.routes) == 1 and len(s.routes[0].points) == 2


def test_areas_match_the_geodesic_areas(result):
    s = result.scene
    courtyard = geodesic_area(sq(0, 0, 3, 3)) - geodesic_area(sq(1, 1, 2, 2))
    pair = GEOD.geometry_area_perimeter(shapely.union(Polygon(sq(4, 0, 6, 1)), Polygon(sq(5, 0.5, 7, 2))))[0]
    assert obstacle_area(s) == pytest.approx(courtyard + abs(pair), rel=1e-4)
    areas = painted_areas(s)
    assert areas["grass"] == pytest.approx(geodesic_area(sq(3, 4, 7, 5)), rel=1e-4)
    # The bow tie's valid form is its two triangles: half the square.
    assert areas["paving"] == pytest.approx(geodesic_area(sq(0, 4, 2, 5)) / 2, rel=1e-4)


def test_utm_gives_the_same_areas(tmp_path):
    path = tmp_path / "square.geojson"
    path.write_text(json.dumps(COLLECTION))
    r = import_file(path, ["plaza=paving"], ImportOptions(projection="utm"))
    assert "utm" in r.report.notes[0]
    assert painted_areas(r.scene)["grass"] == pytest.approx(geodesic_area(sq(3, 4, 7, 5)), rel=2e-3)


def test_geojson_round_trip(result, tmp_path):
    """GeoJSON -> scene -> GeoJSON -> scene: the second scene is the first."""
    path = tmp_path / "scene.geojson"
    path.write_text(json.dumps(to_geojson(result.scene)))
    back = import_file(path).scene
    first = result.scene
    assert back.bounds == first.bounds
    assert back.obstacles == first.obstacles
    assert back.terrains == first.terrains
    assert back.routes == first.routes
    assert [t.id for t in back.terrain_types] == [t.id for t in first.terrain_types]
    assert [t.color for t in back.terrain_types] == [t.color for t in first.terrain_types]
    assert to_geojson(back) == to_geojson(first)              # and the GeoJSON written again is the same document


def test_shapefile_and_geopackage_through_pyogrio(tmp_path):
    import pyogrio

    polys = [Polygon(sq(0, 0, 3, 3)), Polygon(sq(3, 4, 7, 5))]
    shp = tmp_path / "blocks.shp"
    pyogrio.raw.write(str(shp), shapely.to_wkb(np.array(polys, dtype=object)),
                      field_data=[np.array(["buildings", "grass"], dtype=object)], fields=["layer"],
                      geometry_type="Polygon", crs="EPSG:4326", driver="ESRI Shapefile")
    r = import_file(shp)
    assert_valid(r.scene)
    assert obstacle_area(r.scene) == pytest.approx(geodesic_area(sq(0, 0, 3, 3)), rel=1e-4)
    assert painted_areas(r.scene)["grass"] == pytest.approx(geodesic_area(sq(3, 4, 7, 5)), rel=1e-4)
    # A GeoPackage in UTM zone 32N (metres): taken as is, no projection; the layer name is a key.
    utm = [shapely.box(350000, 5640000, 350030, 5640020), LineString([(350000, 5640025), (350040, 5640025)])]
    gpkg = tmp_path / "site.gpkg"
    pyogrio.raw.write(str(gpkg), shapely.to_wkb(np.array(utm[:1], dtype=object)), field_data=[], fields=[],
                      layer="walls", geometry_type="Polygon", crs="EPSG:32632", driver="GPKG")
    pyogrio.raw.write(str(gpkg), shapely.to_wkb(np.array(utm[1:], dtype=object)), field_data=[], fields=[],
                      layer="routes", geometry_type="LineString", crs="EPSG:32632", driver="GPKG", append=True)
    r = import_file(gpkg)
    assert_valid(r.scene)
    assert obstacle_area(r.scene) == pytest.approx(600.0, abs=1e-6)
    assert r.scene.routes[0].points == [(350000.0, 5640025.0), (350040.0, 5640025.0)]


def test_bad_geojson_names_the_feature(tmp_path):
    bad = {"type": "FeatureCollection", "features": [
        feature("Polygon", [sq(0, 0, 1, 1)], layer="buildings"),
        {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[1, 2]]}},
    ]}
    path = tmp_path / "bad.geojson"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "features[1].geometry" in str(e.value)
    untyped = {"type": "Feature", "id": "x9", "properties": {"role": "terrain"},
               "geometry": {"type": "Polygon", "coordinates": [sq(0, 0, 1, 1)]}}
    path.write_text(json.dumps(untyped))
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "feature 'x9' (features[0]): role 'terrain' needs a 'type' property" in str(e.value)


def test_a_shipped_scene_survives_export_and_import(tmp_path):
    """scene -> GeoJSON -> scene: the same bounds, terrain types, obstacle area and painted area per type."""
    from pathlib import Path

    from core.scene.io import load_scene

    scene = load_scene(Path(__file__).resolve().parents[3] / "scenes" / "mckenna_road.json")
    path = tmp_path / "road.geojson"
    path.write_text(json.dumps(to_geojson(scene)))
    back = import_file(path).scene
    assert_valid(back)
    assert back.bounds == scene.bounds and back.terrain_types == scene.terrain_types
    assert back.default_terrain == scene.default_terrain and back.name == scene.name
    assert back.profiles == scene.profiles
    assert obstacle_area(back) == pytest.approx(obstacle_area(scene), abs=1e-6)
    want, got = painted_areas(scene), painted_areas(back)
    assert got.keys() == want.keys()
    assert all(got[k] == pytest.approx(want[k], abs=1e-6) for k in want)
    assert [r.points for r in back.routes] == [r.points for r in scene.routes]


def _dynamic(scene) -> list:
    """Each obstacle that comes and goes or moves: its id, outline (shapely, any start and winding), schedule and
    motion."""
    return [(o.id, shapely.normalize(Polygon(o.polygon)).wkt, o.appears, o.vanishes, o.path, o.speed, o.loop,
             o.turns) for o in scene.obstacles if o.scheduled or o.moving]


def test_scheduled_and_moving_obstacles_survive_export_and_import(tmp_path):
    """scenes/city_traffic.json -> GeoJSON -> scene: the roadworks keep their schedule and the car its path,
    speed, loop and turns, each one obstacle under its own id although the car's path crosses others; with
    --scale the path and the speed scale with the outline. A bad motion property is refused naming the feature."""
    from pathlib import Path

    from core.scene.io import load_scene

    scene = load_scene(Path(__file__).resolve().parents[3] / "scenes" / "city_traffic.json")
    path = tmp_path / "traffic.geojson"
    doc = to_geojson(scene)
    path.write_text(json.dumps(doc))
    r = import_file(path)
    assert_valid(r.scene)
    assert _dynamic(r.scene) == _dynamic(scene) and len(_dynamic(scene)) == 2
    assert obstacle_area(r.scene) == pytest.approx(obstacle_area(scene), abs=1e-6)
    # Scaled (without the networks and agents, which --scale leaves as they are).
    alone = tmp_path / "alone.geojson"
    alone.write_text(json.dumps(dict(doc, features=[f for f in doc["features"]
                                                    if f["properties"]["role"] not in ("network", "agent")])))
    scaled = import_file(alone, opts=ImportOptions(scale=2.0)).scene
    car = next(o for o in scaled.obstacles if o.id == "car")
    assert car.speed == 16.0 and car.path == [(2 * x, 2 * y) for x, y in scene.obstacles[-1].path]
    k = next(i for i, f in enumerate(doc["features"]) if f["properties"].get("id") == "car")
    doc["features"][k]["properties"]["speed"] = -3
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"features\[%d\].*speed" % k):
        import_file(path)
