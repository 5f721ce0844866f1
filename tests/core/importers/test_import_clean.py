"""The cleaning step on features built in the test, the role map, and the messages for missing extras."""

from __future__ import annotations

import sys

import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Polygon

from core.importers import ImportOptions, import_file
from core.importers.clean import build_scene
from core.importers.features import Feature, Role, Source, guess_role, parse_role, parse_role_map, resolve_role
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas


def feat(geom, layer, ident, role=None):
    return Feature(geom, (layer,), f"layer {layer!r}, object {ident}", layer, role)


def test_roles_from_words_maps_and_the_file():
    assert guess_role(("Walls",)) == Role("obstacle")
    assert guess_role(("wet sand", "Ground")) == Role("terrain", "wet-sand")
    assert guess_role(("Routes",)) == Role("route")
    assert guess_role(()) == Role("obstacle")
    assert parse_role("terrain:Mud") == Role("terrain", "mud") == parse_role("mud")
    m = parse_role_map(["highway=footway=sidewalk", "Walls=ignore"])
    assert m == {"highway=footway": Role("terrain", "sidewalk"), "walls": Role("ignore")}
    with pytest.raises(InputError) as e:
        parse_role_map(["Walls", "=obstacle", "Mud=terrain:", "=terrain"])
    assert len(e.value.problems) == 3
    # The features without a layer: "(no layer)" as the preview shows them, or an empty name.
    assert parse_role_map(["(no layer)=route"]) == parse_role_map(["=route"]) == {"": Role("route")}
    assert resolve_role(Feature(shapely.Point(0, 0), (), "path 'p'"), {"": Role("route")}) == Role("route")
    assert resolve_role(Feature(shapely.Point(0, 0), ("walls",), "path 'p'"), {"": Role("route")}) == Role("obstacle")


def test_overlaps_holes_slivers_and_order_of_terrain():
    src = Source([
        feat(shapely.box(0, 0, 10, 10).difference(shapely.box(4, 4, 6, 6)), "walls", 1),
        feat(shapely.box(8, 0, 14, 2), "walls", 2),
        feat(shapely.box(20, 0, 20.05, 0.1), "walls", 3),                   # 0.005 m^2: a sliver
        feat(shapely.box(0, 20, 30, 30), "mud", 4),
        feat(shapely.box(10, 15, 20, 35), "sand", 5),                       # covers part of the mud
        feat(shapely.box(25, 20, 35, 25), "mud", 6),                        # later mud overlaps earlier mud
    ], "t")
    r = build_scene(src)
    s = r.scene
    assert_valid(s)
    assert all(not getattr(o, "holes", None) for o in s.obstacles)
    expect = shapely.union_all([shapely.box(0, 0, 10, 10).difference(shapely.box(4, 4, 6, 6)),
                                shapely.box(8, 0, 14, 2)])
    assert obstacle_area(s) == pytest.approx(expect.area, abs=1e-9)
    assert shapely.union_all([Polygon(o.polygon) for o in s.obstacles]).symmetric_difference(expect).area < 1e-9
    areas = painted_areas(s)
    assert areas["sand"] == pytest.approx(200.0)
    assert areas["mud"] == pytest.approx(300 - 100 + 50 - 25, abs=1e-9)    # less the sand; the 2nd mud less overlap
    ch = "\n".join(r.report.changes)
    assert "dropped 1 sliver(s)" in ch and "object 3" in ch
    assert "split 1 obstacle(s) with holes" in ch
    assert "merged 2 obstacle polygon(s) into 1" in ch
    assert "cut 1 terrain polygon(s)" in ch                            # the first mud, by the sand and the 2nd mud


def test_loose_lines_close_per_layer_and_the_rest_is_reported():
    sq = [((0, 0), (4, 0)), ((4, 0), (4, 4)), ((4, 4), (0, 4)), ((0, 4), (0, 0))]
    src = Source([feat(LineString(ab), "grass", k) for k, ab in enumerate(sq)]
                 + [feat(LineString([(10, 0), (12, 3)]), "grass", 9)], "t")
    r = build_scene(src)
    assert painted_areas(r.scene) == {"grass": pytest.approx(16.0)}
    assert any("object 9" in c and "bound no area" in c for c in r.report.changes)


def test_a_bad_result_names_the_source_element():
    src = Source([feat(shapely.box(0, 0, 10, 10), "walls", 7),
                  feat(LineString([(-5, 5), (5, 5), (15, 5)]), "route", 8)], "t")
    with pytest.raises(InputError) as e:
        build_scene(src, origin="plan.svg")
    text = str(e.value)
    assert text.startswith("plan.svg: ")
    assert "layer 'route', object 8 (routes[0].points[1])" in text and "inside obstacle 'o1'" in text


def test_nothing_left_is_an_error_that_says_what_went():
    with pytest.raises(InputError) as e:
        build_scene(Source([feat(shapely.box(0, 0, 1, 1), "x", 1, Role("ignore"))], "t"))
    assert "nothing left to import" in str(e.value)
    flat = Polygon([(0, 0), (5, 5), (10, 10)])                 # collinear: no area
    with pytest.raises(InputError) as e:
        build_scene(Source([feat(flat, "walls", 4)], "t"))
    lines = [str(p) for p in e.value.problems]
    assert "nothing left to import" in lines[0]
    assert any("dropped 1 sliver(s)" in x and "layer 'walls', object 4" in x for x in lines[1:])


def test_obstacles_filling_the_page_widen_the_bounds():
    r = build_scene(Source([feat(shapely.box(0, 0, 10, 10), "walls", 1)], "t", page=(0, 0, 10, 10)))
    assert_valid(r.scene)
    assert r.scene.bounds == (-1.0, -1.0, 11.0, 11.0)


@pytest.mark.parametrize("module, name", [("svgelements", "x.svg"), ("ezdxf", "x.dxf"), ("osmium", "x.osm"),
                                          ("pyogrio", "x.gpkg")])
def test_a_missing_library_names_the_extra(tmp_path, monkeypatch, module, name):
    path = tmp_path / name
    path.write_text("not read")
    monkeypatch.setitem(sys.modules, module, None)           # import raises ImportError
    with pytest.raises(InputError) as e:
        import_file(path)
    assert f"'{module}'" in str(e.value) and "pip install 'miran-studio[import]'" in str(e.value)


def test_options_and_formats_are_checked(tmp_path):
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "x.obj")
    assert "unknown file type '.obj'" in str(e.value)
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "x.svg", opts=ImportOptions(tolerance=0))
    assert "--tolerance" in str(e.value)


_coord = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 4))
_ring = st.lists(st.tuples(_coord, _coord), min_size=3, max_size=7)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_ring, st.sampled_from(["walls", "mud", "sand", "route", "hedge"])), min_size=1,
                max_size=8))
@pytest.mark.fuzz
def test_any_drawing_gives_a_valid_scene_or_names_the_element(shapes):
    """Random rings (self-intersecting, overlapping, degenerate) on obstacle and terrain layers, loose lines on a
    terrain layer and routes: the result validates, or the import fails naming a source element (a route through an
    obstacle) or saying nothing is left."""
    feats = []
    for k, (pts, layer) in enumerate(shapes):
        geom = LineString(pts) if layer in ("route", "hedge") else Polygon(pts)   # hedge: loose lines to close
        feats.append(feat(geom, layer, k))
    try:
        r = build_scene(Source(feats, "random"))
    except InputError as e:
        text = str(e)
        assert "nothing left to import" in text or ("layer 'route', object" in text and "(routes[" in text), text
        return
    _assert_no_sliver(r.scene)


def _assert_no_sliver(scene) -> None:
    """The scene validates, every obstacle is a valid polygon, and no obstacle is a sliver below the default
    --min-area: each piece of their union is at least 0.01 m2. A single obstacle may be thinner where it is a part
    of a larger one split to open its holes (the scene format's obstacles have none): the parts together are it."""
    assert_valid(scene)
    polys = [Polygon(o.polygon) for o in scene.obstacles]
    assert all(p.is_valid for p in polys)
    merged = shapely.union_all(polys)
    pieces = getattr(merged, "geoms", [merged]) if not merged.is_empty else []
    assert all(p.area >= 0.01 for p in pieces), [p.area for p in pieces]


def test_overlapping_walls_split_round_their_hole_keep_every_part():
    """Found by the fuzzing: two walls overlap round a hole; the union is split into hole-free parts, one of them
    0.004 m2. It stays (dropping it would open the obstacle); the union has no sliver."""
    shapes = [([(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)], "walls"),
              ([(0.0, 0.0), (1.0, 0.0), (0.0, 2.0), (0.5, 0.0), (0.0, 1.0)], "walls")]
    r = build_scene(Source([feat(Polygon(pts), layer, k) for k, (pts, layer) in enumerate(shapes)], "random"))
    _assert_no_sliver(r.scene)
    assert min(Polygon(o.polygon).area for o in r.scene.obstacles) < 0.01
