"""Nothing dropped silently: every source element of a generated file is in the scene (an item's sources), or in
the report's ``left_out`` with a reason; and a scene exported as GeoJSON imports back as the same scene.

Each generator knows the names of the elements it wrote (what the importer calls them), including elements that
cannot become geometry: hidden ones, text, definitions, points, slivers, open lines, ignored layers, tile objects.
"""

from __future__ import annotations

import json
import random

import ezdxf
import pytest

from core.export.geojson import to_geojson
from core.importers import ImportOptions, import_file
from core.scene.io import scene_to_dict
from shapely.geometry import Polygon

from core.scene.model import Agent, Network, Obstacle, Profile, Route, Scene, TerrainPolygon, TerrainType

from importcheck import assert_valid


def accounted(result) -> set[str]:
    """The source elements an import accounts for: in a scene item, or left out with a reason."""
    out = {w for ws in result.sources.values() for w in ws}
    out |= {w for w, why in result.report.left_out if why}
    return out


def svg_file(rng: random.Random, path) -> set[str]:
    names, body = set(), []
    for i in range(rng.randint(5, 20)):
        x, y = rng.uniform(0, 90), rng.uniform(0, 90)
        kind = rng.choice(["rect", "hidden", "text", "sliver", "open", "ignored", "none", "plain"])
        if kind == "rect":
            body.append(f'<g inkscape:groupmode="layer" inkscape:label="Walls"><rect id="e{i}" x="{x}" y="{y}" '
                        f'width="{rng.uniform(1, 9)}" height="3"/></g>')
            names.add(f"layer 'Walls', rect 'e{i}'")
        elif kind == "hidden":
            body.append(f'<rect id="e{i}" x="{x}" y="{y}" width="4" height="4" style="display:none"/>')
            names.add(f"rect 'e{i}'")
        elif kind == "text":
            body.append(f'<text id="e{i}" x="{x}" y="{y}">label</text>')
            names.add(f"text 'e{i}'")
        elif kind == "sliver":
            body.append(f'<rect id="e{i}" x="{x}" y="{y}" width="0.001" height="0.001"/>')
            names.add(f"rect 'e{i}'")
        elif kind == "open":
            body.append(f'<g inkscape:groupmode="layer" inkscape:label="Mud"><path id="e{i}" '
                        f'd="M {x} {y} L {x + 5} {y + 1}"/></g>')
            names.add(f"layer 'Mud', path 'e{i}'")
        elif kind == "ignored":
            body.append(f'<g inkscape:groupmode="layer" inkscape:label="Notes"><circle id="e{i}" cx="{x}" '
                        f'cy="{y}" r="2"/></g>')
            names.add(f"layer 'Notes', circle 'e{i}'")
        elif kind == "none":
            body.append(f'<defs><rect id="e{i}" width="3" height="3"/></defs><use id="u{i}" href="#e{i}" x="{x}" '
                        f'y="{y}"/>')
            names |= {f"rect 'e{i}'", f"rect 'e{i}' via use 'u{i}'"}
        else:
            body.append(f'<g id="g{i}"><circle id="e{i}" cx="{x}" cy="{y}" r="1.5"/></g>')
            names.add(f"circle 'e{i}'")
    body.append('<rect id="anchor" x="0" y="0" width="2" height="2"/>')
    names.add("rect 'anchor'")
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/'
                    'inkscape" width="100" height="100">' + "".join(body) + "</svg>")
    return names


def dxf_file(rng: random.Random, path) -> set[str]:
    doc = ezdxf.new(units=6)
    doc.blocks.new("B").add_circle((0, 0), 1)
    msp = doc.modelspace()
    for _ in range(rng.randint(5, 20)):
        x, y = rng.uniform(0, 90), rng.uniform(0, 90)
        kind = rng.choice(["poly", "text", "point", "insert", "line", "ignored"])
        if kind == "poly":
            msp.add_lwpolyline([(x, y), (x + 3, y), (x + 3, y + 2)], close=True, dxfattribs={"layer": "walls"})
        elif kind == "text":
            msp.add_text("note", dxfattribs={"layer": "walls"}).set_placement((x, y))
        elif kind == "point":
            msp.add_point((x, y))
        elif kind == "insert":
            ins = msp.add_blockref("B", (x, y), dxfattribs={"layer": "walls"})
            ins.dxf.row_count, ins.dxf.column_count, ins.dxf.row_spacing = 2, 1, 3
        elif kind == "line":
            msp.add_line((x, y), (x + 4, y + 1), dxfattribs={"layer": "mud"})
        else:
            msp.add_circle((x, y), 2, dxfattribs={"layer": "defpoints"})
    msp.add_lwpolyline([(0, 0), (1, 0), (1, 1)], close=True, dxfattribs={"layer": "walls"})
    doc.saveas(path)
    return {f"layer {e.dxf.layer!r}, {e.dxftype()} handle {e.dxf.handle}" for e in msp}


def tiled_file(rng: random.Random, path) -> set[str]:
    objs, names = [], set()
    for i in range(1, rng.randint(5, 20)):
        x, y = rng.uniform(0, 280), rng.uniform(0, 280)
        kind = rng.choice(["rect", "point", "tile", "hidden", "zero", "ellipse", "text"])
        o = {"id": i, "x": x, "y": y, "width": 20, "height": 10}
        if kind == "point":
            o["point"] = True
        elif kind == "tile":
            o["gid"] = 1
        elif kind == "hidden":
            o["visible"] = False
        elif kind == "zero":
            o["width"] = 0
        elif kind == "ellipse":
            o["ellipse"] = True
        elif kind == "text":
            o["text"] = {"text": "hi"}
        objs.append(o)
        names.add(f"layer 'Walls', object {i}")
    hidden = {"type": "objectgroup", "name": "Off", "visible": False, "objects": [{"id": 99, "x": 1, "y": 1,
                                                                                  "width": 5, "height": 5}]}
    names |= {"layer 'Off', object 99", "image layer 'Photo'"}
    m = {"type": "map", "orientation": "orthogonal", "width": 10, "height": 10, "tilewidth": 32, "tileheight": 32,
         "layers": [{"type": "objectgroup", "name": "Walls", "objects": objs + [{"id": 500, "x": 0, "y": 0,
                                                                                "width": 32, "height": 32}]},
                    hidden, {"type": "imagelayer", "name": "Photo"}]}
    names.add("layer 'Walls', object 500")
    path.write_text(json.dumps(m))
    return names


def geojson_file(rng: random.Random, path) -> set[str]:
    feats, names = [], set()
    for i in range(rng.randint(5, 20)):
        x, y = rng.uniform(0, 90), rng.uniform(0, 90)
        kind = rng.choice(["poly", "point", "null", "line", "ignored"])
        geom = ({"type": "Polygon", "coordinates": [[[x, y], [x + 3, y], [x + 3, y + 2], [x, y]]]} if kind == "poly"
                else {"type": "Point", "coordinates": [x, y]} if kind == "point"
                else None if kind == "null"
                else {"type": "LineString", "coordinates": [[x, y], [x + 5, y]]})
        layer = {"poly": "walls", "line": "mud", "ignored": "notes"}.get(kind, "walls")
        if kind == "ignored":
            geom = {"type": "Polygon", "coordinates": [[[x, y], [x + 3, y], [x + 3, y + 2], [x, y]]]}
        feats.append({"type": "Feature", "id": f"f{i}", "properties": {"layer": layer}, "geometry": geom})
        names.add(f"feature 'f{i}' (features[{i}])")
    feats.append({"type": "Feature", "id": "anchor", "properties": {"layer": "walls"},
                  "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}})
    names.add(f"feature 'anchor' (features[{len(feats) - 1}])")
    path.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    return names


def osm_file(rng: random.Random, path) -> set[str]:
    nodes = [f'<node id="{i}" lat="{50 + rng.uniform(0, 0.002)}" lon="{7 + rng.uniform(0, 0.002)}"/>'
             for i in range(1, 60)]
    ways, names = [], set()
    for w in range(100, 100 + rng.randint(4, 12)):
        kind = rng.choice(["footway", "missing", "building", "broken"])
        a = rng.randint(1, 50)
        if kind == "footway":
            ways.append(f'<way id="{w}"><nd ref="{a}"/><nd ref="{a + 1}"/><tag k="highway" v="footway"/></way>')
        elif kind == "missing":
            ways.append(f'<way id="{w}"><nd ref="{a}"/><nd ref="9999"/><tag k="highway" v="footway"/></way>')
        elif kind == "building":
            ways.append(f'<way id="{w}"><nd ref="{a}"/><nd ref="{a + 1}"/><nd ref="{a + 2}"/><nd ref="{a}"/>'
                        '<tag k="building" v="yes"/></way>')
        else:
            ways.append(f'<way id="{w}"><nd ref="{a}"/><nd ref="8888"/><nd ref="{a + 2}"/><nd ref="{a}"/>'
                        '<tag k="building" v="yes"/></way>')
        names.add(f"way {w}")
    ways.append('<way id="999"><nd ref="55"/><nd ref="56"/><tag k="highway" v="primary"/></way>')
    names.add("way 999")
    path.write_text(f"<?xml version='1.0'?><osm version='0.6'>{''.join(nodes)}{''.join(ways)}</osm>")
    return names


GENERATORS = {"svg": svg_file, "dxf": dxf_file, "tmj": tiled_file, "geojson": geojson_file, "osm": osm_file}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("fmt", list(GENERATORS))
def test_every_element_is_accounted_for(fmt, seed, tmp_path):
    path = tmp_path / f"f.{fmt}"
    names = GENERATORS[fmt](random.Random(seed * 7 + len(fmt)), path)
    opts = ImportOptions(crs="metres") if fmt == "geojson" else ImportOptions()
    r = import_file(path, ["notes=ignore", "(no layer)=obstacle"], opts)
    assert_valid(r.scene)
    got = accounted(r)
    assert names <= got, sorted(names - got)
    assert got <= names, sorted(got - names)
    lines = "\n".join(r.report.lines())
    for where, why in r.report.left_out:
        assert why and (where in lines or "more" in lines)


# -- export then import ------------------------------------------------------------------------------------------
def random_scene(rng: random.Random) -> Scene:
    """A scene with obstacles, terrain with a hole, routes, a network, agents of both kinds and settings."""
    obstacles = []
    for i in range(rng.randint(1, 4)):
        x, y = 10 + 15 * i, round(rng.uniform(5, 20), 3)          # on the export's 1 mm grid
        obstacles.append(Obstacle(f"wall-{i}", [(x, y), (x + 4, y), (x + 4, y + 3), (x, y + 3)]))
    terrains = [TerrainPolygon("pond", "mud", [(5, 40), (40, 40), (40, 60), (5, 60)], [[(10, 45), (15, 45),
                                                                                          (15, 50), (10, 50)]])]
    routes = [Route("main", [(1, 1), (70, 1), (70, 80)]), Route("side", [(2, 90), (60, 90)])]
    nodes = [(2.0, 70.0), (30.0, 70.0), (30.0, 85.0), (75.0, 85.0)]
    networks = [Network("net", nodes, [(0, 1), (1, 2), (2, 3)])]
    agents = [Agent("a1", "walker", route="main"), Agent("a2", "walker", start=(3.0, 95.0), goal=(78.0, 95.0)),
              Agent("a3", "walker", start=(50.0, 30.0), goal=(60.0, 92.0), planner="grid")]
    s = Scene(bounds=(0, 0, 80, 100), terrain_types=[TerrainType("default", "Open", "#cbd5a3"),
                                                     TerrainType("mud", "Mud", "#7a5230")],
              default_terrain="default", name=f"generated {rng.random():.6f}", obstacles=obstacles,
              terrains=terrains, profiles=[Profile("walker", {"mud": 3.0})], routes=routes, networks=networks,
              agents=agents[:rng.randint(1, 3)])
    s.simulation.dt = rng.choice([0.05, 0.1, 0.2])
    s.simulation.method = rng.choice(["miran", "irm"])
    s.measurement.area = [(20.0, 20.0), (30.0, 20.0), (30.0, 30.0)]
    s.measurement.line = [(50.0, 50.0), (60.0, 50.0)]
    return s


@pytest.mark.parametrize("seed", range(4))
def test_export_then_import_gives_the_same_scene(seed, tmp_path):
    """scene -> GeoJSON -> scene: every field the scene format writes comes back, ids included."""
    from core.scene.parse import parse_scene

    scene = parse_scene(scene_to_dict(random_scene(random.Random(seed))))
    path = tmp_path / "s.geojson"
    path.write_text(json.dumps(to_geojson(scene)))
    r = import_file(path)
    got, want = scene_to_dict(r.scene), scene_to_dict(scene)
    # Rings come back normalised (a fixed first vertex and winding): the same polygons.
    for key in ("obstacles", "terrains"):
        assert [o["id"] for o in got[key]] == [o["id"] for o in want[key]]
        for a, b in zip(got[key], want[key]):
            pa, pb = (Polygon(o["polygon"], o.get("holes", [])) for o in (a, b))
            assert pa.normalize().equals_exact(pb.normalize(), 1e-9), (a, b)
            assert a.get("type") == b.get("type")
        got.pop(key), want.pop(key)
    assert got == want
    assert r.report.left_out == []


def test_paths_in_an_export_are_left_out_by_name(tmp_path):
    scene = random_scene(random.Random(9))
    doc = to_geojson(scene)
    doc["features"].append({"type": "Feature", "properties": {"role": "path", "layer": "paths", "id": "a1"},
                            "geometry": {"type": "LineString", "coordinates": [[1, 1], [5, 1]]}})
    path = tmp_path / "s.geojson"
    path.write_text(json.dumps(doc))
    r = import_file(path)
    assert [why for w, why in r.report.left_out if "a1" in w] == ["role ignore"]
    assert len(r.scene.routes) == 2
