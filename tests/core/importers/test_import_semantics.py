"""Each format's own semantics on generated files, against the format's own library as the reference.

SVG: areas against the shapes svgelements itself draws (sampled densely); <use>, <symbol>, nested transforms,
zero-radius arcs, units and viewBox. DXF: areas against ezdxf's own expansion of INSERT and MINSERT (its
``multi_insert`` and ``virtual_entities``) and its own paths, flattened far finer than the import. Tiled: groups of
any depth and the chunks of infinite maps. GeoJSON: 3D coordinates and ``--crs``. OSM: multipolygon relations
against pyproj's geodesic areas. An import matches its reference within the flattening bound (perimeter x
tolerance) plus the grid's snapping.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from core.importers import ImportOptions, import_file
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

import ezdxf
import svgelements as se

TOL = 0.01
GRID = 0.001


def within(got: float, want: float, perimeter: float, tol: float = TOL) -> bool:
    """Whether an imported area matches its reference within the flattening bound plus the grid's snapping."""
    return abs(got - want) <= perimeter * (tol + GRID) + 1e-9


# -- SVG ------------------------------------------------------------------------------------------------------------
def svgelements_union(path) -> shapely.Geometry:
    """The union of every shape svgelements draws from ``path`` (y flipped against the page height, one user unit
    = one metre), each outline sampled densely."""
    doc = se.SVG.parse(str(path), reify=True)
    h = float(doc.height)
    polys = []
    for el in doc.elements():
        if not isinstance(el, se.Shape):
            continue
        p = abs(se.Path(el))
        for sub in p.as_subpaths():
            sp = se.Path(sub)
            if len(sp) < 2:
                continue
            pts = sp.npoint(np.linspace(0, 1, 4000))
            poly = shapely.make_valid(Polygon(np.column_stack([pts[:, 0], h - pts[:, 1]])))
            polys.append(poly)
    return shapely.union_all(polys)


def random_svg(rng: random.Random) -> tuple[str, int]:
    """A drawing of rectangles, circles, ellipses and arcs in nested transformed groups, <use> instances (href and
    xlink:href, of shapes and of groups) and defs; returns the text and how many shapes it draws."""
    def shape(k: int) -> str:
        x, y = rng.uniform(5, 80), rng.uniform(5, 80)
        kind = rng.choice(["rect", "circle", "ellipse", "path"])
        if kind == "rect":
            return f'<rect id="s{k}" x="{x:.3f}" y="{y:.3f}" width="{rng.uniform(1, 9):.3f}" ' \
                   f'height="{rng.uniform(1, 9):.3f}"/>'
        if kind == "circle":
            return f'<circle id="s{k}" cx="{x:.3f}" cy="{y:.3f}" r="{rng.uniform(0.5, 5):.3f}"/>'
        if kind == "ellipse":
            return f'<ellipse id="s{k}" cx="{x:.3f}" cy="{y:.3f}" rx="{rng.uniform(1, 6):.3f}" ' \
                   f'ry="{rng.uniform(0.5, 3):.3f}"/>'
        r = rng.uniform(1, 4)
        return f'<path id="s{k}" d="M {x:.3f} {y:.3f} h {2 * r:.3f} a {r:.3f} {r:.3f} 0 0 1 {-2 * r:.3f} 0 z"/>'

    def transform() -> str:
        return rng.choice([f"translate({rng.uniform(-5, 5):.3f},{rng.uniform(-5, 5):.3f})",
                           f"rotate({rng.uniform(-40, 40):.2f} 50 50)", f"scale({rng.uniform(0.7, 1.2):.3f})",
                           f"matrix(1 0 {rng.uniform(-0.3, 0.3):.3f} 1 0 0)"])

    parts, drawn, k = [], 0, 0
    defs = []
    for _ in range(3):
        k += 1
        defs.append(shape(k))
    defs.append(f'<g id="grp">{shape(100)}{shape(101)}</g>')
    for depth in range(1, 4):
        inner = ""
        for _ in range(rng.randint(1, 3)):
            k += 1
            inner += shape(k)
            drawn += 1
        parts.append(f'<g transform="{transform()}">' * depth + inner + "</g>" * depth)
    for j in range(rng.randint(1, 4)):
        ref = rng.choice(["#s1", "#s2", "#s3", "#grp"])
        attr = rng.choice(["href", "xlink:href"])
        parts.append(f'<use id="u{j}" {attr}="{ref}" x="{rng.uniform(-5, 5):.3f}" y="{rng.uniform(-5, 5):.3f}" '
                     f'transform="{transform()}"/>')
        drawn += 2 if ref == "#grp" else 1
    text = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" '
            'height="100" viewBox="0 0 100 100">' + f"<defs>{''.join(defs)}</defs>" + "".join(parts) + "</svg>")
    return text, drawn


@pytest.mark.parametrize("seed", range(6))
def test_svg_areas_match_svgelements(seed, tmp_path):
    """Random drawings with nested transforms and <use>: the obstacle area is the area of what svgelements
    draws, within the flattening bound."""
    text, drawn = random_svg(random.Random(seed))
    path = tmp_path / "d.svg"
    path.write_text(text)
    want = svgelements_union(path)
    r = import_file(path, ["(no layer)=obstacle"], ImportOptions(tolerance=TOL, min_area=0.0))
    assert_valid(r.scene)
    assert within(obstacle_area(r.scene), want.area, want.length), (obstacle_area(r.scene), want.area)
    assert r.report.roles == {"obstacle": drawn}


def test_svg_symbol_is_drawn_only_through_use(tmp_path):
    """A <symbol> (outside <defs>) is never drawn itself; each <use> of it is, with its x, y and transform; its
    viewBox scales it into the use's width and height."""
    path = tmp_path / "sym.svg"
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" '
        'height="100"><symbol id="s"><rect id="inner" width="5" height="5"/></symbol>'
        '<symbol id="v" viewBox="0 0 10 10"><rect id="cell" width="10" height="10"/></symbol>'
        '<use href="#s" x="10" y="10"/><use xlink:href="#s" x="30" y="10" transform="scale(2)"/>'
        '<use href="#v" x="10" y="60" width="20" height="20"/></svg>')
    r = import_file(path)
    pieces = sorted((round(Polygon(o.polygon).area, 6), Polygon(o.polygon).bounds) for o in r.scene.obstacles)
    assert pieces == [(25.0, (10.0, 85.0, 15.0, 90.0)), (100.0, (60.0, 70.0, 70.0, 80.0)),
                      (400.0, (10.0, 20.0, 30.0, 40.0))]
    left = dict(r.report.left_out)
    assert "inside <symbol>" in left["rect 'inner'"] and "inside <symbol>" in left["rect 'cell'"]


def test_svg_zero_radius_arc_is_a_straight_line(tmp_path):
    path = tmp_path / "arc.svg"
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
                    '<path id="sq" d="M 10 10 L 20 10 A 0 0 0 0 1 20 20 L 10 20 Z"/>'
                    '<path id="flat" d="M 40 10 L 50 10 A 5 0 0 0 1 50 20 L 40 20 Z"/></svg>')
    r = import_file(path)
    assert obstacle_area(r.scene) == pytest.approx(200.0, abs=1e-9)


@pytest.mark.parametrize("width, viewbox, unit_m", [("20cm", "0 0 200 100", 0.001), ("4in", None, 0.0254 / 96),
                                                    ("100", "0 0 50 25", 1.0), ("300pt", "0 0 300 150", 0.0254 / 72)])
def test_svg_units_and_viewbox(width, viewbox, unit_m, tmp_path):
    """A rectangle's imported size is its size in user units times the metres per user unit the root's width and
    viewBox give."""
    vb = f' viewBox="{viewbox}"' if viewbox else ""
    num = float("".join(c for c in width if c.isdigit() or c == "."))
    path = tmp_path / "u.svg"
    path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{num / 2}'
                    f'{width.lstrip("0123456789.")}"{vb}><rect x="10" y="5" width="20" height="10"/></svg>')
    r = import_file(path, opts=ImportOptions(grid=1e-9, min_area=0.0))
    assert obstacle_area(r.scene) == pytest.approx(200 * unit_m ** 2, rel=1e-5)


@pytest.mark.parametrize("size", ["0", "1e-300mm", "-5"])
def test_svg_without_size_is_refused_naming_the_root(size, tmp_path):
    path = tmp_path / "z.svg"
    path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 10 10">'
                    '<rect width="5" height="5"/></svg>')
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "<svg>" in str(e.value)


# -- DXF ------------------------------------------------------------------------------------------------------------
def ezdxf_union(path) -> shapely.Geometry:
    """The union of the closed outlines ezdxf itself gives for a drawing's model space: INSERT and MINSERT expanded
    with its own ``multi_insert`` / ``virtual_entities``, curves from its own paths at 1e-5; the pieces ezdxf
    explodes a non-uniformly scaled block's bulged polyline into are closed into faces (shapely.polygonize)."""
    from ezdxf import path as dxfpath

    doc = ezdxf.readfile(str(path))
    polys, lines = [], []

    def walk(entities):
        for e in entities:
            if e.dxftype() == "INSERT":
                for ref in (e.multi_insert() if e.mcount > 1 else [e]):
                    walk(ref.virtual_entities())
            elif e.dxftype() == "HATCH":
                rings = [Polygon([(v.x, v.y) for v in p.flattening(1e-5)]) for p in dxfpath.from_hatch(e)]
                area = rings[0]
                for ring in rings[1:]:
                    area = area.symmetric_difference(ring)
                polys.append(area)
            else:
                pts = [(v.x, v.y) for v in dxfpath.make_path(e).flattening(1e-5)]
                if len(pts) >= 4 and np.allclose(pts[0], pts[-1]):
                    polys.append(shapely.make_valid(Polygon(pts)))
                else:
                    lines.append(shapely.LineString(pts))

    walk(doc.modelspace())
    if lines:
        lines = list(shapely.set_precision(np.asarray(lines, dtype=object), 1e-6))
        polys += list(shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.union_all(lines)))))
    return shapely.union_all(polys)


def random_dxf(rng: random.Random, path) -> None:
    doc = ezdxf.new(units=6)
    inner = doc.blocks.new("INNER")
    inner.add_lwpolyline([(0, 0, 0, 0, rng.uniform(-1, 1)), (2, 0, 0, 0, 0), (2, 1.5, 0, 0, rng.uniform(-0.5, 0.5)),
                          (0, 1.5, 0, 0, 0)], format="xyseb", close=True)
    outer = doc.blocks.new("OUTER")
    outer.add_circle((0, 0), rng.uniform(0.3, 0.9))
    outer.add_blockref("INNER", (1.5, -0.5), dxfattribs={"rotation": rng.uniform(0, 90),
                                                         "xscale": rng.uniform(0.5, 1.5),
                                                         "yscale": rng.uniform(0.5, 1.5)})
    msp = doc.modelspace()
    for i in range(3):
        msp.add_blockref("OUTER", (10 + i * 8, 10 + rng.uniform(0, 5)), dxfattribs={"rotation": rng.uniform(0, 360)})
    arr = msp.add_blockref("INNER", (5, 40), dxfattribs={"rotation": rng.uniform(0, 30)})
    arr.dxf.row_count, arr.dxf.column_count = 3, 3
    arr.dxf.row_spacing, arr.dxf.column_spacing = 4.0, 5.0
    msp.add_ellipse((50, 50), major_axis=(rng.uniform(2, 5), 1), ratio=rng.uniform(0.3, 0.9))
    fit = [(60 + rng.uniform(-1, 1), 10), (66, 12 + rng.uniform(-1, 1)), (68, 18), (62, 20), (58, 15)]
    msp.add_spline(fit + fit[:1])                             # through its fit points back to the first
    hatch = msp.add_hatch()
    hatch.paths.add_polyline_path([(70, 30), (85, 30), (85, 45), (70, 45)], is_closed=True)
    hatch.paths.add_polyline_path([(74, 34), (80, 34), (80, 40), (74, 40)], is_closed=True)
    doc.saveas(path)


@pytest.mark.parametrize("seed", range(4))
def test_dxf_areas_match_ezdxf(seed, tmp_path):
    """Nested blocks with rotations and scales, a 3 x 3 MINSERT, bulges, an ellipse, a closed spline and a hatch
    with a hole: the obstacle area is what ezdxf's own expansion and paths give."""
    path = tmp_path / "d.dxf"
    random_dxf(random.Random(seed), path)
    want = ezdxf_union(path)
    r = import_file(path, ["0=obstacle"], ImportOptions(tolerance=TOL, min_area=0.0))
    assert_valid(r.scene)
    assert within(obstacle_area(r.scene), want.area, want.length), (obstacle_area(r.scene), want.area)


def test_minsert_gives_every_copy(tmp_path):
    doc = ezdxf.new(units=6)
    doc.blocks.new("SQ").add_lwpolyline([(0, 0), (1, 0), (1, 1), (0, 1)], close=True)
    ins = doc.modelspace().add_blockref("SQ", (0, 0), dxfattribs={"layer": "walls"})
    ins.dxf.row_count, ins.dxf.column_count, ins.dxf.row_spacing, ins.dxf.column_spacing = 3, 3, 2, 2
    doc.saveas(tmp_path / "m.dxf")
    r = import_file(tmp_path / "m.dxf")
    assert len(r.scene.obstacles) == 9 and obstacle_area(r.scene) == pytest.approx(9.0)


def test_truncated_dxf_is_refused(tmp_path):
    doc = ezdxf.new()
    doc.modelspace().add_lwpolyline([(0, 0), (1, 0), (1, 1)], close=True)
    doc.saveas(tmp_path / "a.dxf")
    text = (tmp_path / "a.dxf").read_text()
    for cut in (0.1, 0.5, 0.97):
        (tmp_path / "t.dxf").write_text(text[:int(len(text) * cut)])
        with pytest.raises(InputError) as e:
            import_file(tmp_path / "t.dxf")
        assert "not a readable DXF file" in str(e.value)


# -- Tiled ----------------------------------------------------------------------------------------------------------
def test_tiled_objects_in_deep_groups_keep_their_offsets(tmp_path):
    """Objects 100 groups down (each group offset by 1 px) are imported where their offsets put them, in TMX at
    3,000 groups too."""
    depth = 100
    layer = {"type": "objectgroup", "name": "Walls", "objects": [{"id": 1, "x": 0, "y": 0, "width": 32,
                                                                  "height": 32}]}
    for _ in range(depth):
        layer = {"type": "group", "name": "g", "offsetx": 1, "offsety": 0, "layers": [layer]}
    m = {"type": "map", "orientation": "orthogonal", "width": 10, "height": 10, "tilewidth": 32, "tileheight": 32,
         "layers": [layer]}
    (tmp_path / "deep.tmj").write_text(json.dumps(m))
    s = import_file(tmp_path / "deep.tmj").scene
    assert Polygon(s.obstacles[0].polygon).bounds == pytest.approx((depth / 32, 9.0, 1 + depth / 32, 10.0),
                                                                   abs=1e-3)
    tmx = ('<map orientation="orthogonal" width="10" height="10" tilewidth="32" tileheight="32">' + "<group>" * 3000
           + '<objectgroup name="Walls"><object id="7" x="32" y="32" width="64" height="64"/></objectgroup>'
           + "</group>" * 3000 + "</map>")
    (tmp_path / "deep.tmx").write_text(tmx)
    assert obstacle_area(import_file(tmp_path / "deep.tmx").scene) == pytest.approx(4.0)


@pytest.mark.parametrize("encoding", ["csv", "base64", "zlib", "gzip"])
def test_tiled_tile_layers_and_chunks(encoding, tmp_path):
    """An infinite map's tile layer in two chunks: each non-empty cell is one map tile of its tile's class; the
    area is the number of cells."""
    import base64
    import gzip
    import struct
    import zlib

    rng = np.random.default_rng(3)
    a = (rng.random((16, 16)) < 0.3).astype(int) * 1 + (rng.random((16, 16)) < 0.1).astype(int) * 2
    a[a == 3] = 1
    b = np.rot90(a).copy()

    def data(cells):
        flat = [int(v) for v in cells.ravel()]
        if encoding == "csv":
            return flat
        raw = struct.pack(f"<{len(flat)}I", *flat)
        raw = zlib.compress(raw) if encoding == "zlib" else gzip.compress(raw) if encoding == "gzip" else raw
        return base64.b64encode(raw).decode()

    layer = {"type": "tilelayer", "name": "Ground", "encoding": "csv" if encoding == "csv" else "base64",
             "compression": encoding if encoding in ("zlib", "gzip") else "",
             "chunks": [{"x": -16, "y": 0, "width": 16, "height": 16, "data": data(a)},
                        {"x": 0, "y": 0, "width": 16, "height": 16, "data": data(b)}]}
    m = {"type": "map", "orientation": "orthogonal", "infinite": True, "width": 0, "height": 0, "tilewidth": 16,
         "tileheight": 16, "tilesets": [{"firstgid": 1, "tiles": [{"id": 0, "class": "wall"},
                                                                  {"id": 1, "class": "mud"}]}],
         "layers": [layer]}
    (tmp_path / "inf.tmj").write_text(json.dumps(m))
    r = import_file(tmp_path / "inf.tmj", opts=ImportOptions(min_area=0.0))
    assert obstacle_area(r.scene) == pytest.approx(float((a == 1).sum() + (b == 1).sum()))
    assert painted_areas(r.scene)["mud"] == pytest.approx(float((a == 2).sum() + (b == 2).sum()))


# -- GeoJSON and OSM -----------------------------------------------------------------------------------------------
def test_geojson_3d_coordinates_drop_z_and_say_so(tmp_path):
    sq = [[10, 10, 3], [30, 10, 3], [30, 20, 4], [10, 20, 4], [10, 10, 3]]
    doc = {"type": "FeatureCollection", "miran": {"units": "m"}, "features": [
        {"type": "Feature", "id": "w", "properties": {"role": "obstacle"},
         "geometry": {"type": "Polygon", "coordinates": [sq]}}]}
    (tmp_path / "z.geojson").write_text(json.dumps(doc))
    r = import_file(tmp_path / "z.geojson")
    assert obstacle_area(r.scene) == pytest.approx(200.0)
    assert any("dropped the z coordinate of 1 feature(s)" in n and "feature 'w'" in n for n in r.report.notes)


@pytest.mark.parametrize("crs, scale", [("metres", 1.0), ("EPSG:32632", 1.0), ("EPSG:2263", 0.3048006096)])
def test_geojson_crs_option(crs, scale, tmp_path):
    """--crs says what the coordinates are: a local-metre file read as metres instead of degrees, or a projected
    CRS converted from its unit (US survey feet for EPSG:2263)."""
    sq = [[10, 10], [30, 10], [30, 20], [10, 20], [10, 10]]
    doc = {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"layer": "walls"},
                                                      "geometry": {"type": "Polygon", "coordinates": [sq]}}]}
    (tmp_path / "m.geojson").write_text(json.dumps(doc))
    as_degrees = import_file(tmp_path / "m.geojson").scene
    assert as_degrees.bounds[2] - as_degrees.bounds[0] > 1e6
    s = import_file(tmp_path / "m.geojson", opts=ImportOptions(crs=crs)).scene
    assert obstacle_area(s) == pytest.approx(200.0 * scale ** 2, rel=1e-4)   # and the 1 mm grid


def test_osm_multipolygon_matches_the_geodesic_area(tmp_path):
    """A multipolygon relation (an outer ring of two ways, one inner ring) is the geodesic area of outer minus
    inner, as pyproj's Geod computes it."""
    import pyproj

    outer = [(7.0, 50.0), (7.002, 50.0), (7.002, 50.0015), (7.0, 50.0015)]
    inner = [(7.0005, 50.0004), (7.0012, 50.0004), (7.0012, 50.001), (7.0005, 50.001)]
    nodes = "".join(f'<node id="{i + 1}" lon="{x}" lat="{y}"/>' for i, (x, y) in enumerate(outer + inner))
    ways = ('<way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/></way>'
            '<way id="2"><nd ref="3"/><nd ref="4"/><nd ref="1"/></way>'
            '<way id="3"><nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="8"/><nd ref="5"/></way>')
    rel = ('<relation id="9"><member type="way" ref="1" role="outer"/><member type="way" ref="2" role="outer"/>'
           '<member type="way" ref="3" role="inner"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/>'
           '</relation>')
    (tmp_path / "mp.osm").write_text(f"<?xml version='1.0'?><osm version='0.6'>{nodes}{ways}{rel}</osm>")
    geod = pyproj.Geod(ellps="WGS84")
    want = abs(geod.geometry_area_perimeter(Polygon(outer))[0]) - abs(geod.geometry_area_perimeter(Polygon(inner))[0])
    r = import_file(tmp_path / "mp.osm")
    assert obstacle_area(r.scene) == pytest.approx(want, rel=1e-4)


def test_osm_way_with_a_missing_node_is_named(tmp_path):
    nodes = '<node id="1" lat="50.0" lon="7.0"/><node id="2" lat="50.0" lon="7.001"/>' \
            '<node id="3" lat="50.001" lon="7.001"/><node id="4" lat="50.001" lon="7.0"/>'
    ways = ('<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="building" '
            'v="yes"/></way><way id="11"><nd ref="1"/><nd ref="404"/><nd ref="3"/><tag k="highway" v="footway"/>'
            '</way><way id="12"><nd ref="2"/><nd ref="405"/><nd ref="4"/><nd ref="2"/><tag k="building" v="yes"/>'
            '</way>')
    (tmp_path / "m.osm").write_text(f"<?xml version='1.0'?><osm version='0.6'>{nodes}{ways}</osm>")
    r = import_file(tmp_path / "m.osm")
    left = dict(r.report.left_out)
    assert "node 404 is missing" in left["way 11"] and "could not be assembled" in left["way 12"]
    assert any("way 11" in line for line in r.report.lines())
    assert math.isfinite(obstacle_area(r.scene))


# -- XML entities ---------------------------------------------------------------------------------------------------
LAUGHS = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
          + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)) + "]>")
XXE = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/hostname">]>'


@pytest.mark.parametrize("suffix, body", [
    (".svg", '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>{}</text>'
             '<rect width="5" height="5" class="{}"/></svg>'),
    (".tmx", '<map orientation="orthogonal" width="9" height="9" tilewidth="1" tileheight="1"><objectgroup '
             'name="{}"><object id="1" x="1" y="1" width="3" height="3" type="{}"/></objectgroup></map>'),
])
@pytest.mark.parametrize("head, ref", [(LAUGHS, "&i;"), (XXE, "&x;")])
def test_xml_entities_are_never_expanded(suffix, body, head, ref, tmp_path):
    """A billion-laughs DTD and an external entity: the file is refused (expat's amplification limit, and no
    external entity is ever loaded), never expanded."""
    path = tmp_path / f"e{suffix}"
    path.write_text(head + body.format(ref, ref))
    with pytest.raises(InputError) as e:
        import_file(path)
    assert any(w in str(e.value) for w in ("amplification", "undefined entity", "external entity")), str(e.value)
