"""Tiled import: one map written as Tiled JSON and as TMX (the same objects), read into the same scene.

32 x 32 px tiles, 20 x 10 tiles: one tile is one metre, y flipped against the map's 320 px height. Objects:
rectangles (one rotated), a polygon, an ellipse with a class, a polygon with a ``terrain`` property, a rectangle in
a group layer with an offset, a polyline with class ``route``, a tile object and a point (skipped).
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import pytest
import shapely
from shapely import affinity
from shapely.geometry import Polygon

from core.importers import import_file
from core.scene.problems import InputError

from importcheck import assert_valid, obstacle_area, painted_areas

TW = TH = 32
MAP = {
    "type": "map", "version": "1.10", "tiledversion": "1.10.2", "orientation": "orthogonal", "renderorder":
    "right-down", "width": 20, "height": 10, "tilewidth": TW, "tileheight": TH, "infinite": False,
    "layers": [
        {"type": "objectgroup", "id": 1, "name": "Walls", "visible": True, "opacity": 1, "x": 0, "y": 0,
         "objects": [
             {"id": 1, "name": "", "type": "", "x": 32, "y": 32, "width": 64, "height": 32, "rotation": 0,
              "visible": True},
             {"id": 2, "name": "", "type": "", "x": 320, "y": 64, "width": 64, "height": 32, "rotation": 30,
              "visible": True},
             {"id": 3, "name": "", "type": "", "x": 480, "y": 32, "width": 0, "height": 0, "rotation": 0,
              "visible": True, "polygon": [{"x": 0, "y": 0}, {"x": 64, "y": 0}, {"x": 32, "y": 64}]},
             {"id": 4, "name": "", "type": "", "gid": 5, "x": 0, "y": 320, "width": 32, "height": 32,
              "rotation": 0, "visible": True},
             {"id": 10, "name": "", "type": "", "x": 200, "y": 200, "width": 32, "height": 32, "rotation": 0,
              "visible": False},
         ]},
        {"type": "objectgroup", "id": 2, "name": "Ground", "visible": True, "opacity": 1, "x": 0, "y": 0,
         "objects": [
             {"id": 5, "name": "", "class": "mud", "x": 64, "y": 192, "width": 128, "height": 64, "rotation": 0,
              "ellipse": True, "visible": True},
             {"id": 6, "name": "", "type": "", "x": 320, "y": 192, "width": 0, "height": 0, "rotation": 0,
              "visible": True, "properties": [{"name": "terrain", "type": "string", "value": "sand"}],
              "polygon": [{"x": 0, "y": 0}, {"x": 96, "y": 0}, {"x": 96, "y": 64}, {"x": 0, "y": 64}]},
             {"id": 7, "name": "", "type": "", "x": 10, "y": 10, "width": 0, "height": 0, "rotation": 0,
              "point": True, "visible": True},
         ]},
        {"type": "group", "id": 3, "name": "Props", "offsetx": 64, "offsety": 32, "visible": True, "opacity": 1,
         "layers": [
             {"type": "objectgroup", "id": 4, "name": "Crates", "visible": True, "opacity": 1, "x": 0, "y": 0,
              "objects": [{"id": 8, "name": "", "type": "", "x": 448, "y": 160, "width": 32, "height": 32,
                           "rotation": 0, "visible": True,
                           "properties": [{"name": "role", "type": "string", "value": "obstacle"}]}]}]},
        {"type": "objectgroup", "id": 5, "name": "Paths", "visible": True, "opacity": 1, "x": 0, "y": 0,
         "objects": [{"id": 9, "name": "", "class": "route", "x": 16, "y": 304, "width": 0, "height": 0,
                      "rotation": 0, "visible": True,
                      "polyline": [{"x": 0, "y": 0}, {"x": 288, "y": 0}, {"x": 288, "y": -96}]}]},
    ],
}


def tmx_text(m: dict) -> str:
    """The same map in Tiled's XML format."""
    root = ET.Element("map", {k: str(m[k]).lower() if isinstance(m[k], bool) else str(m[k]) for k in
                              ("version", "tiledversion", "orientation", "renderorder", "width", "height",
                               "tilewidth", "tileheight")} | {"infinite": "0"})

    def objects(parent, layer):
        og = ET.SubElement(parent, "objectgroup", {"id": str(layer["id"]), "name": layer["name"]})
        for o in layer["objects"]:
            attrs = {k: str(o[k]) for k in ("id", "x", "y", "width", "height", "rotation", "gid") if k in o
                     and not (k in ("width", "height", "rotation") and o[k] == 0)}
            if o.get("visible") is False:
                attrs["visible"] = "0"
            if o.get("class") or o.get("type"):
                attrs["class"] = o.get("class") or o.get("type")
            el = ET.SubElement(og, "object", attrs)
            if o.get("properties"):
                props = ET.SubElement(el, "properties")
                for p in o["properties"]:
                    ET.SubElement(props, "property", {"name": p["name"], "value": str(p["value"])})
            if o.get("ellipse"):
                ET.SubElement(el, "ellipse")
            if o.get("point"):
                ET.SubElement(el, "point")
            for key in ("polygon", "polyline"):
                if key in o:
                    ET.SubElement(el, key, {"points": " ".join(f"{q['x']},{q['y']}" for q in o[key])})

    for layer in m["layers"]:
        if layer["type"] == "group":
            g = ET.SubElement(root, "group", {"id": str(layer["id"]), "name": layer["name"],
                                              "offsetx": str(layer["offsetx"]), "offsety": str(layer["offsety"])})
            for sub in layer["layers"]:
                objects(g, sub)
        else:
            objects(root, layer)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def m(x: float, y: float) -> tuple[float, float]:
    """A map pixel as a scene point."""
    return (x / TW, (10 * TH - y) / TH)


@pytest.fixture(scope="module", params=["tmj", "tmx"])
def result(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("tiled")
    if request.param == "tmj":
        path = d / "level.tmj"
        path.write_text(json.dumps(MAP))
    else:
        path = d / "level.tmx"
        path.write_text(tmx_text(MAP))
    return import_file(path)


def test_objects_roles_and_validity(result):
    s = result.scene
    assert_valid(s)
    assert s.bounds == (0.0, 0.0, 20.0, 10.0)
    assert result.report.roles == {"obstacle": 4, "terrain:mud": 1, "terrain:sand": 1, "route": 1}
    assert len(s.obstacles) == 4
    assert [r.points for r in s.routes] == [[m(16, 304), m(304, 304), m(304, 208)]]


def test_geometry_matches_the_map(result):
    s = result.scene
    rect = Polygon([m(32, 32), m(96, 32), m(96, 64), m(32, 64)])
    # Tiled rotates clockwise on screen (y down) about the object's top-left corner: counter-clockwise in y up
    # is negative.
    turned = affinity.rotate(Polygon([m(320, 64), m(384, 64), m(384, 96), m(320, 96)]), -30, origin=m(320, 64))
    tri = Polygon([m(480, 32), m(544, 32), m(512, 96)])
    crate = Polygon([m(512, 192), m(544, 192), m(544, 224), m(512, 224)])   # + the group's offset (64, 32)
    pieces = [Polygon(o.polygon) for o in s.obstacles]
    for want in (rect, turned, tri, crate):
        assert any(p.symmetric_difference(want).area <= want.length * 1e-3 for p in pieces), want
    assert abs(obstacle_area(s) - (rect.area + turned.area + tri.area + crate.area)) <= 1e-2
    areas = painted_areas(s)
    a, b = 2.0, 1.0                                              # 128 x 64 px ellipse
    assert abs(areas["mud"] - math.pi * a * b) <= 2 * math.pi * a * 0.01
    assert areas["sand"] == pytest.approx(3.0 * 2.0, abs=1e-9)
    mud = [t for t in s.terrains if t.type == "mud"][0]
    assert shapely.Polygon(mud.polygon).centroid.distance(shapely.Point(m(128, 224))) < 1e-3


def test_json_and_tmx_give_the_same_scene(tmp_path):
    (tmp_path / "a.tmj").write_text(json.dumps(MAP))
    (tmp_path / "b.tmx").write_text(tmx_text(MAP))
    a, b = import_file(tmp_path / "a.tmj").scene, import_file(tmp_path / "b.tmx").scene
    assert a.obstacles == b.obstacles and a.terrains == b.terrains and a.routes == b.routes


def test_a_bad_object_is_named_by_layer_and_id(tmp_path):
    bad = json.loads(json.dumps(MAP))
    bad["layers"][0]["objects"][1]["rotation"] = "thirty"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "bad.json")
    assert "layer 'Walls', object 2: rotation is not a number" in str(e.value)
    tpl = json.loads(json.dumps(MAP))
    tpl["layers"][0]["objects"].append({"id": 11, "template": "crate.tx", "x": 5, "y": 5})
    (tmp_path / "tpl.json").write_text(json.dumps(tpl))
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "tpl.json")
    assert "layer 'Walls', object 11: uses the object template 'crate.tx'" in str(e.value)
    iso = dict(MAP, orientation="isometric")
    (tmp_path / "iso.json").write_text(json.dumps(iso))
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "iso.json")
    assert "isometric maps are not supported" in str(e.value)
    (tmp_path / "bad.tmx").write_text("<map tilewidth='32'><objectgroup>")
    with pytest.raises(InputError) as e:
        import_file(tmp_path / "bad.tmx")
    assert "malformed XML" in str(e.value) and "line 1" in str(e.value)
