"""SVG import: an Inkscape drawing with layers, a sublayer, transforms, curves, a ring with a hole and a route.

The document is 2000 cm x 1000 cm with a 200 x 100 viewBox, so one user unit is 0.1 m; y is flipped. Areas are
checked against the exact shapes (shapely and pi r^2) within the flattening bound: perimeter x tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely import affinity
from shapely.geometry import Point, Polygon

from core.importers import ImportOptions, import_file
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

SVG = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
     xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
     width="2000cm" height="1000cm" viewBox="0 0 200 100">
  <sodipodi:namedview id="base" inkscape:document-units="cm"/>
  <g inkscape:groupmode="layer" inkscape:label="Walls" id="layer1" transform="translate(10,5)">
    <rect id="box" x="0" y="0" width="20" height="10"/>
    <rect id="turned" x="40" y="0" width="10" height="10" transform="rotate(45 45 5)"/>
    <circle id="pillar" cx="40" cy="40" r="5" transform="scale(2)"/>
    <path id="ring" d="M 120 10 L 160 10 L 160 50 L 120 50 Z M 130 20 L 130 40 L 150 40 L 150 20 Z"/>
    <g inkscape:groupmode="layer" inkscape:label="Mud" id="layer2">
      <ellipse id="puddle" cx="30" cy="70" rx="15" ry="8"/>
    </g>
  </g>
  <g inkscape:groupmode="layer" inkscape:label="Ground" id="layer3">
    <path id="lawn" class="grass" d="M 100 70 C 110 60 130 60 140 70 L 140 95 L 100 95 Z"/>
    <path id="walk" d="M 2 98 L 198 98"/>
  </g>
  <g inkscape:groupmode="layer" inkscape:label="Routes" id="layer4">
    <path id="r" d="M 5 95 L 60 95 L 90 60"/>
  </g>
</svg>
"""
UNIT = 0.1                       # metres per user unit
H = 100 * UNIT                   # page height, metres
TOL = 0.01


def m(x: float, y: float) -> tuple[float, float]:
    """A user-unit point of the page as a scene point (metres, y up)."""
    return (x * UNIT, H - y * UNIT)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    path = tmp_path_factory.mktemp("svg") / "level.svg"
    path.write_text(SVG)
    return import_file(path, ["Routes=route"], ImportOptions(tolerance=TOL))


def test_layers_become_roles_and_the_scene_validates(result):
    s = result.scene
    assert_valid(s)
    assert s.bounds == (0.0, 0.0, 20.0, 10.0)
    assert result.report.roles == {"obstacle": 4, "terrain:mud": 1, "terrain:grass": 1, "terrain:ground": 1,
                                   "route": 1}
    assert {t.id for t in s.terrain_types} == {"default", "mud", "grass"}
    assert [r.points for r in s.routes] == [[m(5, 95), m(60, 95), m(90, 60)]]
    # The open path of the Ground layer bounds no area: left out and reported by name.
    assert any("path 'walk'" in c for c in result.report.changes)


def test_transforms_units_and_flip(result):
    s = result.scene
    box = Polygon([m(10, 5), m(30, 5), m(30, 15), m(10, 15)])
    turned = affinity.rotate(shapely.box(*m(50, 15), *m(60, 5)), -45, origin=m(55, 10))
    pieces = [Polygon(o.polygon) for o in s.obstacles]
    assert any(p.equals_exact(box.normalize(), 1e-9) or p.symmetric_difference(box).area < 1e-9 for p in pieces)
    assert any(p.symmetric_difference(turned).area <= turned.length * 1e-3 for p in pieces)   # 1 mm grid
    # scale(2) after translate(10, 5): centre (90, 85) user units, radius 10.
    pillar = [p for p in pieces if p.distance(Point(m(90, 85))) == 0 and p.area < 4]
    assert len(pillar) == 1
    r = 10 * UNIT
    assert abs(pillar[0].area - math.pi * r * r) <= 2 * math.pi * r * TOL
    verts = np.asarray(pillar[0].exterior.coords)
    dist = np.hypot(verts[:, 0] - m(90, 85)[0], verts[:, 1] - m(90, 85)[1])
    assert np.all(np.abs(dist - r) <= 1e-3 + 1e-9)            # vertices on the circle, to the 1 mm grid


def test_a_ring_with_a_hole_is_split_into_hole_free_obstacles(result):
    s = result.scene
    # The path's rings after translate(10, 5): an outer square and a hole.
    ring = Polygon([m(130, 15), m(170, 15), m(170, 55), m(130, 55)], [[m(140, 25), m(140, 45), m(160, 45),
                                                                        m(160, 25)]])
    near = [Polygon(o.polygon) for o in s.obstacles if Polygon(o.polygon).intersects(ring)]
    assert len(near) >= 2                                      # the scene format's obstacles have no holes
    assert shapely.union_all(near).symmetric_difference(ring).area < 1e-6
    assert any("split 1 obstacle" in c for c in result.report.changes)
    exact = 2 * 1 + 1 * 1 + math.pi * 1.0 ** 2 + ring.area
    assert abs(obstacle_area(s) - exact) <= 2 * math.pi * 1.0 * TOL + 1e-4


def test_terrain_areas_match_the_source(result):
    areas = painted_areas(result.scene)
    a, b = 15 * UNIT, 8 * UNIT
    assert abs(areas["mud"] - math.pi * a * b) <= 2 * math.pi * max(a, b) * TOL
    # The lawn: a cubic from (100, 70) over (110, 60), (130, 60) to (140, 70), then straight edges.
    t = np.linspace(0, 1, 20001)[:, None]
    p0, p1, p2, p3 = (np.array(m(*q)) for q in ((100, 70), (110, 60), (130, 60), (140, 70)))
    curve = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3
    lawn = Polygon(np.vstack([curve, [m(140, 95), m(100, 95)]]))
    assert abs(areas["grass"] - lawn.area) <= lawn.length * TOL


def test_scale_overrides_the_document_units(tmp_path):
    path = tmp_path / "level.svg"
    path.write_text(SVG)
    r = import_file(path, ["Routes=route"], ImportOptions(scale=1.0))
    assert r.scene.bounds == (0.0, 0.0, 200.0, 100.0)
    assert abs(painted_areas(r.scene)["mud"] - math.pi * 15 * 8) <= 2 * math.pi * 15 * 0.01


def test_malformed_svg_is_a_located_error(tmp_path):
    path = tmp_path / "bad.svg"
    path.write_text("<svg xmlns='http://www.w3.org/2000/svg'><rect x='0' y='0' width='1'")
    with pytest.raises(InputError) as e:
        import_file(path)
    assert "SVG" in str(e.value) and "bad.svg" in str(e.value)


def test_walls_drawn_as_strokes_become_their_area(tmp_path):
    """An L-shaped wall drawn as one open path 4 units wide (stroke scaled by the group's transform) covers its
    stroke: flat ends, a mitred corner; an open path without a stroke stays a reported line."""
    path = tmp_path / "walls.svg"
    path.write_text("""<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
     width="100" height="100" viewBox="0 0 100 100">
      <g inkscape:groupmode="layer" inkscape:label="Walls" transform="scale(2)">
        <path id="wall" d="M 10 10 L 40 10 L 40 30" style="fill:none;stroke:#000;stroke-width:2"/>
        <path id="hint" d="M 5 45 L 45 45" style="fill:none"/>
      </g>
    </svg>""")
    r = import_file(path)
    assert_valid(r.scene)
    # y flipped: the wall runs from (20, 80) to (80, 80) to (80, 40), 4 m wide.
    want = shapely.buffer(shapely.LineString([(20, 80), (80, 80), (80, 40)]), 2.0, cap_style="flat",
                          join_style="mitre")
    (o,) = r.scene.obstacles
    assert Polygon(o.polygon).symmetric_difference(want).area < 1e-6
    assert obstacle_area(r.scene) == pytest.approx(60 * 4 + 40 * 4, abs=1e-6)   # two legs, the corner square shared
    ch = "\n".join(r.report.changes)
    assert "widened 1 stroked line(s) of layer 'Walls'" in ch and "path 'hint'" in ch
